"""Limits on untrusted input that config, the wire checks and the schema checks share:
how deep a value may nest, and how much a server's input schema may cost."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

DEFAULT_MAX_SCHEMA_DEPTH = 64
DEFAULT_MAX_SCHEMA_REFS = 1000
DEFAULT_MAX_SCHEMA_BYTES = 128 * 1024
DEFAULT_MAX_ARGUMENT_DEPTH = 64
SENDABLE_DEPTH = 200
"""The deepest any value a call sends may nest: the SDK's serializer (pydantic) refuses
values nested past ~254 levels, in the caller's task or the transport's, and so does
LangGraph's checkpointer (ormsgpack); this leaves room for the request's own envelope."""


@dataclass(frozen=True, slots=True)
class SchemaBounds:
    """The most an input schema may cost, with its references inlined (settings
    `max_schema_depth`, `max_schema_refs`, `max_schema_bytes`)."""

    max_depth: int = DEFAULT_MAX_SCHEMA_DEPTH
    """Nesting of objects and arrays."""
    max_refs: int = DEFAULT_MAX_SCHEMA_REFS
    """References inlined."""
    max_bytes: int = DEFAULT_MAX_SCHEMA_BYTES
    """Size as compact JSON (strings counted by their length)."""


def nesting_problem(value: Any, max_depth: int, bound: str = "max_argument_depth") -> str | None:
    """Why `value` nests deeper than `max_depth` (the setting or limit `bound` names): too
    deep to be checked (the validator recurses per level) or sent; None when it does not.
    Level by level, without recursion: ~9 ms for 20,000 small objects, well under a microsecond
    for the usual few arguments."""
    level = [value]
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            return f"the value nests more than {max_depth} levels deep, over {bound}={max_depth}"
        level = [
            item
            for node in level
            for item in (node.values() if type(node) is dict else node)
            if type(item) in CONTAINERS
        ]
    return None


CONTAINERS = frozenset({dict, list, tuple})
