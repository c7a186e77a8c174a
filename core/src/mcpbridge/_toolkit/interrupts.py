"""Pausing a tool call for a person (approval, elicitation) with a LangGraph `interrupt()`.

`interrupt()` only pauses safely inside a graph run that has a checkpointer. Without one
LangGraph raises nothing: the run ends with `__interrupt__` and the paused call's state is
lost; outside a graph it fails with a bare `KeyError: '__pregel_scratchpad'`. `pause()`
checks the run first and refuses with `CannotPauseError` (a `ToolException`, so the tool
answers with an error ToolMessage and never runs the gated call).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Generic, TypeAlias, TypeGuard, TypeVar, cast

from langgraph.config import get_config
from langgraph.errors import GraphInterrupt
from langgraph.types import Interrupt, interrupt
from pydantic import AfterValidator, WithJsonSchema

from mcpbridge._base.tool_errors import CannotPauseError
from mcpbridge._compat import CONFIG_KEY_CHECKPOINTER, CONFIG_KEY_SCRATCHPAD, answers_given
from mcpbridge._toolkit.claims import note_resumed

if TYPE_CHECKING:
    from mcpbridge._base.pipeline import ToolCallRequest

PAUSE_FIX = (
    "run the tool inside a LangGraph graph that has a checkpointer, e.g. "
    "`create_agent(model, tools, checkpointer=InMemorySaver())` (a SQLite or Postgres "
    "checkpointer to resume in another process), invoked with a `thread_id`"
)


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
    request: ToolCallRequest,
    check: Callable[[Any], Any] | None = None,
    schema: Mapping[str, Any] | None = None,
    on_pause: Callable[[], None] | None = None,
) -> Any:
    """`interrupt(value)` after making sure the run can pause; returns the resume value.

    `check(answer)` validates (and may convert) the answer: a `ValueError` it raises reaches
    whoever resumed the run, and LangGraph saves nothing, so the interrupt can be answered
    again. `schema` is the JSON Schema clients see as the interrupt's `response_schema`.
    `on_pause` runs only when the call really pauses (not when a resume value is replayed).
    Once it returns, `request`'s call is marked as resumed (`request.resumed`): the claiming
    layer claims it before it is sent, so that only one worker resuming this interrupt sends
    it.
    """
    if (problem := pause_problem()) is not None:
        raise CannotPauseError(f"{purpose} needs to pause the agent for a person's answer, but {problem}: {PAUSE_FIX}")
    response_schema: Any = None
    if check is not None:
        response_schema = Annotated[Any, AfterValidator(check), WithJsonSchema(dict(schema or {}))]
    try:
        answer = interrupt(dict(value), response_schema=response_schema)
    except GraphInterrupt:
        if on_pause is not None:
            on_pause()
        raise
    configurable = get_config()["configurable"]
    note_resumed(request, configurable, answers_given(configurable))
    return answer


A = TypeVar("A")
AnswerCheck: TypeAlias = Callable[[Mapping[str, Any], Any], A]
"""`check(payload, answer) -> answer`: raises `ValueError` naming what is wrong and what to send."""


@dataclass(frozen=True, slots=True)
class Question(Generic[A]):
    """One kind of pause for a person's answer, e.g. an approval: the payload `type` that
    marks its interrupts, and the check its answers pass — the same check when the call
    pauses (so a bad resume value is refused and can be sent again) and when a client builds
    a resume value with `resume()` (so mistakes surface there)."""

    kind: str
    """The payload's `type`, e.g. `"mcp_approval"`."""
    purpose: str
    """What the person is asked for, for messages, e.g. `"approval"`."""
    check: AnswerCheck[A]

    def ask(
        self,
        request: ToolCallRequest,
        details: Mapping[str, Any],
        *,
        schema: Mapping[str, Any] | None = None,
        on_pause: Callable[[], None] | None = None,
    ) -> A:
        """Pause the run with a payload of `type`, `server_name`, `name`, `display_name`,
        `tool_call_id` and `details`; return the checked answer once the run is resumed."""
        payload = {
            "type": self.kind,
            "server_name": request.server_name,
            "name": request.name,
            "display_name": request.display_name or request.name,
            "tool_call_id": request.tool_call_id,
            **details,
        }
        answer: A = pause(
            payload,
            purpose=f"{self.purpose} for tool {request.name!r} on server {request.server_name!r}",
            request=request,
            check=lambda answer: self.check(payload, answer),
            schema=schema,
            on_pause=on_pause,
        )
        return answer

    def pending(self, interrupts: InterruptLike | Iterable[InterruptLike]) -> list[Interrupt]:
        """The interrupts in `interrupts` that ask this question: `result["__interrupt__"]`
        of a graph run, or the `{"id", "value"}` dicts the LangGraph SDK returns
        (`(await client.threads.get_state(thread_id))["interrupts"]`)."""
        if isinstance(interrupts, Interrupt) or _is_sdk_interrupt(interrupts):
            item = as_interrupt(interrupts)
            if not isinstance(item.value, Mapping):
                raise TypeError(f"expected an mcpbridge interrupt, got a {type(item.value).__name__} value")
            if (kind := item.value.get("type")) != self.kind:
                raise ValueError(f"interrupt {item.id} is a {kind!r} interrupt, not {self.kind!r}")
            return [item]
        items = [as_interrupt(item) for item in cast("Iterable[InterruptLike]", interrupts)]
        return [item for item in items if isinstance(item.value, Mapping) and item.value.get("type") == self.kind]

    def resume(
        self, interrupts: InterruptLike | Iterable[InterruptLike], answer: Any | Callable[[Mapping[str, Any]], Any]
    ) -> dict[str, A]:
        """`{interrupt.id: answer}` for every pending question of this kind, each answer
        checked now; `answer` is one answer for all or a function of each payload. Merge
        maps with `|` to answer several kinds at once in one `Command(resume=...)`."""
        pending = self.pending(interrupts)  # each one's value is a payload of this kind
        return {item.id: self.check(item.value, answer(item.value) if callable(answer) else answer) for item in pending}


InterruptLike: TypeAlias = "Interrupt | Mapping[str, Any]"
"""A LangGraph `Interrupt`, or its `{"id": ..., "value": ...}` form from the LangGraph SDK."""


def as_interrupt(item: InterruptLike) -> Interrupt:
    """`item` as an `Interrupt`; the SDK's dict form must have `id` and `value`."""
    if isinstance(item, Interrupt):
        return item
    if not _is_sdk_interrupt(item):
        raise TypeError(f"expected a LangGraph Interrupt or an {{'id', 'value'}} dict, got {type(item).__name__}")
    return Interrupt(value=item["value"], id=str(item["id"]))


def _is_sdk_interrupt(item: object) -> TypeGuard[Mapping[str, Any]]:
    return isinstance(item, Mapping) and "id" in item and "value" in item
