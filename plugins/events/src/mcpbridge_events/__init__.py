"""mcpbridge-events: tool-call lifecycle events for UIs, a Python tool-call assembler (the
counterpart of LangGraph JS `useStream().toolCalls`). The live web inspector that shows
them is `mcpbridge inspect`, in mcpbridge-demo."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from mcpbridge import BridgeContext, Plugin, hookimpl, lazy_exports
from mcpbridge_events.limits import DEFAULT_MAX_TEXT_BYTES, DEFAULT_MAX_UPDATES, MIN_TEXT_BYTES, Limits

if TYPE_CHECKING:
    from mcpbridge_events.assembler import AssembledToolCall, ToolCallAssembler, ToolProgress
    from mcpbridge_events.lifecycle import EVENT_TYPE, LifecycleEvents
    from mcpbridge_events.streaming import stream_transformers

# The interceptor, the assembler and the transformers import mcp, LangChain and LangGraph: on first use only.
__getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(("AssembledToolCall", "ToolCallAssembler", "ToolProgress"), "mcpbridge_events.assembler"),
        **dict.fromkeys(("EVENT_TYPE", "LifecycleEvents"), "mcpbridge_events.lifecycle"),
        "stream_transformers": "mcpbridge_events.streaming",
    },
)

__all__ = [
    "EVENT_TYPE",
    "AssembledToolCall",
    "LifecycleEvents",
    "Limits",
    "EventsSettings",
    "ToolCallAssembler",
    "ToolProgress",
    "stream_transformers",
]


class EventsSettings(BaseModel):
    """`[plugins.events]`."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    include_input: bool = True
    """Put the call's arguments in the `started` event, and the mappings other plugins report
    (e.g. the arguments an approval asks about) in `update` data and `notes`; turn off when
    they are secret."""
    include_output: bool = True
    """Put the call's output in the `finished` event (turn off for large or private outputs)."""
    max_updates_per_call: int = Field(default=DEFAULT_MAX_UPDATES, ge=1, strict=True)
    """How many updates of one call an assembler or the inspector keeps: the latest; the
    earlier ones are only counted (`AssembledToolCall.updates_dropped`)."""
    max_text_bytes: int = Field(default=DEFAULT_MAX_TEXT_BYTES, ge=MIN_TEXT_BYTES, strict=True)
    """Every text in an update or progress event (a log line, a status message) is cut to this
    many UTF-8 bytes, with a marker saying how much was cut, before it reaches the stream."""


mcpbridge_plugin = Plugin(settings=EventsSettings, position=10)


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[LifecycleEvents]:
    from mcpbridge_events.lifecycle import LifecycleEvents

    settings = context.settings_of(EventsSettings)
    limits = Limits(settings.max_updates_per_call, settings.max_text_bytes)
    include = {"include_input": settings.include_input, "include_output": settings.include_output}
    return [LifecycleEvents(**include, limits=limits, note_types=context.artifact_types)]
