"""JSON Schema checks with one message format: `path: message; ...` (tool arguments,
edited arguments, elicitation answers).

Every schema checked here comes from an MCP server, so it is untrusted input:

- It is never resolved outside itself. Validators are built with a `referencing.Registry`
  whose `retrieve` refuses every URI: a `$ref` to `http://...`, `file://...` or any other
  document is never fetched (jsonschema's default would `urlopen` it, blocking, with no
  timeout). A `$ref` that cannot be resolved inside the schema (or from the bundled JSON
  Schema meta-schemas) is dropped: that subschema counts as `{}` and the rest of the schema
  still applies. `server_schema_validator` logs one warning per tool naming it.
- Regular expressions (`pattern`, `patternProperties`, and the `additionalProperties` /
  `unevaluatedProperties` checks that read `patternProperties`) run on the `regex` engine
  with a time limit: all pattern searches for one value share `PATTERN_BUDGET_MS`. A pattern
  whose search does not finish within the budget, or too complex to compile safely
  (`PATTERN_WEIGHT_LIMIT`), makes the value invalid ("could not be checked within N ms"), so
  a catastrophic pattern costs the event loop milliseconds, never seconds. Patterns are
  compiled once each (cached). A pattern that is not a valid regular expression is ignored,
  like an unresolvable `$ref`.
"""

from __future__ import annotations

import json
import logging
import math
import re
import re._parser as sre_parse  # type: ignore[import-not-found]  # Python's own, stable since 3.11
import time
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import regex
from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema_specifications import REGISTRY as SPECIFICATIONS  # type: ignore[import-untyped]
from pydantic_core import to_jsonable_python
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

logger = logging.getLogger(__name__)

PATTERN_BUDGET_MS = 5.0
"""Time all pattern searches while checking one value may take, together."""
_SHOWN = 80
"""Characters of a server-controlled string (a `$ref`, a pattern) shown in a message."""


def _refuse(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


_NO_RETRIEVAL: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]
_WALK_REGISTRY: Registry[Any] = SPECIFICATIONS.combine(_NO_RETRIEVAL)


def _shown(text: Any) -> str:
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
    return f"could not be checked against pattern {_shown(pattern)} within {PATTERN_BUDGET_MS:g} ms"


def _pattern(validator: Any, pattern: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "string"):
        return
    try:
        matched = _search(pattern, instance)
    except _PatternTimeout:
        yield ValidationError(_late(pattern))
        return
    if matched is False:
        yield ValidationError(f"{_shown(instance)} does not match {_shown(pattern)}")


