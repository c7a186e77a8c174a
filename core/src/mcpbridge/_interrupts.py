"""Pausing a tool call for a person (approval, elicitation) with a LangGraph `interrupt()`.

`interrupt()` only pauses safely inside a graph run that has a checkpointer. Without one
LangGraph raises nothing: the run ends with `__interrupt__` and the paused call's state is
lost; outside a graph it fails with a bare `KeyError: '__pregel_scratchpad'`. `pause()`
checks the run first and refuses with `CannotPauseError` (a `ToolException`, so the tool
answers with an error ToolMessage and never runs the gated call).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any

from langchain_core.tools import ToolException
from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER, CONFIG_KEY_SCRATCHPAD
from langgraph.config import get_config
from langgraph.errors import GraphInterrupt
from langgraph.types import Interrupt, interrupt
from pydantic import AfterValidator, WithJsonSchema

from mcpbridge._errors import MCPBridgeError

PAUSE_FIX = (
    "run the tool inside a LangGraph graph that has a checkpointer, e.g. "
    "`create_agent(model, tools, checkpointer=InMemorySaver())` (a SQLite or Postgres "
    "checkpointer to resume in another process), invoked with a `thread_id`"
)


class CannotPauseError(MCPBridgeError, ToolException):
    """A call needed a person's answer but the run cannot pause; the call was not made."""


def pause_problem() -> str | None:
    """Why the current run cannot pause with `interrupt()`, or None when it can."""
    try:
        configurable = get_config().get("configurable") or {}
    except RuntimeError:
        return "it is not running inside a LangGraph graph"
    if configurable.get(CONFIG_KEY_SCRATCHPAD) is None:
        return "it is not running inside a LangGraph graph (it was invoked directly)"
    if configurable.get(CONFIG_KEY_CHECKPOINTER) is None:
        return "the graph has no checkpointer, so a paused run could never be resumed"
    return None


def pause(
    value: Mapping[str, Any],
    *,
    purpose: str,
    check: Callable[[Any], Any] | None = None,
    schema: Mapping[str, Any] | None = None,
    on_pause: Callable[[], None] | None = None,
) -> Any:
    """`interrupt(value)` after making sure the run can pause; returns the resume value.

    `check(answer)` validates (and may convert) the answer: a `ValueError` it raises reaches
    whoever resumed the run, and LangGraph saves nothing, so the interrupt can be answered
    again. `schema` is the JSON Schema clients see as the interrupt's `response_schema`.
    `on_pause` runs only when the call really pauses (not when a resume value is replayed).
    """
    problem = pause_problem()
    if problem is not None:
        raise CannotPauseError(f"{purpose} needs to pause the agent for a person's answer, but {problem}: {PAUSE_FIX}")
    response_schema: Any = None
    if check is not None:
        response_schema = Annotated[Any, AfterValidator(check), WithJsonSchema(dict(schema or {}))]
    try:
        return interrupt(dict(value), response_schema=response_schema)
    except GraphInterrupt:
        if on_pause is not None:
            on_pause()
        raise


def interrupt_id(item: Interrupt | str) -> str:
    """The id a resume value is keyed by: `Command(resume={interrupt_id(i): answer})`."""
    return item if isinstance(item, str) else item.id


def interrupt_payload(item: Interrupt | Mapping[str, Any]) -> Mapping[str, Any]:
    """The value an interrupt carries (accepts the `Interrupt` or its value)."""
    value = item.value if isinstance(item, Interrupt) else item
    if not isinstance(value, Mapping):
        raise TypeError(f"expected an mcpbridge interrupt, got a {type(value).__name__} value")
    return value
