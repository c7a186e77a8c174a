"""Regular expressions from MCP servers (`pattern`, `patternProperties`, and the
`additionalProperties` / `unevaluatedProperties` checks that read `patternProperties`), run
on the `regex` engine with a time limit: all pattern searches for one value share
`PATTERN_BUDGET_MS`. A pattern whose search does not finish within the budget, or that is too
complex to compile safely (`PATTERN_WEIGHT_LIMIT`), makes the value invalid ("could not be
checked within N ms"), so a catastrophic pattern costs the event loop milliseconds, never
seconds. Patterns are compiled once each (cached). A pattern that is not a valid regular
expression is ignored.
"""

from __future__ import annotations

import math
import re
import re._parser as sre_parse  # type: ignore[import-not-found]  # Python's own, stable since 3.11
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import regex
from jsonschema import ValidationError
from referencing.exceptions import Unresolvable

PATTERN_BUDGET_MS = 5.0
"""Time all pattern searches while checking one value may take, together."""
_SHOWN = 80
"""Characters of a server-controlled string (a `$ref`, a pattern) shown in a message."""


def shown(text: Any) -> str:
    """A server-controlled string, shortened and quoted for a message or a log line."""
    text = str(text)
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "…")


# -- time-limited regular expressions ------------------------------------------------


class _PatternTimeout(Exception):
    """A pattern could not be compiled and searched within the budget."""


@dataclass(slots=True)
class _Budget:
    deadline: float
    late: list[str] = field(default_factory=list)


_budget: ContextVar[_Budget | None] = ContextVar("mcpbridge_pattern_budget", default=None)

PATTERN_WEIGHT_LIMIT = 1000
"""The most a pattern may weigh (its length, with each counted repeat multiplied out). The
`regex` engine unrolls counted repeats when it compiles, holding the GIL: `a{100000}` takes
~90 ms, `((a{100}){100}){100}` most of a second and `(((a{100}){100}){100}){100}` exhausts
memory. At 1,000 a compile takes about 1-2 ms."""
_TOO_COMPLEX = object()


def _weight(pattern: str) -> float:
    """An upper estimate of what compiling `pattern` unrolls (cheap: Python's own parser)."""
    if len(pattern) > PATTERN_WEIGHT_LIMIT:
        return math.inf
    try:
        return float(_tree_weight(sre_parse.parse(pattern)))
    except RecursionError:
        return math.inf
    except Exception:  # syntax only the `regex` engine knows (e.g. `\p{L}`): multiply every count
        weight = float(len(pattern))
        for count in re.findall(r"\{(\d+)", pattern):
            weight *= max(1, int(count))
        return weight


def _tree_weight(node: Any) -> float:
    if isinstance(node, sre_parse.SubPattern):
        return sum(_tree_weight(item) for item in node.data)
    if isinstance(node, tuple) and len(node) == 2 and node[0] is sre_parse.IN:  # a character class is one node
        return 1
    if isinstance(node, tuple) and len(node) == 2 and isinstance(node[1], tuple) and node[0] in _REPEATS:
        low, high, inner = node[1]
        once = _tree_weight(inner)
        return float(max(1, low) * once + (once if high != low else 0))
    if isinstance(node, (tuple, list)):
        return 1 + sum(_tree_weight(item) for item in node if isinstance(item, (tuple, list, sre_parse.SubPattern)))
    return 0


_REPEATS = {sre_parse.MAX_REPEAT, sre_parse.MIN_REPEAT, sre_parse.POSSESSIVE_REPEAT}


@lru_cache(maxsize=1024)
def _compiled(pattern: str) -> regex.Pattern[str] | object | None:
    """`pattern` compiled, None when it is not a valid regular expression (ignored), or
    `_TOO_COMPLEX` when compiling it could stall the process."""
    if _weight(pattern) > PATTERN_WEIGHT_LIMIT:
        return _TOO_COMPLEX
    try:
        return regex.compile(pattern)
    except Exception:
        return None


def _search(pattern: Any, text: str) -> bool | None:
    """Whether `pattern` matches somewhere in `text`, None when it is not a valid regular
    expression (ignored). Raises `_PatternTimeout` when the budget runs out or the pattern
    is too complex to compile safely."""
    if not isinstance(pattern, str):
        return None
    budget = _budget.get()
    deadline = budget.deadline if budget is not None else time.perf_counter() + PATTERN_BUDGET_MS / 1000
    compiled = _compiled(pattern)
    if compiled is None:
        return None
    try:
        remaining = deadline - time.perf_counter()
        if compiled is _TOO_COMPLEX or remaining <= 0:
            raise TimeoutError
        assert isinstance(compiled, regex.Pattern)
        return compiled.search(text, timeout=remaining) is not None
    except (TimeoutError, ValueError):
        if budget is not None:
            budget.late.append(pattern)
        raise _PatternTimeout(pattern) from None


