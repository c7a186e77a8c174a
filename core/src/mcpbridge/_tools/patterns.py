r"""Regular expressions from MCP servers (`pattern`, `patternProperties`, and the
`additionalProperties` / `unevaluatedProperties` checks that read `patternProperties`), run
on RE2 (google-re2): time linear in the text, whatever the pattern, so `^(a+)+$` costs
microseconds, not seconds. Linear, times the pattern's size: RE2 falls back from its fast
automaton to one that steps through every instruction for each byte, so one value may cost
at most `PATTERN_WORK_LIMIT` (its UTF-8 bytes times the pattern's program size, summed over
every search for the value); a value over it is invalid ("could not be checked ... shorten
the value"), decided before anything runs, the same on every machine.

A pattern RE2 cannot compile is not checked: one that is not a regular expression, one
using what RE2 leaves out to stay linear (backreferences `\1`, lookaround `(?=`, `(?<=`), or
one compiling to more than `PATTERN_MEMORY` bytes (`x{1000}{1000}`). The tool stays usable,
values are not checked against that pattern (the server still checks its own input), and
the bridge logs one warning per such pattern. ECMA-262's `\uXXXX` and `\u{X...}` escapes
(common in JSON Schema, unknown to RE2) are translated. Patterns are compiled once each
(cached), when a tool is built.

Why four keywords are written here: jsonschema searches with Python's `re` (`re.search` in its
keyword functions, with no way to give it another engine), and not only in `pattern` and
`patternProperties`: `additionalProperties` and `unevaluatedProperties` search the
`patternProperties` keys too, to learn which properties they cover. So all four are replaced;
the last two are jsonschema's own logic (`jsonschema._keywords`, `jsonschema._utils`, both
private) with every search going through `_search`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import re2  # type: ignore[import-untyped]
from jsonschema import ValidationError
from referencing.exceptions import Unresolvable

from mcpbridge._compat import resolved_reference

logger = logging.getLogger(__name__)

PATTERN_WORK_LIMIT = 5_000_000
r"""The most one value may cost its pattern searches: UTF-8 bytes searched times each
pattern's RE2 program size, summed. RE2's slow path measured ~5.5 ns per unit (a 600-
instruction pattern on 1 MB: 3.3 s), so a value costs the event loop at most ~30 ms; on
its fast path (most patterns, most text) far less. `^[a-z]+$` (size 4) allows ~1 MB,
a UUID pattern (70) ~70 KB, `^\p{L}+$` (1,199: every UTF-8 letter range) ~4 KB."""
PATTERN_MEMORY = 1 << 20
"""RE2's memory budget per pattern (compiled program and automaton cache): a pattern that
needs more does not compile; at this size compiling takes at most a few milliseconds."""
PATTERN_MAX_CHARS = 10_000
"""Longer patterns are not compiled (not checked) at all."""
SHOWN_CHARACTERS = 80
"""Characters of a server-controlled string (a `$ref`, a pattern, a tool name) shown in a
message or a log line."""


def shown(text: Any) -> str:
    """A server-controlled string, shortened and quoted for a message or a log line."""
    text = str(text)
    return repr(text if len(text) <= SHOWN_CHARACTERS else text[:SHOWN_CHARACTERS] + "…")


# -- bounded-cost regular expressions ---------------------------------------------------


class _TooCostly(Exception):
    """Searching would take the value over `PATTERN_WORK_LIMIT`."""


@dataclass(slots=True)
class _Budget:
    left: int = PATTERN_WORK_LIMIT
    late: list[str] = field(default_factory=list)


_budget: ContextVar[_Budget | None] = ContextVar("mcpbridge_pattern_budget", default=None)


_OPTIONS = re2.Options()
_OPTIONS.max_mem = PATTERN_MEMORY
_OPTIONS.log_errors = False  # RE2 would print to stderr; we warn once per pattern instead

_ESCAPE = re.compile(r"\\(?:u([0-9a-fA-F]{4})|u(\{[^}]*\})|.?)", re.DOTALL)
"""One escape: ECMA-262's `\\uXXXX` (group 1) or `\\u{X...}` (group 2), or any other."""


def _as_re2(pattern: str) -> str:
    r"""ECMA-262 `\uXXXX` / `\u{X...}` escapes as RE2's `\x{...}`; everything else as it is."""
    return _ESCAPE.sub(_translated, pattern)


