"""The sign-in pause (`SIGN_IN`), the answers it takes and `create_sign_in_resume`."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping
from typing import Any

from mcpbridge import InterruptLike, Question

PAYLOAD_TYPE = "mcp_sign_in"
_ERROR_CODE = re.compile(r"[\x20-\x21\x23-\x5b\x5d-\x7e]{1,64}")
"""An OAuth error code (RFC 6749 §4.1.2.1: printable ASCII but `"` and `\\`), at most 64 long."""

ANSWER_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "code": {"type": "string", "minLength": 1},
                "state": {"type": "string"},
                "iss": {"type": "string"},
            },
            "required": ["code", "state"],
        },
        {
            "type": "object",
            "properties": {"signed_in": {"const": True}, "state": {"type": "string"}},
            "required": ["signed_in", "state"],
        },
        {
            "type": "object",
            "properties": {"error": {"type": "string", "minLength": 1}, "state": {"type": "string"}},
            "required": ["error", "state"],
        },
    ]
}
"""What clients see as the interrupt's `response_schema`."""


def check_answer(payload: Mapping[str, Any], answer: Any) -> dict[str, Any]:
    """`answer` if it answers the sign-in `payload`: its `state` is this sign-in's, with the
    `code` the app's callback received, or `signed_in: true` once the app completed the
    exchange itself (`complete_sign_in`). A `ValueError` names what is wrong and what to send."""
    where = f"the sign-in to server {payload['server_name']!r}"
    if not isinstance(answer, Mapping):
        raise ValueError(
            f"{where} is answered with a dict: {{'code': ..., 'state': ...}} (the values the authorization server "
            f"sent to the app's callback) or {{'state': ..., 'signed_in': True}}; got a {type(answer).__name__}"
        )
    state = answer.get("state")
    if not isinstance(state, str) or not state:
        raise ValueError(
            f"{where}: the answer needs `state`, the text the authorization server sent back with the code"
        )
    if not secrets.compare_digest(state.encode(), str(payload["state"]).encode()):
        raise ValueError(
            f"{where}: the answer's `state` is not this sign-in's (a callback of another sign-in, or one replayed): "
            "resume with the code and state the authorization server sent for this interrupt's authorization_url"
        )
    unknown = sorted(set(answer) - {"code", "state", "signed_in", "error", "iss"})
    if unknown:
        raise ValueError(
            f"{where}: unknown keys {unknown}; send `code` and `state`, `state` and `signed_in`, or `state` and `error`"
        )
    error = answer.get("error")
    if error is not None:
        if not isinstance(error, str) or not _ERROR_CODE.fullmatch(error) or "code" in answer:
            raise ValueError(
                f"{where}: `error` is the OAuth error code the callback received (e.g. 'access_denied'), "
                "without a `code`"
            )
        return {"state": state, "error": error}
    code = answer.get("code")
    if answer.get("signed_in") is True and code is None:
        return {"state": state, "signed_in": True}
    if not isinstance(code, str) or not code:
        raise ValueError(
            f"{where}: the answer needs `code` (the authorization code the app's callback received), or "
            "`signed_in: True` after `complete_sign_in(...)` exchanged it"
        )
    iss = answer.get("iss")
    if iss is None:
        return {"state": state, "code": code}
    if not isinstance(iss, str):
        raise ValueError(f"{where}: `iss` is the text the callback received with the code (RFC 9207)")
    return {"state": state, "code": code, "iss": iss}


SIGN_IN = Question(PAYLOAD_TYPE, "sign-in", check_answer)
"""The sign-in pause: `SIGN_IN.resume(interrupts, answer)` is `create_sign_in_resume`."""


def create_sign_in_resume(
    interrupts: InterruptLike | Iterable[InterruptLike],
    *,
    code: str | None = None,
    state: str,
    signed_in: bool = False,
    error: str | None = None,
    iss: str | None = None,
) -> dict[str, dict[str, Any]]:
    """`{interrupt.id: answer}` for every pending sign-in in `interrupts` whose `state` is
    `state` (the one the app's callback received, with its `iss` if it has one; calls of one
    person that paused at once share one sign-in, so one callback answers them all), checked now:
    `Command(resume=create_sign_in_resume(result["__interrupt__"], code=code, state=state))`.
    With `signed_in=True` (after `complete_sign_in`) no code travels through the checkpoint;
    with `error=` (the callback's `error`, e.g. "access_denied") the call ends unsent.
    A state that no pending sign-in has is a `ValueError`. Merge with other resume maps (`|`)."""
    pending = [item for item in SIGN_IN.pending(interrupts) if item.value.get("state") == state]
    if not pending:
        raise ValueError(
            "no pending sign-in in these interrupts has this state: it belongs to another run, was already "
            "answered, or expired; send the person to the authorization_url of a pending sign-in"
        )
    answer: dict[str, Any] = {"state": state, "code": code, **({"iss": iss} if iss is not None else {})}
    if signed_in:
        answer = {"state": state, "signed_in": True}
    elif error is not None:
        answer = {"state": state, "error": error}
    return SIGN_IN.resume(pending, answer)