def _late(pattern: str) -> str:
    return f"could not be checked against pattern {shown(pattern)} within {PATTERN_BUDGET_MS:g} ms"


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    try:
        matched = _search(pattern, instance)
    except _PatternTimeout:
        yield ValidationError(_late(pattern))
        return
    if matched is False:
        yield ValidationError(f"{shown(instance)} does not match {shown(pattern)}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, Mapping):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            try:
                matched = _search(pattern, key)
            except _PatternTimeout:
                yield ValidationError(f"property {shown(key)} {_late(pattern)}", path=[key])
                continue
            if matched:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _matched_by_pattern(key: str, schema: Mapping[str, Any]) -> bool:
    patterns = schema.get("patternProperties")
    if not isinstance(patterns, Mapping):
        return False
    return any(_search(pattern, key) for pattern in patterns)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    # jsonschema's own version, with the patternProperties search time-limited.
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    extras = []
    for key in instance:
        if key in properties:
            continue
        try:
            if _matched_by_pattern(key, schema):
                continue
        except _PatternTimeout as late:
            yield ValidationError(f"property {shown(key)} {_late(late.args[0])}", path=[key])
            continue
        extras.append(key)
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        named = ", ".join(shown(key) for key in sorted(extras, key=str))
        yield ValidationError(f"Additional properties are not allowed ({named} unexpected)")


def _evaluated_keys(validator: Any, instance: Mapping[str, Any], schema: Any) -> set[str]:
    """jsonschema's `find_evaluated_property_keys_by_schema`, with time-limited patterns and
    unresolvable references counting as `{}`."""
    if not isinstance(schema, Mapping):
        return set(instance) if schema is True else set()
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef"):
        ref = schema.get(keyword)
        if ref is None:
            continue
        try:
            resolved = validator._resolver.lookup(ref)
        except (Unresolvable, TypeError, ValueError):
            continue
        inner = validator.evolve(schema=resolved.contents, _resolver=resolved.resolver)
        keys |= _evaluated_keys(inner, instance, resolved.contents)
    properties = schema.get("properties")
    if isinstance(properties, Mapping):
        keys |= properties.keys() & instance.keys()
    for keyword in ("additionalProperties", "unevaluatedProperties"):
        subschema = schema.get(keyword)
        if subschema is not None:
            keys |= {key for key, value in instance.items() if _no_errors(validator.descend(value, subschema))}
    if "patternProperties" in schema:
        keys |= {key for key in instance if _matched_by_pattern(key, schema)}
    for key, subschema in (schema.get("dependentSchemas") or {}).items():
        if key in instance:
            keys |= _evaluated_keys(validator, instance, subschema)
    for keyword in ("allOf", "oneOf", "anyOf"):
        for subschema in schema.get(keyword, []):
            if _no_errors(validator.descend(instance, subschema)):
                keys |= _evaluated_keys(validator, instance, subschema)
    if "if" in schema:
        if validator.evolve(schema=schema["if"]).is_valid(instance):
            keys |= _evaluated_keys(validator, instance, schema["if"])
            if "then" in schema:
                keys |= _evaluated_keys(validator, instance, schema["then"])
        elif "else" in schema:
            keys |= _evaluated_keys(validator, instance, schema["else"])
    return keys


def _no_errors(errors: Iterator[ValidationError]) -> bool:
    return next(errors, None) is None


def _unevaluated_properties(validator: Any, rest: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object"):
        return
    try:
        evaluated = _evaluated_keys(validator, instance, schema)
    except _PatternTimeout as late:
        yield ValidationError(f"properties {_late(late.args[0])}")
        return
    unevaluated = [
        key
        for key in instance
        if key not in evaluated and not _no_errors(validator.descend(instance[key], rest, path=key, schema_path=key))
    ]
    if unevaluated:
        named = ", ".join(shown(key) for key in sorted(unevaluated, key=str))
        if rest is False:
            yield ValidationError(f"Unevaluated properties are not allowed ({named} unexpected)")
        else:
            yield ValidationError(f"Unevaluated properties are not valid under the given schema ({named})")


def precompile(schema: Mapping[str, Any]) -> None:
    """Compile the schema's patterns now (each bounded in cost), so calls find them ready."""
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        _compiled(pattern)
    patterns = schema.get("patternProperties")
    if isinstance(patterns, Mapping):
        for key in patterns:
            if isinstance(key, str):
                _compiled(key)


@contextmanager
def pattern_budget() -> Iterator[list[str]]:
    """Share one `PATTERN_BUDGET_MS` between every search while checking one value; yields
    the patterns that ran out of time."""
    budget = _Budget(time.perf_counter() + PATTERN_BUDGET_MS / 1000)
    token = _budget.set(budget)
    try:
        yield budget.late
    finally:
        _budget.reset(token)


def late_message(pattern: str) -> str:
    return _late(pattern)


PATTERN_KEYWORDS = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
}
"""The JSON Schema keywords that run regular expressions, time-limited."""
