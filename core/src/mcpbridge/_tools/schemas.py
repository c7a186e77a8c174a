"""JSON Schema checks with one message format: `path: message; ...` (tool arguments,
edited arguments, elicitation answers).

Every schema checked here comes from an MCP server, so it is untrusted input. It is never
resolved outside itself: validators get the registry of the bundled JSON Schema
meta-schemas, which (like every `referencing.Registry` by default) retrieves nothing, so a
`$ref` to `http://...` or `file://...` is never fetched (jsonschema's own default would
`urlopen` it, blocking, with no timeout). A `$ref` that cannot be resolved inside the schema (or from the bundled JSON
Schema meta-schemas) is dropped: that subschema counts as `{}` and the rest of the schema
still applies; `server_schema_validator` logs one warning per tool naming it. Regular
expressions run cost-bounded (see `mcpbridge._tools.patterns`). A schema is checked by the
rules of the JSON Schema draft its `$schema` declares (`mcpbridge._tools.dialects`).

Checking a value never holds the event loop for long: values nested deeper than
`max_argument_depth` are refused before the validator (which recurses) sees them, and a
check that runs past `VALIDATION_BUDGET_MS` on the loop is finished in a worker thread
(`ToolSchema.problems`), within `VALIDATION_LIMIT_S`; `uniqueItems` costs linear time.

Tool arguments are first checked by a compiled validator (jsonschema-rs, about 1 µs for a
typical tool): arguments it finds valid go on at once, and only those it refuses, or those
of a schema it cannot take (one with patterns, which only the cost-bounded engine runs, one
with a `$schema` below its root, or a schema that is not valid JSON Schema), are checked,
and described, by jsonschema.
"""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from functools import cache
from typing import Any, Literal

import jsonschema_rs
from jsonschema import ValidationError, validators
from jsonschema.protocols import Validator
from jsonschema_specifications import REGISTRY as SPECIFICATIONS  # type: ignore[import-untyped]
from referencing.exceptions import Unresolvable

from mcpbridge._base.config import DEFAULT_MAX_ARGUMENT_DEPTH, SchemaBounds
from mcpbridge._base.errors import error_text
from mcpbridge._session.sendable import CONTAINERS, nesting_problem
from mcpbridge._tools.dialects import Dialect, dialect_of, for_compiled, one_draft
from mcpbridge._tools.patterns import PATTERN_KEYWORDS, late_message, pattern_budget, precompile, shown
from mcpbridge._tools.schema_cost import SchemaOverBound, measure

logger = logging.getLogger(__name__)


# -- references that stay inside the schema ------------------------------------------

_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")


