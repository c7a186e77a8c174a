"""What the person is shown (the interrupt payload), how their answers are checked, and
`create_elicitation_resume`, which keys answers by interrupt id for `Command(resume=...)`."""

from __future__ import annotations

import reprlib
from collections.abc import Mapping
from typing import Any

from mcp.types import ElicitRequest, ElicitRequestFormParams

from mcpbridge import InterruptLike, Question, schema_problems

PAYLOAD_TYPE = "mcp_elicitation"
ACTIONS = ("accept", "decline", "cancel")

Answers = dict[str, dict[str, Any]]


def describe_requests(requests: Mapping[str, ElicitRequest]) -> Answers:
    """Each question as the payload shows it: form (message + schema) or url (message + url)."""
    shown: Answers = {}
    for key, request in requests.items():
        params = request.params
        if isinstance(params, ElicitRequestFormParams):
            shown[key] = {"mode": "form", "message": params.message, "requested_schema": dict(params.requested_schema)}
        else:
            shown[key] = {"mode": "url", "message": params.message, "url": params.url}
    return shown


def check_answers(payload: Mapping[str, Any], answers: Any) -> Answers:
    """`answers` for exactly the questions of `payload`, each valid; a `ValueError` names
    what is wrong."""
    requests: Mapping[str, Mapping[str, Any]] = payload["requests"]
    where = f"tool {payload['name']!r} on server {payload['server_name']!r}"
    if not isinstance(answers, Mapping):
        raise ValueError(f"the answers for {where} must be a dict keyed by question ({sorted(requests)})")
    if odd := [key for key in answers if not isinstance(key, str)]:
        keys = f"the questions' keys ({sorted(requests)})"
        raise ValueError(f"the answers for {where} must be keyed by {keys}, {_odd(odd[0])}")
    missing, unknown = sorted(set(requests) - set(answers)), sorted(set(answers) - set(requests))
    if missing or unknown:
        raise ValueError(
            f"the answers for {where} must answer exactly the questions {sorted(requests)}"
            + (f"; missing {missing}" if missing else "")
            + (f"; unknown {unknown}" if unknown else "")
        )
    return {key: _check_answer(requests[key], answers[key], f"{where}, question {key!r}") for key in requests}


def _check_answer(request: Mapping[str, Any], answer: Any, where: str) -> dict[str, Any]:
    if not isinstance(answer, Mapping) or answer.get("action") not in ACTIONS:
        raise ValueError(f"the answer to {where} must be a dict whose `action` is one of {list(ACTIONS)}")
    if answer["action"] != "accept":
        return {"action": answer["action"]}
    content = answer.get("content")
    if request["mode"] == "url":
        return {"action": "accept"}
    if not isinstance(content, Mapping):
        raise ValueError(f"accepting {where} needs `content`: a dict matching its requested_schema")
    if (shape := _shape_problem(content)) is not None:
        raise ValueError(f"the content for {where} cannot be sent over MCP: {shape}")
    problems = schema_problems(request["requested_schema"], dict(content))
    if problems:
        raise ValueError(f"the content for {where} does not match its requested_schema: {problems}")
    return {"action": "accept", "content": dict(content)}


CARRIED = "each field's value must be text, a number, a boolean, null or a list of texts"


def _shape_problem(content: Mapping[Any, Any]) -> str | None:
    """What in `content` an MCP elicitation answer (`ElicitResult.content`) cannot hold: a key
    that is not text, or a value other than the flat ones MCP allows. How the values encode
    (a lone surrogate, NaN, their size) is checked where every value sent to a server is."""
    for key, value in content.items():
        if not isinstance(key, str):
            return f"its keys must be the schema's field names, {_odd(key)}"
        flat = value is None or isinstance(value, str | int | float | bool)
        if not flat and not (isinstance(value, list | tuple) and all(isinstance(item, str) for item in value)):
            return f"field {reprlib.repr(key)} holds {_kind(value)}: {CARRIED}"
    return None


def _odd(key: object) -> str:
    return f"which are text, not {_described(key)}"


def _kind(value: object) -> str:
    if isinstance(value, list | tuple):
        other = next(item for item in value if not isinstance(item, str))
        return f"a list with {_described(other)} in it"
    return _described(value)


def _described(value: object) -> str:
    return f"{reprlib.repr(value)} ({type(value).__name__})"


ELICITATION = Question(PAYLOAD_TYPE, "user input", check_answers)
"""The elicitation pause: `ELICITATION.resume(interrupt, answers)` is `create_elicitation_resume`."""


def answers_schema(requests: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The JSON Schema clients see as the interrupt's `response_schema`."""
    return {
        "type": "object",
        "properties": {
            key: {
                "type": "object",
                "properties": {
                    "action": {"enum": list(ACTIONS)},
                    **({"content": request["requested_schema"]} if request["mode"] == "form" else {}),
                },
                "required": ["action"],
            }
            for key, request in requests.items()
        },
        "required": sorted(requests),
        "additionalProperties": False,
    }


def create_elicitation_resume(interrupt: InterruptLike, answers: Mapping[str, Mapping[str, Any]]) -> dict[str, Answers]:
    """`{interrupt.id: answers}` for one paused call, checked now so mistakes surface here.

    `answers` maps each question key to `{"action": "accept", "content": {...}}`,
    `{"action": "decline"}` or `{"action": "cancel"}`. Merge several with `|` to resume
    several paused calls (or an approval too) in one `Command(resume=...)`.
    """
    return ELICITATION.resume(interrupt, answers)
