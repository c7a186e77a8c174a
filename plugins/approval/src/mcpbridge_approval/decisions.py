"""Decisions a person gives (LangChain HumanInTheLoopMiddleware shapes), their checks, and
`create_approval_resume`, which keys them by interrupt id for `Command(resume=...)`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from langgraph.types import Interrupt

from mcpbridge._interrupts import interrupt_id, interrupt_payload
from mcpbridge._schemas import schema_problems
from mcpbridge_approval.settings import DecisionType

PAYLOAD_TYPE = "mcp_approval"
APPROVE: dict[str, Any] = {"type": "approve"}

Decision = Mapping[str, Any]


def decision_checker(
    *, server: str, tool: str, names: Sequence[str], allowed: Sequence[DecisionType], input_schema: Mapping[str, Any]
) -> Callable[[Any], dict[str, Any]]:
    """A check for one call's decision: a `ValueError` names what is wrong and what to send."""
    where = f"tool {tool!r} on server {server!r}"

    def approval_decision(answer: Any) -> dict[str, Any]:
        if not isinstance(answer, Mapping) or answer.get("type") not in allowed:
            got = answer.get("type") if isinstance(answer, Mapping) else answer
            raise ValueError(
                f"the approval decision for {where} must be a dict whose `type` is one of {list(allowed)}, got {got!r}"
            )
        kind = answer["type"]
        message = answer.get("message")
        if message is not None and not isinstance(message, str):
            raise ValueError(f"the {kind!r} decision for {where}: `message` must be a string")
        if kind == "respond" and not message:
            raise ValueError(f"the 'respond' decision for {where} needs a `message`: the text returned to the model")
        if kind == "edit":
            _check_edit(answer, where, names, input_schema)
        return dict(answer)

    return approval_decision


def _check_edit(answer: Mapping[str, Any], where: str, names: Sequence[str], input_schema: Mapping[str, Any]) -> None:
    action = answer.get("edited_action")
    if not isinstance(action, Mapping) or not isinstance(action.get("args"), Mapping):
        raise ValueError(
            f"the 'edit' decision for {where} needs "
            "`edited_action: {'name': ..., 'args': {...}}` with the new arguments"
        )
    name = action.get("name")
    if name is not None and name not in names:
        raise ValueError(f"the 'edit' decision for {where} cannot switch to another tool ({name!r})")
    problems = schema_problems(input_schema, dict(action["args"]))
    if problems:
        raise ValueError(f"the edited arguments for {where} do not match the tool's input schema: {problems}")


def decision_schema(allowed: Sequence[DecisionType], input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """The JSON Schema clients see as the interrupt's `response_schema`."""
    shapes: dict[str, dict[str, Any]] = {
        "approve": {},
        "edit": {
            "edited_action": {
                "type": "object",
                "properties": {"name": {"type": "string"}, "args": dict(input_schema)},
                "required": ["args"],
            }
        },
        "reject": {"message": {"type": "string"}},
        "respond": {"message": {"type": "string"}},
    }
    required = {"edit": ["type", "edited_action"], "respond": ["type", "message"]}
    return {
        "oneOf": [
            {
                "type": "object",
                "properties": {"type": {"const": kind}, **shapes[kind]},
                "required": required.get(kind, ["type"]),
            }
            for kind in allowed
        ]
    }


def create_approval_resume(
    interrupts: Interrupt | Iterable[Interrupt],
    decision: Decision | Callable[[Mapping[str, Any]], Decision] = APPROVE,
) -> dict[str, dict[str, Any]]:
    """`{interrupt.id: decision}` for every pending approval in `interrupts` (other
    interrupts are skipped, so `result["__interrupt__"]` can be passed whole).

    `decision` is one decision for all, or a function of each interrupt's payload, e.g.
    `lambda p: APPROVE if p["tool"] != "drop_table" else {"type": "reject"}`. Merge the
    result with other resume maps (`|`) to answer several kinds of interrupt at once:
    `agent.invoke(Command(resume=create_approval_resume(result["__interrupt__"])), config)`.
    """
    items = [interrupts] if isinstance(interrupts, Interrupt) else list(interrupts)
    resume: dict[str, dict[str, Any]] = {}
    for item in items:
        payload = interrupt_payload(item)
        if payload.get("type") != PAYLOAD_TYPE:
            continue
        chosen = decision(payload) if callable(decision) else decision
        if not isinstance(chosen, Mapping) or chosen.get("type") not in payload["allowed_decisions"]:
            raise ValueError(
                f"decision {chosen!r} for tool {payload['tool']!r} on server {payload['server']!r} is not one of "
                f"the allowed decisions {payload['allowed_decisions']}"
            )
        resume[interrupt_id(item)] = dict(chosen)
    return resume
