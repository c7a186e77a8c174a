"""A person reviews the model's draft before the server gets it: the review `Question`, the
check every decision passes, and `create_sampling_resume`.

Decisions (HumanInTheLoopMiddleware shapes): `{"type": "approve"}`, `{"type": "edit",
"text": "..."}` (the server gets this text instead), `{"type": "reject", "message": "..."}`
(the tool call fails with that message). On resume LangGraph re-runs the tool; in another
process the model drafts again, so the check turns `approve` into the exact text the person
saw, and `create_sampling_resume` runs it against the payload they were shown."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from mcp.types import CreateMessageRequestParams, TextContent

from mcpbridge import InterruptLike, Question
from mcpbridge_sampling.sampler import Draft

PAYLOAD_TYPE = "mcp_sampling"
DECISIONS = ("approve", "edit", "reject")
APPROVE: dict[str, Any] = {"type": "approve"}


def check_decision(payload: Mapping[str, Any], answer: Any) -> dict[str, Any]:
    """A valid decision for the draft in `payload`, `approve` pinned to the draft's text."""
    where = f"the sampling request of tool {payload['name']!r} on server {payload['server_name']!r}"
    if not isinstance(answer, Mapping) or answer.get("type") not in DECISIONS:
        got = answer.get("type") if isinstance(answer, Mapping) else answer
        raise ValueError(
            f"the review decision for {where} must be a dict whose `type` is one of {list(DECISIONS)}, got {got!r}"
        )
    kind, text, message = answer["type"], answer.get("text"), answer.get("message")
    if kind == "edit" and not isinstance(text, str):
        raise ValueError(f"the 'edit' decision for {where} needs `text`: the answer the server gets instead")
    if kind == "approve" and text is None:
        text = payload["draft"]["text"]
    if text is not None and not isinstance(text, str):
        raise ValueError(f"the {kind!r} decision for {where}: `text` must be a string")
    if message is not None and not isinstance(message, str):
        raise ValueError(f"the {kind!r} decision for {where}: `message` must be a string")
    return {"type": kind, **({"text": text} if kind != "reject" else {}), **({"message": message} if message else {})}


SAMPLING_REVIEW = Question(PAYLOAD_TYPE, "sampling review", check_decision)
"""The review pause: `SAMPLING_REVIEW.resume(interrupts, decision)` is `create_sampling_resume`."""

DECISION_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {"type": "object", "properties": {"type": {"const": "approve"}}, "required": ["type"]},
        {
            "type": "object",
            "properties": {"type": {"const": "edit"}, "text": {"type": "string"}},
            "required": ["type", "text"],
        },
        {
            "type": "object",
            "properties": {"type": {"const": "reject"}, "message": {"type": "string"}},
            "required": ["type"],
        },
    ]
}


def review_details(key: str, params: CreateMessageRequestParams, draft: Draft) -> dict[str, Any]:
    """What the reviewer is shown: the server's conversation (text parts) and the draft."""
    conversation = [
        {
            "role": message.role,
            "text": "\n".join(block.text for block in message.content_as_list if isinstance(block, TextContent)),
        }
        for message in params.messages
    ]
    shown = draft.result.content
    return {
        "key": key,
        "request": {"system_prompt": params.system_prompt, "messages": conversation},
        "draft": {"text": shown.text if isinstance(shown, TextContent) else "", **draft.report()},
        "allowed_decisions": list(DECISIONS),
    }


def create_sampling_resume(
    interrupts: InterruptLike | Iterable[InterruptLike],
    decision: Mapping[str, Any] | Callable[[Mapping[str, Any]], Mapping[str, Any]] = APPROVE,
) -> dict[str, dict[str, Any]]:
    """`{interrupt.id: decision}` for every pending sampling review (other interrupts are
    skipped), checked now against the draft each person saw; merge with `|`."""
    return SAMPLING_REVIEW.resume(interrupts, decision)
