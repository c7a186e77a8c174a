"""Answering the demo's pauses at the terminal: approval questions and elicitation forms.
Resume values use the shapes the approval and elicitation plugins document."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from typing import Any

from mcpbridge_cli.terminal import ask as ask_terminal

Ask = Callable[[str], Awaitable[str | None]]
"""`await ask(prompt)`: the line typed, None at the end of input."""
DEFAULTS = {"date": "2026-12-24"}


async def answer(value: Any, *, yes: bool, ask: Ask = ask_terminal) -> Any:
    """The resume value for one interrupt payload."""
    kind = value.get("type") if isinstance(value, dict) else None
    if kind == "mcp_approval":
        return await _approval(value, yes=yes, ask=ask)
    if kind == "mcp_elicitation":
        return await _elicitation(value, yes=yes, ask=ask)
    raise RuntimeError(f"the demo does not know how to answer the pause {value!r}")


def interactive(yes: bool) -> bool:
    """Ask at the terminal unless told not to or nobody is there to answer."""
    return not yes and sys.stdin.isatty()


async def _approval(value: dict[str, Any], *, yes: bool, ask: Ask) -> dict[str, Any]:
    call = f"{value['server_name']}/{value['name']}({value['arguments']})"
    if not interactive(yes):
        print(f"  ? approve {call}  → yes (--yes)")
        return {"type": "approve"}
    reply = await ask(f"  ? approve {call} [y/N] ")
    if (reply or "").lower() in {"y", "yes"}:
        return {"type": "approve"}
    return {"type": "reject", "message": "The user declined at the terminal."}


async def _elicitation(value: dict[str, Any], *, yes: bool, ask: Ask) -> dict[str, Any]:
    answers: dict[str, Any] = {}
    for key, request in value["requests"].items():
        if request.get("mode") == "url":
            print(f"  ? {request['message']} → open {request['url']}")
            answers[key] = {"action": "accept"}
            continue
        content: dict[str, Any] = {}
        for field, schema in request["requested_schema"].get("properties", {}).items():
            default = DEFAULTS.get(field, "")
            if interactive(yes):
                typed = await ask(f"  ? {request['message']} {field} [{default}]: ") or default
            else:
                typed = default
                print(f"  ? {request['message']} → {field} = {typed} (--yes)")
            content[field] = _typed(typed, schema)
        answers[key] = {"action": "accept", "content": content}
    return answers


def _typed(text: str, schema: dict[str, Any]) -> Any:
    kind = schema.get("type")
    if kind == "integer":
        return int(text)
    if kind == "number":
        return float(text)
    if kind == "boolean":
        return text.lower() in {"y", "yes", "true", "1"}
    return text
