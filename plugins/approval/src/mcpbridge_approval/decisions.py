"""Decisions a person gives (LangChain HumanInTheLoopMiddleware shapes): the approval
`Question`, the check every decision passes, and `create_approval_resume`."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mcpbridge import InterruptLike, Question, schema_problems

PAYLOAD_TYPE = "mcp_approval"
APPROVE: dict[str, Any] = {"type": "approve"}
FINGERPRINT = "fingerprint"
"""The key of the tool definition's fingerprint (`definition_fingerprint`) in a payload, and
in a decision: the definition the person decided on."""

Decision = Mapping[str, Any]


def check_decision(payload: Mapping[str, Any], answer: Any) -> dict[str, Any]:
    """`answer` if it is a valid decision for the paused call `payload`, bound to the tool
    definition it was given for (its `fingerprint`, else `payload`'s); a `ValueError` names
    what is wrong and what to send."""
    where = f"tool {payload['name']!r} on server {payload['server_name']!r}"
    allowed = payload["allowed_decisions"]
    if not isinstance(answer, Mapping) or answer.get("type") not in allowed:
        got = answer.get("type") if isinstance(answer, Mapping) else answer
        raise ValueError(
            f"the approval decision for {where} must be a dict whose `type` is one of {allowed}, got {got!r}"
        )
    kind = answer["type"]
    if not isinstance(answer.get(FINGERPRINT, ""), str | None):
        raise ValueError(f"the {kind!r} decision for {where}: `{FINGERPRINT}` must be the payload's, a string")
    message = answer.get("message")
    if message is not None and not isinstance(message, str):
        raise ValueError(f"the {kind!r} decision for {where}: `message` must be a string")
    if kind == "respond" and not message:
        raise ValueError(f"the 'respond' decision for {where} needs a `message`: the text returned to the model")
    if kind == "edit":
        action = answer.get("edited_action")
        if not isinstance(action, Mapping) or not isinstance(action.get("args"), Mapping):
            raise ValueError(
                f"the 'edit' decision for {where} needs "
                "`edited_action: {'name': ..., 'args': {...}}` with the new arguments"
            )
        name = action.get("name")
        if name is not None and name not in (payload["display_name"], payload["name"]):
            raise ValueError(f"the 'edit' decision for {where} cannot switch to another tool ({name!r})")
        problems = schema_problems(payload["input_schema"], dict(action["args"]))
        if problems:
            raise ValueError(f"the edited arguments for {where} do not match the tool's input schema: {problems}")
    return {FINGERPRINT: payload.get(FINGERPRINT), **answer}


APPROVAL = Question(PAYLOAD_TYPE, "approval", check_decision)
"""The approval pause: `APPROVAL.resume(interrupts, decision)` is `create_approval_resume`."""


def decision_schema(allowed: Sequence[str], input_schema: Mapping[str, Any]) -> dict[str, Any]:
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
                "properties": {"type": {"const": kind}, FINGERPRINT: {"type": "string"}, **shapes[kind]},
                "required": required.get(kind, ["type"]),
            }
            for kind in allowed
        ]
    }


def create_approval_resume(
    interrupts: InterruptLike | Iterable[InterruptLike],
    decision: Decision | Callable[[Mapping[str, Any]], Decision] = APPROVE,
) -> dict[str, dict[str, Any]]:
    """`{interrupt.id: decision}` for every pending approval in `interrupts` (other
    interrupts are skipped, so `result["__interrupt__"]` can be passed whole), each decision
    checked now so mistakes surface here. Each decision carries its payload's `fingerprint`:
    it holds for the tool definition the person saw, and a resumed call whose tool the server
    has changed since asks again.

    `decision` is one decision for all, or a function of each interrupt's payload, e.g.
    `lambda p: APPROVE if p["name"] != "drop_table" else {"type": "reject"}`. Merge the
    result with other resume maps (`|`) to answer several kinds of interrupt at once:
    `agent.invoke(Command(resume=create_approval_resume(result["__interrupt__"])), config)`.
    """
    return APPROVAL.resume(interrupts, decision)
