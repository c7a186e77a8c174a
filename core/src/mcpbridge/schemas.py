"""JSON Schema checks with one message format: `path: message; ...` (tool arguments,
edited arguments, elicitation answers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from jsonschema import Draft202012Validator


def schema_problems(schema: Mapping[str, Any] | Draft202012Validator, value: Any) -> str | None:
    """Where `value` breaks `schema` (a schema, or a validator compiled once), or None when it fits."""
    validator = schema if isinstance(schema, Draft202012Validator) else Draft202012Validator(dict(schema))
    described = sorted(
        (f"{'/'.join(str(p) for p in e.absolute_path)}: " if e.absolute_path else "") + e.message
        for e in validator.iter_errors(value)
    )
    return "; ".join(described) or None
