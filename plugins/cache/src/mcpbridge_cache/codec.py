"""Entries as plain JSON: the result as the MCP wire format and when it was stored.

Never pickle: entries in a shared Redis may have been written by another process (or by
anyone who can reach Redis), so reading one must never run code. A hit is rebuilt by
validating the JSON into a fresh `CallToolResult`, so no caller can change another's copy.
Reading is total: any bytes either decode into an entry the cache could have written or
raise `Unreadable` (a miss), never anything else.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from mcp.types import CallToolResult
from pydantic import BaseModel, FiniteFloat, ValidationError

FORMAT = 1


class Unreadable(ValueError):
    """An entry this version cannot read (corrupted, foreign, or of another format): a miss.
    The message names what is wrong, never what the entry holds (another caller's result)."""


class _Entry(BaseModel):
    format: Literal[1]
    stored_at: FiniteFloat
    result: CallToolResult


def encode(result: CallToolResult, stored_at: float) -> str:
    """ASCII JSON: its length is its size in bytes."""
    return json.dumps(
        {
            "format": FORMAT,
            "stored_at": stored_at,
            "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
        },
        separators=(",", ":"),
    )


def smallest_size(result: CallToolResult) -> int:
    """A lower bound of `encode(result)`'s length, found without encoding: its texts and
    base64 data as they are (each character is at least one byte of ASCII JSON). Encoding a
    result only to find it over `max_entry_bytes` held the event loop ~0.8 s for 16 M
    characters."""
    return sum(len(_payload(getattr(block, "resource", block))) for block in result.content)


def _payload(block: Any) -> str:
    found = getattr(block, "text", None) or getattr(block, "data", None) or getattr(block, "blob", None)
    return found if isinstance(found, str) else ""


def decode(text: str | bytes) -> tuple[CallToolResult, float]:
    """The result and its `stored_at`; raises `Unreadable`."""
    try:
        entry = _Entry.model_validate_json(text)  # one pass, with a recursion limit and strict UTF-8
    except ValidationError as invalid:
        [first, *_] = invalid.errors(include_url=False, include_context=False, include_input=False)
        where = ".".join(str(part) for part in first["loc"][:4]) or "the entry"
        raise Unreadable(f"{first['type']} at {where}") from None
    if entry.result.is_error:
        raise Unreadable("an error result, which the cache never stores")
    return entry.result, entry.stored_at