def _tolerant(checked: Any) -> Any:
    """A reference keyword (`checked`) that counts as `{}` when it cannot be resolved (the
    references found when the validator is built are already dropped; this covers the rest)."""

    def check(validator: Any, ref: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
        try:
            errors = list(checked(validator, ref, instance, schema))
        except (Unresolvable, TypeError, ValueError):
            return
        yield from errors

    return check


VALIDATION_BUDGET_MS = 10.0
"""How long checking one value may run on the event loop."""
VALIDATION_LIMIT_S = 2.0
"""How long checking one tool call's arguments may run in all (past the budget, in a worker
thread); a check that takes longer makes them invalid."""


class _OutOfTime(Exception):
    """The check ran past its deadline."""


_deadline: ContextVar[float] = ContextVar("mcpbridge_validation_deadline", default=math.inf)


def _unique_items(validator: Any, unique: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """jsonschema's `uniqueItems` compares unhashable items pairwise (10,000 objects: minutes)."""
    if unique and validator.is_type(instance, "array") and len({_hashable(item) for item in instance}) < len(instance):
        yield ValidationError(f"{shown(instance)} has non-unique elements")


def _hashable(value: Any) -> Any:
    """`value` as something hashable, equal where JSON Schema calls them equal (1 == 1.0, true != 1)."""
    if isinstance(value, bool) or value is None:
        return (type(value), value)
    if isinstance(value, Mapping):
        return frozenset((key, _hashable(item)) for key, item in value.items())
    if isinstance(value, list | tuple):
        return tuple(_hashable(item) for item in value)
    try:
        hash(value)
    except TypeError:  # not a JSON value (a set, say): its repr stands for it
        return (type(value), repr(value))
    return value


def _timed(kind: Any) -> Any:
    """`kind` whose every step into a subschema checks the deadline: validation work happens
    between such steps, so no check can run much past it."""
    descend = kind.descend

    def timed_descend(self: Any, instance: Any, schema: Any, *args: Any, **kwargs: Any) -> Any:
        if time.perf_counter() > _deadline.get():
            raise _OutOfTime
        return descend(self, instance, schema, *args, **kwargs)

    kind.descend = timed_descend
    return kind


_PATTERNED: set[type[Validator]] = set()
"""The validator classes for schemas with regular expressions: only they pay for the pattern budget."""


@cache
def _kind(dialect: Dialect, patterned: bool) -> type[Validator]:
    """`dialect`'s jsonschema validator class, with references that stay inside the schema,
    a linear `uniqueItems`, the deadline, and (`patterned`) cost-bounded patterns."""
    base = dialect.checker
    keywords = {keyword: _tolerant(base.VALIDATORS[keyword]) for keyword in _REFERENCES if keyword in base.VALIDATORS}
    keywords["uniqueItems"] = _unique_items
    if patterned:
        keywords.update({keyword: check for keyword, check in PATTERN_KEYWORDS.items() if keyword in base.VALIDATORS})
    kind: type[Validator] = one_draft(_timed(validators.extend(base, keywords)))
    if patterned:
        _PATTERNED.add(kind)
    return kind


def _unresolvable_refs(schema: Mapping[str, Any], dialect: Dialect) -> tuple[list[Any], set[tuple[int, str]]]:
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
    specification = dialect.specification
    root = specification.create_resource(schema)
    stack = [(root, SPECIFICATIONS.resolver_with_root(root))]
    seen: set[int] = set()
    while stack:
        resource, resolver = stack.pop()
        contents = resource.contents
        if id(contents) in seen:
            continue
        seen.add(id(contents))
        if isinstance(contents, Mapping):
            precompile(contents)
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
                    stack.append((specification.create_resource(resolved.contents), resolved.resolver))
        try:
            stack.extend([(sub, resolver.in_subresource(sub)) for sub in resource.subresources()])
        except Exception:  # a malformed subschema (`"items": 5`) has nothing to resolve
            continue
    return refs, where


def _without(node: Any, where: set[tuple[int, str]]) -> Any:
    if isinstance(node, Mapping):
        return {key: _without(value, where) for key, value in node.items() if (id(node), key) not in where}
    if isinstance(node, list):
        return [_without(item, where) for item in node]
    return node


def _resolvable(
    schema: Mapping[str, Any], dialect: Dialect, server: str | None, tool: str | None, kind: str = "input"
) -> Mapping[str, Any]:
    """`schema` without the references that cannot be resolved inside it (and its patterns
    compiled); with `server` or `tool`, they are logged once, naming both and the reference
    (shortened; it is never fetched)."""
    refs, where = _unresolvable_refs(schema, dialect)
    if not refs:
        return schema
    if server is not None or tool is not None:
        named = ", ".join(shown(ref) for ref in refs[:3]) + (f" and {len(refs) - 3} more" if len(refs) > 3 else "")
        logger.warning(
            "mcpbridge: the %s schema of tool %r on server %r refers to %s, which cannot be "
            "resolved inside the schema and is never fetched: %s are validated without that part",
            kind,
            tool,
            server,
            named,
            "arguments" if kind == "input" else "results",
        )
    resolvable: Mapping[str, Any] = _without(schema, where)
    return resolvable


def _compiled(schema: Mapping[str, Any], patterned: bool, dialect: Dialect) -> Validator:
    return _kind(dialect, patterned)(dict(schema), registry=SPECIFICATIONS)


def server_schema_validator(
    schema: Mapping[str, Any], *, server: str | None = None, tool: str | None = None
) -> Validator:
    """A validator for a schema an MCP server sent, by the rules of the draft it declares:
    nothing outside the schema is ever fetched, unresolvable references count as `{}` and an
    unknown `$schema` as 2020-12 (each logged once with `server` and `tool`), patterns run
    cost-bounded."""
    dialect = dialect_of(schema, server, tool)
    schema = _resolvable(schema, dialect, server, tool)
    return _compiled(schema, "pattern" in json.dumps(schema, default=str), dialect)  # over-inclusive, and cheap


class ToolSchema:
    """A tool's input schema (or, with `kind="output"`, its output schema): measured
    (`SchemaBounds`) and its references checked when the tool is listed, compiled on the
    tool's first call, shared by every call after."""

    __slots__ = ("_compiled", "_dialect", "_patterned", "_schema", "_validator", "defaults", "for_model")

    def __init__(
        self, schema: dict[str, Any], bounds: SchemaBounds, *, server: str, tool: str, kind: str = "input"
    ) -> None:
        """Raises `SchemaOverBound` when the schema costs more than `bounds`."""
        cost = measure(schema, bounds)
        self._dialect = dialect = dialect_of(schema, server, tool, kind)
        resolving = cost.references or cost.patterns
        self._schema = _resolvable(schema, dialect, server, tool, kind) if resolving else schema
        self._patterned = cost.patterns
        self._validator: Validator | None = None
        self._compiled: jsonschema_rs.Validator | Literal[False] | None = False if cost.inner_dialects else None
        """The fast validator (None: not built yet; False: this schema has none, as one with a
        `$schema` below its root, which jsonschema-rs may read as accepting anything)."""
        self.for_model: dict[str, Any] = (
            _without(schema, {(node, "$ref") for node in cost.unfollowed}) if cost.unfollowed else schema
        )
        """The schema LangChain is given (`args_schema`): without the `$ref`s it cannot inline,
        on which `convert_to_openai_tool`, so every `bind_tools`, would raise."""
        self.defaults = required_defaults(schema)
        """Required properties that have a `default`, filled in when a call leaves them out:
        servers (@playwright/mcp) mark such fields required and accept calls without them."""

    @property
    def validator(self) -> Validator:
        if self._validator is None:
            self._validator = _compiled(self._schema, self._patterned, self._dialect)
        return self._validator

    async def problems(self, arguments: Mapping[str, Any], max_depth: int) -> str | None:
        """Where `arguments` break the schema, or None. A check still running after
        `VALIDATION_BUDGET_MS` is done again in a worker thread, so the loop goes on."""
        if self._fits(arguments, max_depth):
            return None
        validator = self.validator
        try:
            return _problems(validator, arguments, max_depth, VALIDATION_BUDGET_MS / 1000)
        except _OutOfTime:
            late = (
                f"they could not be checked against the input schema within {VALIDATION_LIMIT_S:g} s "
                "(the server was not called)"
            )
            return await asyncio.to_thread(_problems, validator, arguments, max_depth, VALIDATION_LIMIT_S, late)

    def _fits(self, arguments: Mapping[str, Any], max_depth: int) -> bool:
        """Whether the compiled validator finds `arguments` valid (False: ask jsonschema)."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = False if self._patterned else _fast_validator(self._schema, self._dialect)
        if compiled is False or (type(arguments) in CONTAINERS and nesting_problem(arguments, max_depth) is not None):
            return False
        try:
            return bool(compiled.is_valid(arguments))
        except (ValueError, TypeError, OverflowError, RecursionError):  # not a JSON value: let jsonschema say so
            return False


def listed_schema(
    schema: dict[str, Any], bounds: SchemaBounds, *, server: str, tool: str, own_session: bool = False
) -> ToolSchema | None:
    """The `ToolSchema` of a listed tool's input schema; None, with one warning, when the
    schema costs more than `bounds` and the tool is left out (`own_session`: of a session the
    user opened, whose way out is not a setting of its own)."""
    try:
        return ToolSchema(schema, bounds, server=server, tool=tool)
    except SchemaOverBound as over:
        why = over.on_own_session() if own_session else str(over)
        logger.warning("mcpbridge: leaving out tool %r of server %r: its input schema %s", tool, server, why)
        return None


def model_schema(schema: dict[str, Any], *, server: str = "?", tool: str = "?") -> dict[str, Any] | None:
    """The input schema to give a model for a tool of a session you opened yourself, as the
    bridge gives its own tools': None (with one warning naming `server` and `tool`) when it
    costs more than the default bounds, so leave the tool out; else the schema without the
    `$ref`s LangChain cannot inline (any one makes every `bind_tools` raise). Nothing is fetched."""
    checked = listed_schema(schema, SchemaBounds(), server=server, tool=tool, own_session=True)
    return None if checked is None else checked.for_model


def required_defaults(schema: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """The top-level `required` properties of `schema` that have a `default`, with it."""
    properties, required = schema.get("properties"), schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return ()
    fields = [(name, properties.get(name)) for name in required if isinstance(name, str)]
    return tuple((name, field["default"]) for name, field in fields if isinstance(field, dict) and "default" in field)


def _refuse(uri: str) -> Any:
    raise ValueError(f"{uri} is never fetched")


def _fast_validator(schema: Mapping[str, Any], dialect: Dialect) -> jsonschema_rs.Validator | Literal[False]:
    """The compiled validator of `schema` for `dialect`, or False when jsonschema-rs does not
    take it (it refuses schemas that break the meta-schema, and references it would have to fetch)."""
    try:
        return dialect.compiled(for_compiled(schema, dialect), retriever=_refuse, validate_formats=False)
    except (ValueError, TypeError):  # a jsonschema_rs.ValidationError is a ValueError
        return False


def schema_problems(schema: Mapping[str, Any] | Validator, value: Any) -> str | None:
    """Where `value` breaks `schema` (a schema, or a validator compiled once by
    `server_schema_validator`), or None when it fits. A value nested deeper than
    `max_argument_depth` (64 by default) breaks any schema; a check that would hold the
    event loop past `VALIDATION_BUDGET_MS` is stopped, and says so. The text quotes the
    value, so it is made safe as an error's (cut, known secrets hidden): it goes into errors."""
    validator = server_schema_validator(schema) if isinstance(schema, Mapping) else schema
    late = f"the value could not be checked against its schema within {VALIDATION_BUDGET_MS:g} ms"
    problems = _problems(validator, value, DEFAULT_MAX_ARGUMENT_DEPTH, VALIDATION_BUDGET_MS / 1000, late)
    return None if problems is None else error_text(problems)


def _problems(validator: Validator, value: Any, max_depth: int, seconds: float, late: str | None = None) -> str | None:
    """The check itself, within `seconds`: past them, `late` (or `_OutOfTime` without it)."""
    if type(value) in CONTAINERS and (deep := nesting_problem(value, max_depth)) is not None:
        return deep
    token = _deadline.set(time.perf_counter() + seconds)
    budget: AbstractContextManager[list[str]] = pattern_budget() if type(validator) in _PATTERNED else nullcontext([])
    try:
        with budget as costly:
            described = _described(validator.iter_errors(value))
        if costly and not any("could not be checked" in line for line in described):
            described.add(f"a value {late_message(costly[0])}")
        return "; ".join(sorted(described)) or None
    except RecursionError:
        return "the value and its schema nest too deeply to be checked (the schema recurses at every level)"
    except (AttributeError, TypeError, KeyError) as exc:
        # A keyword whose value breaks the meta-schema (draft-07's `"items": [...]`) makes
        # jsonschema fail inside: the schema cannot check anything, and the server checks.
        logger.warning("mcpbridge: a schema is malformed and checks nothing (%s: %s)", type(exc).__name__, exc)
        return None
    except _OutOfTime:
        if late is None:
            raise
        return late
    finally:
        _deadline.reset(token)


def _described(errors: Iterator[ValidationError]) -> set[str]:
    return {(f"{'/'.join(str(p) for p in e.absolute_path)}: " if e.absolute_path else "") + e.message for e in errors}
