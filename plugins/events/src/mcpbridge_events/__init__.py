"""mcpbridge-events: tool-call lifecycle events for UIs, a Python tool-call assembler (the
counterpart of LangGraph JS `useStream().toolCalls`) and a live web inspector."""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, ConfigDict

from mcpbridge import PluginConfig, hookimpl
from mcpbridge_events.assembler import AssembledToolCall, ToolCallAssembler, ToolProgress
from mcpbridge_events.lifecycle import EVENT_TYPE, LifecycleEvents

NAME = "events"

__all__ = [
    "EVENT_TYPE",
    "AssembledToolCall",
    "LifecycleEvents",
    "Settings",
    "ToolCallAssembler",
    "ToolProgress",
]


class Settings(BaseModel):
    """`[plugins.events]`."""

    model_config = ConfigDict(extra="forbid")
    include_input: bool = True
    """Put the call's arguments in the `started` event, and the mappings other plugins report
    (e.g. the arguments an approval asks about) in `update` data and `notes`; turn off when
    they are secret."""
    include_output: bool = True
    """Put the call's output in the `finished` event (turn off for large or private outputs)."""


@hookimpl
def mcpbridge_configure(config: PluginConfig) -> None:
    config.parse(NAME, Settings)


@hookimpl
def mcpbridge_commands() -> dict[str, Callable[[list[str]], int | None]]:
    """`mcpbridge inspect [--port N] [--no-run]`: the live inspector page with the demo agent."""

    def inspect(argv: list[str]) -> int:
        from mcpbridge_events.inspector import main

        return main(["inspect", *argv])

    return {"inspect": inspect}


@hookimpl
def mcpbridge_interceptors(config: PluginConfig) -> list[LifecycleEvents]:
    settings = config.parse(NAME, Settings)
    return [LifecycleEvents(include_input=settings.include_input, include_output=settings.include_output)]