def _pattern_properties(validator: Any, patterns: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    if not validator.is_type(instance, "object") or not isinstance(patterns, Mapping):
        return
    for pattern, subschema in patterns.items():
        for key, value in instance.items():
            try:
                matched = _search(pattern, key)
            except _PatternTimeout:
                yield ValidationError(f"property {_shown(key)} {_late(pattern)}", path=[key])
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
            yield ValidationError(f"property {_shown(key)} {_late(late.args[0])}", path=[key])
            continue
        extras.append(key)
    if validator.is_type(extra, "object"):
        for key in extras:
            yield from validator.descend(instance[key], extra, path=key)
    elif not extra and extras:
        shown = ", ".join(_shown(key) for key in sorted(extras, key=str))
        yield ValidationError(f"Additional properties are not allowed ({shown} unexpected)")


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
        shown = ", ".join(_shown(key) for key in sorted(unevaluated, key=str))
        if rest is False:
            yield ValidationError(f"Unevaluated properties are not allowed ({shown} unexpected)")
        else:
            yield ValidationError(f"Unevaluated properties are not valid under the given schema ({shown})")


# -- references that stay inside the schema ------------------------------------------

_BASE = Draft202012Validator.VALIDATORS


def _tolerant(keyword: str) -> Any:
    """`$ref` / `$dynamicRef` that count as `{}` when they cannot be resolved (the
    references found when the validator is built are already dropped; this covers the rest)."""
    checked = _BASE[keyword]

    def check(validator: Any, ref: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        try:
            errors = list(checked(validator, ref, instance, schema))
        except (Unresolvable, TypeError, ValueError):
            return
        yield from errors

    return check


_ServerSchemaValidator: Any = validators.extend(
    Draft202012Validator,
    {
        "$ref": _tolerant("$ref"),
        "$dynamicRef": _tolerant("$dynamicRef"),
        "pattern": _pattern,
        "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties,
        "unevaluatedProperties": _unevaluated_properties,
    },
)


def _precompile(schema: Mapping[str, Any]) -> None:
    """Compile the schema's patterns now (each bounded in cost), so calls find them ready."""
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        _compiled(pattern)
    patterns = schema.get("patternProperties")
    if isinstance(patterns, Mapping):
        for key in patterns:
            if isinstance(key, str):
                _compiled(key)


def _unresolvable_refs(schema: Mapping[str, Any]) -> tuple[list[Any], set[tuple[int, str]]]:
    """The references in `schema` that cannot be resolved without fetching anything, and
    where they are (`(id(subschema), keyword)`); walks every subschema and every local target
    (and starts compiling their patterns)."""
    nodes: set[int] = set()
    pending: list[Any] = [schema]
    while pending:
        node = pending.pop()
        nodes.add(id(node))
        if isinstance(node, Mapping):
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    refs: list[Any] = []
    where: set[tuple[int, str]] = set()
    root = DRAFT202012.create_resource(schema)
    stack = [(root, _WALK_REGISTRY.resolver_with_root(root))]
    seen: set[int] = set()
    while stack:
        resource, resolver = stack.pop()
        contents = resource.contents
        if id(contents) in seen:
            continue
        seen.add(id(contents))
        if isinstance(contents, Mapping):
            _precompile(contents)
            for keyword in ("$ref", "$dynamicRef"):
                if keyword not in contents:
                    continue
                ref = contents[keyword]
                try:
                    if not isinstance(ref, str):
                        raise TypeError(ref)
                    resolved = resolver.lookup(ref)
                except Exception:
                    refs.append(ref)
                    where.add((id(contents), keyword))
                    continue
                if id(resolved.contents) in nodes:  # a local target (meta-schemas are bundled, trusted)
                    stack.append((DRAFT202012.create_resource(resolved.contents), resolved.resolver))
        try:
            subresources = list(resource.subresources())
        except Exception:
            continue
        stack.extend((sub, resolver.in_subresource(sub)) for sub in subresources)
    return refs, where


def _without(node: Any, where: set[tuple[int, str]]) -> Any:
    if isinstance(node, Mapping):
        return {key: _without(value, where) for key, value in node.items() if (id(node), key) not in where}
    if isinstance(node, list):
        return [_without(item, where) for item in node]
    return node


def server_schema_validator(
    schema: Mapping[str, Any], *, server: str | None = None, tool: str | None = None
) -> Draft202012Validator:
    """A validator for a schema an MCP server sent: nothing outside the schema is ever
    fetched, unresolvable references count as `{}`, patterns run time-limited.

    With `server` and `tool`, an unresolvable reference is logged once (here, when the tool
    is built), naming both and the reference (shortened; it is never fetched).
    """
    refs, where = _unresolvable_refs(schema)
    if refs:
        if server is not None or tool is not None:
            shown = ", ".join(_shown(ref) for ref in refs[:3]) + (f" and {len(refs) - 3} more" if len(refs) > 3 else "")
            logger.warning(
                "mcpbridge: the input schema of tool %r on server %r refers to %s, which cannot be "
                "resolved inside the schema and is never fetched: arguments are validated without "
                "that part",
                tool,
                server,
                shown,
            )
        schema = _without(schema, where)
    validator: Draft202012Validator = _ServerSchemaValidator(dict(schema), registry=_NO_RETRIEVAL)
    return validator


def schema_problems(schema: Mapping[str, Any] | Draft202012Validator, value: Any) -> str | None:
    """Where `value` breaks `schema` (a schema, or a validator compiled once by
    `server_schema_validator`), or None when it fits."""
    validator = server_schema_validator(schema) if isinstance(schema, Mapping) else schema
    budget = _Budget(time.perf_counter() + PATTERN_BUDGET_MS / 1000)
    token = _budget.set(budget)
    try:
        described = {
            (f"{'/'.join(str(p) for p in e.absolute_path)}: " if e.absolute_path else "") + e.message
            for e in validator.iter_errors(value)
        }
    finally:
        _budget.reset(token)
    if budget.late and not any("could not be checked" in line for line in described):
        described.add(f"a value {_late(budget.late[0])}")
    return "; ".join(sorted(described)) or None


# -- what can travel as UTF-8 JSON -----------------------------------------------------


_WIRE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, default=to_jsonable_python)
"""Built once (`json.dumps` with options builds an encoder per call); `default` lets through
what pydantic, which serializes the request, can send (datetimes, UUIDs, models)."""


def wire_problems(arguments: Mapping[str, Any]) -> str | None:
    """Why `arguments` cannot be sent as UTF-8 JSON (a lone surrogate, NaN or an infinity,
    an integer too long to print, a cycle, an object JSON cannot carry), or None when they
    can. A value that reaches the transport and fails there breaks the session for every
    caller sharing it, so this runs before the request is built."""
    try:
        _WIRE.encode(arguments).encode("utf-8")
    except (ValueError, TypeError, RecursionError) as exc:
        return f"{_first_unsendable(arguments)}cannot be sent as UTF-8 JSON ({type(exc).__name__})"
    return None


def _first_unsendable(value: Any, path: str = "", depth: int = 0) -> str:
    """`path: ` of the first value that cannot be sent (best effort, only on the error path)."""
    here = f"{path}: " if path else ""
    if depth > 100:
        return here
    if isinstance(value, str):
        return "" if _encodes(value) else here
    if isinstance(value, float):
        return "" if math.isfinite(value) else here
    if isinstance(value, Mapping):
        for key, item in value.items():
            name = str(key) if _encodes(str(key)) else ascii(key)
            where = f"{path}/{name}" if path else name
            if name != str(key):
                return f"{where}: "
            found = _first_unsendable(item, where, depth + 1)
            if found:
                return found
        return ""
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _first_unsendable(item, f"{path}/{index}" if path else str(index), depth + 1)
            if found:
                return found
        return ""
    if isinstance(value, int):  # bool and int; too many digits cannot be printed
        try:
            str(value)
        except ValueError:
            return here
    return ""


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