def _translated(escape: re.Match[str]) -> str:
    four, braced = escape.groups()
    if four is not None:
        return f"\\x{{{four}}}"
    return escape[0] if braced is None else f"\\x{braced}"


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    """`pattern` compiled by RE2, or None when it cannot be (not checked; warned once)."""
    if len(pattern) > PATTERN_MAX_CHARS:
        reason = f"it is longer than {PATTERN_MAX_CHARS} characters"
    else:
        try:
            return re2.compile(_as_re2(pattern), _OPTIONS)
        except re2.error as exc:
            reason = exc.args[0].decode(errors="replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        except UnicodeEncodeError:
            reason = "it holds a lone surrogate"
    logger.warning(
        "mcpbridge: values are not checked against the JSON Schema pattern %s from a server: the "
        "linear-time engine (RE2, without backreferences or lookaround) cannot take it (%s); the "
        "server still checks its own input",
        shown(pattern),
        reason,
    )
    return None


def _search(pattern: Any, text: str) -> bool | None:
    """Whether `pattern` matches somewhere in `text`, None when it is not checked. Raises
    `_TooCostly` when the search would take this value over `PATTERN_WORK_LIMIT`."""
    compiled = _compiled(pattern) if isinstance(pattern, str) else None
    if compiled is None:
        return None
    data = text.encode("utf-8", "surrogatepass")
    budget = _budget.get() or _Budget()
    cost = max(len(data), 1) * compiled.programsize
    if cost > budget.left:
        budget.late.append(pattern)
        raise _TooCostly(pattern)
    budget.left -= cost
    return compiled.search(data) is not None


def late_message(pattern: str) -> str:
    """Why a value is invalid when searching it for `pattern` would cost too much."""
    return (
        f"could not be checked against pattern {shown(pattern)}: together with the value's other "
        "pattern checks it would cost too much (shorten the value)"
    )


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    try:
        matched = _search(pattern, instance)
    except _TooCostly:
        yield ValidationError(late_message(pattern))
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
            except _TooCostly:
                yield ValidationError(f"property {shown(key)} {late_message(pattern)}", path=[key])
                continue
            if matched:
                yield from validator.descend(value, subschema, path=key, schema_path=pattern)


def _matched_by_pattern(key: str, schema: Mapping[str, Any]) -> bool:
    patterns = schema.get("patternProperties")
    if not isinstance(patterns, Mapping):
        return False
    return any(_search(pattern, key) for pattern in patterns)


def _additional_properties(validator: Any, extra: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """jsonschema's `additionalProperties`, with the `patternProperties` searches bounded."""
    if not validator.is_type(instance, "object"):
        return
    properties = schema.get("properties", {})
    extras = []
    for key in instance:
        try:
            if key not in properties and not _matched_by_pattern(key, schema):
                extras.append(key)
        except _TooCostly as late:
            yield ValidationError(f"property {shown(key)} {late_message(late.args[0])}", path=[key])
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        named = ", ".join(shown(key) for key in sorted(extras, key=str))
        yield ValidationError(f"Additional properties are not allowed ({named} unexpected)")


def _evaluated_keys(validator: Any, instance: Mapping[str, Any], schema: Any) -> set[str]:
    """The keys of `instance` that `schema` evaluates (for `unevaluatedProperties`):
    jsonschema's private `find_evaluated_property_keys_by_schema`, with bounded pattern
    searches and unresolvable references counting as `{}`."""
    if not isinstance(schema, Mapping):
        return set(instance) if schema is True else set()
    keys: set[str] = set()
    for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):  # the last: 2019-09's
        ref = schema.get(keyword)
        if ref is None:
            continue
        try:
            target, inner = resolved_reference(validator, ref)
        except (Unresolvable, TypeError, ValueError):
            continue
        keys |= _evaluated_keys(inner, instance, target)
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
    except _TooCostly as late:
        yield ValidationError(f"properties {late_message(late.args[0])}")
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
    """Compile the schema's patterns now (each bounded in cost; one warning for each that
    cannot be checked), so calls find them ready."""
    patterns = schema.get("patternProperties")
    for pattern in [schema.get("pattern"), *(patterns if isinstance(patterns, Mapping) else ())]:
        if isinstance(pattern, str):
            _compiled(pattern)


@contextmanager
def pattern_budget() -> Iterator[list[str]]:
    """Share one `PATTERN_WORK_LIMIT` between every search while checking one value; yields
    the patterns that would have gone over it."""
    token = _budget.set(budget := _Budget())
    try:
        yield budget.late
    finally:
        _budget.reset(token)


PATTERN_KEYWORDS = {
    "pattern": _pattern,
    "patternProperties": _pattern_properties,
    "additionalProperties": _additional_properties,
    "unevaluatedProperties": _unevaluated_properties,
}
"""The JSON Schema keywords that run regular expressions, cost-bounded."""
