"""Entries as plain JSON: the result as the MCP wire format and when it was stored.

Never pickle: entries in a shared Redis may have been written by another process (or by
anyone who can reach Redis), so reading one must never run code. A hit is rebuilt by
validating the JSON into a fresh `CallToolResult`, so no caller can change another's copy.
"""

from __future__ import annotations

import json
import logging

from mcp.types import CallToolResult
from pydantic import ValidationError

logger = logging.getLogger(__name__)
FORMAT = 1


def encode(result: CallToolResult, stored_at: float) -> str:
    return json.dumps(
        {
            "format": FORMAT,
            "stored_at": stored_at,
            "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
        },
        separators=(",", ":"),
    )


def decode(text: str | bytes) -> tuple[CallToolResult, float] | None:
    """The result and its `stored_at`, or None for an entry this version cannot read (it is
    then treated as a miss and overwritten)."""
    try:
        entry = json.loads(text)
        if entry.get("format") != FORMAT:
            return None
        return CallToolResult.model_validate(entry["result"]), float(entry["stored_at"])
    except (ValueError, TypeError, KeyError, AttributeError, ValidationError) as exc:
        logger.debug("mcpbridge-cache: ignoring an unreadable entry: %s", exc)
        return None
