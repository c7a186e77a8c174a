"""JSON Schema checks of what an MCP server's schemas describe (tool arguments, structured
results, elicitation answers, approval edits), by jsonschema-rs, with one message format:
`path: message; ...`.

Every schema checked here comes from a server, so it is untrusted input:

- nothing outside it is ever fetched: a `$ref` to another document (`http://...`,
  `file://...`) counts as `{}`, as does one that points nowhere inside it;
- `pattern` and `patternProperties` run on a linear-time engine (Rust's `regex`: time linear
  in the text whatever the pattern, so `^(a+)+$` costs microseconds); a pattern it cannot
  take (a backreference `\\1`, lookaround `(?=`, more than `PATTERN_MEMORY` compiled, not a
  regular expression) is left out, not checked, and so are the distinct patterns of a schema
  past the first `MAX_PATTERNS` (compiling one can take ~10 ms, on the event loop);
- the schema is checked by the rules of the draft its `$schema` declares (draft-04, -06, -07,
  2019-09, 2020-12: every zod-built TypeScript SDK server declares draft-07); an unknown one
  as 2020-12, MCP's default; a `$schema` below the root is ignored, so one draft (the root's)
  holds everywhere (jsonschema-rs reads an embedded resource of another draft as accepting
  anything);
- any other part that breaks its draft's meta-schema (`"items": 5`) is left out, and the
  rest still checks.

The server still checks its own input. With a `server` or `tool` named, the parts left out
are named in one warning per schema (shortened; a schema checked per call logs nothing).
Values nested deeper than `max_argument_depth` are refused before the validator sees them.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import lru_cache
from itertools import islice
from typing import Any, cast

import jsonschema_rs

from mcpbridge._base.config import DEFAULT_MAX_ARGUMENT_DEPTH, SchemaBounds
from mcpbridge._base.errors import capped, error_text, shown
from mcpbridge._session.sendable import CONTAINERS, nesting_problem
from mcpbridge._tools.schema_cost import SchemaOverBound, measure

logger = logging.getLogger(__name__)

PATTERN_MEMORY = 1 << 20
"""The most one pattern may take compiled (its program, and the lazy automaton's cache): a
pattern that needs more is not checked; compiling one this size takes milliseconds."""
PATTERNS = jsonschema_rs.RegexOptions(size_limit=PATTERN_MEMORY, dfa_size_limit=PATTERN_MEMORY)
MAX_PATTERNS = 32
"""Distinct patterns of one schema that are checked (the first met); the others are left out,
noted, so that compiling a schema holds the event loop a fraction of a second at most."""
MAX_REPAIRS = 20
"""Parts of one schema left out before the whole schema is (it then checks nothing)."""
MAX_PROBLEMS = 20
"""The most problems one check describes (each quoting at most ~300 characters of the value)."""
_DRAFT_2020 = "https://json-schema.org/draft/2020-12/schema"
_REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")
_VALUES = frozenset({"const", "enum", "default", "examples"})
"""Keywords whose value is an instance, not a schema: a `$schema` in it is data."""

Validator = jsonschema_rs.Validator


class _Patterns:
    """The distinct patterns of one schema kept for checking: those the linear-time engine
    takes, at most `MAX_PATTERNS` (each costs up to ~10 ms to compile, on the event loop)."""

    def __init__(self, notes: list[str]) -> None:
        self.kept: set[str] = set()
        self.over = 0
        self._notes = notes

    def take(self, pattern: Any, at: str) -> bool:
        if pattern in self.kept:
            return True
        if len(self.kept) >= MAX_PATTERNS:
            self.over += 1
            return False
        if not isinstance(pattern, str) or not _linear(pattern):
            self._notes.append(_unchecked(pattern, at))
            return False
        self.kept.add(pattern)
        return True


def _copy(node: Any, patterns: _Patterns, where: str = "") -> Any:
    """`node` copied (so parts can be left out), without a `$schema` below the root, nor the
    patterns not kept (each noted)."""
    if isinstance(node, list):
        return [_copy(item, patterns, f"{where}/{index}") for index, item in enumerate(node)]
    if not isinstance(node, Mapping):
        return node
    copied: dict[str, Any] = {}
    for key, value in node.items():
        at = f"{where}/{key}"
        if key in _VALUES:
            copied[key] = value
        elif key == "pattern" and isinstance(value, str):
            if patterns.take(value, at):
                copied[key] = value
        elif key == "patternProperties" and isinstance(value, Mapping):
            copied[key] = {
                pattern: _copy(sub, patterns, f"{at}/{pattern}")
                for pattern, sub in value.items()
                if patterns.take(pattern, at)
            }
        elif key != "$schema" or not where or not isinstance(value, str):
            copied[key] = _copy(value, patterns, at)
    return copied


@lru_cache(maxsize=1024)
def _linear(pattern: str) -> bool:
    """Whether the linear-time engine takes `pattern` (compiled once per process)."""
    try:
        jsonschema_rs.validator_for({"pattern": pattern}, pattern_options=PATTERNS)
    except jsonschema_rs.ValidationError:
        return False
    return True


def _unchecked(pattern: Any, where: str) -> str:
    return (
        f"values are not checked against the JSON Schema pattern {shown(pattern)} at {where.lstrip('/')}: the "
        "linear-time engine cannot take it (no backreferences or lookaround, at most 1 MiB compiled)"
    )


def _draft(schema: dict[str, Any], notes: list[str]) -> type[Validator]:
    """The validator class of the draft `schema` declares, noting first when its `$schema`
    names none (2020-12 then); the `$schema` is taken out, so no meta-schema is looked up."""
    kind = jsonschema_rs.validator_cls_for(schema)
    declared = schema.pop("$schema", _DRAFT_2020)
    if kind is jsonschema_rs.Draft202012Validator and _plain(declared) != _plain(_DRAFT_2020):
        drafts = "none of the drafts 4, 6, 7, 2019-09, 2020-12"
        notes.insert(0, f"its $schema {shown(declared)} names {drafts}: checked as JSON Schema 2020-12")
    return kind


def _plain(uri: Any) -> str:
    """`uri` without its scheme and an empty fragment, which name no other draft."""
    return str(uri).strip().removesuffix("#").partition("://")[2]


def _refs(node: Any) -> list[tuple[dict[str, Any], str]]:
    """Every reference keyword in `node`, as (the object holding it, the keyword)."""
    found: list[tuple[dict[str, Any], str]] = []
    pending = [node]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            found += [(node, keyword) for keyword in _REFERENCES if keyword in node]
            pending += [value for key, value in node.items() if key not in _VALUES]
        elif isinstance(node, list):
            pending += node
    return found


def _named(ref: Any, message: str) -> bool:
    """Whether `message` (jsonschema-rs' refusal of a reference) is about `ref`."""
    if not isinstance(ref, str):
        return True
    document, _, fragment = ref.partition("#")
    return any(f"{part}'" in message for part in (ref, document, fragment) if part)


def _leave_out(schema: dict[str, Any], error: jsonschema_rs.ValidationError) -> str | None:
    """Removes from `schema` the part `error` (jsonschema-rs refusing to compile it) is
    about; says which, or None when it cannot tell."""
    if error.kind.name in _REFERENCES:
        named = [(n, keyword, n[keyword]) for n, keyword in _refs(schema) if _named(n[keyword], error.message)]
        for node, keyword, _ in named:
            del node[keyword]
        if not named:
            return None
        more = f" (and {len(named) - 1} more like it)" if len(named) > 1 else ""
        return f"{named[0][1]} {shown(named[0][2])}{more} cannot be resolved inside the schema: it counts as {{}}"
    path: list[Any] = list(error.schema_path if error.kind.name == "format" else error.instance_path)
    parent: Any = schema
    try:
        *steps, last = path
        for step in steps:
            parent = parent[step]
        if isinstance(parent, dict):
            del parent[last]
        else:  # an item of `allOf`, `anyOf`...: it becomes `{}`, the others keep their places
            parent[last] = True
    except (ValueError, KeyError, IndexError, TypeError):  # no such part: the schema as a whole
        return None
    where = "/".join(map(str, path))
    if error.kind.name == "format":
        return _unchecked(path[-1] if path[-2:-1] == ["patternProperties"] else error.instance, where)
    return f"{where} is not valid JSON Schema ({shown(error.message)}): left out"


def server_schema_validator(
    schema: Mapping[str, Any], *, server: str | None = None, tool: str | None = None, kind: str = "input"
) -> Validator | None:
    """The compiled validator of a schema a server sent, by the rules of the draft it
    declares, with the parts it cannot check left out (see above); None when it can check
    nothing. With `server` or `tool`, the parts left out are logged once, naming both."""
    notes: list[str] = []
    patterns = _Patterns(notes)
    copied: dict[str, Any] = _copy(schema, patterns)
    if patterns.over:
        notes.append(f"{patterns.over} more distinct pattern(s) are not checked: at most {MAX_PATTERNS} per schema")
    compiled, draft = None, _draft(copied, notes)
    fetched: list[str] = []

    def never_fetched(uri: str) -> dict[str, Any]:
        fetched.append(uri)
        return {}

    for _ in range(MAX_REPAIRS):
        try:
            compiled = draft(
                cast(Any, copied), retriever=never_fetched, pattern_options=PATTERNS, validate_formats=False
            )
            break
        except jsonschema_rs.ValidationError as error:
            left_out = _leave_out(copied, error)
            if left_out is None:
                notes.append(f"it checks nothing: {shown(error.message)}")
                break
            notes.append(left_out)
    else:
        notes.append(f"it checks nothing: more than {MAX_REPAIRS} parts cannot be checked")
    notes += [
        f"$ref {shown(uri)} names another document, never fetched: it counts as {{}}" for uri in dict.fromkeys(fetched)
    ]
    if notes and (server is not None or tool is not None):
        then = (
            "the server still checks its own input" if kind == "input" else "results are validated without those parts"
        )
        why = "; ".join(notes)
        logger.warning("mcpbridge: the %s schema of tool %r on server %r: %s; %s", kind, tool, server, why, then)
    return compiled


class ToolSchema:
    """A tool's input schema (or, with `kind="output"`, its output schema): measured
    (`SchemaBounds`) and compiled when the tool is listed, shared by every call after."""

    __slots__ = ("defaults", "for_model", "validator")

    def __init__(
        self, schema: dict[str, Any], bounds: SchemaBounds, *, server: str, tool: str, kind: str = "input"
    ) -> None:
        """Raises `SchemaOverBound` when the schema costs more than `bounds`."""
        unfollowed = measure(schema, bounds)
        self.validator = server_schema_validator(schema, server=server, tool=tool, kind=kind)
        self.for_model: dict[str, Any] = _without_refs(schema, unfollowed) if unfollowed else schema
        """The schema LangChain is given (`args_schema`): without the `$ref`s it cannot inline,
        on which `convert_to_openai_tool`, so every `bind_tools`, would raise."""
        self.defaults = required_defaults(schema)
        """Required properties that have a `default`, filled in when a call leaves them out:
        servers (@playwright/mcp) mark such fields required and accept calls without them."""

    def problems(self, value: Any, max_depth: int) -> str | None:
        """Where `value` breaks the schema, or None."""
        return _problems(self.validator, value, max_depth)


def _without_refs(node: Any, where: frozenset[int]) -> Any:
    """`node` without the `$ref` of the objects (by `id`) in `where`."""
    if isinstance(node, Mapping):
        kept = {key: value for key, value in node.items() if key != "$ref" or id(node) not in where}
        return {key: _without_refs(value, where) for key, value in kept.items()}
    if isinstance(node, list):
        return [_without_refs(item, where) for item in node]
    return node


_OVER_BOUNDS = {
    "input": "mcpbridge: leaving out tool %r of server %r: its input schema %s",
    "output": "mcpbridge: results of tool %r of server %r are not checked against its output schema: it %s",
}
"""The warning when a listed tool's schema costs more than its bounds, by the schema's kind."""


def listed_schema(
    schema: dict[str, Any],
    bounds: SchemaBounds,
    *,
    server: str,
    tool: str,
    own_session: bool = False,
    kind: str = "input",
) -> ToolSchema | None:
    """The `ToolSchema` of a listed tool's input (or output) schema; None, with one warning,
    when the schema costs more than `bounds`: the tool is left out (its results are not
    checked). `own_session`: of a session the user opened, whose way out is not a setting."""
    try:
        return ToolSchema(schema, bounds, server=server, tool=tool, kind=kind)
    except SchemaOverBound as over:
        logger.warning(_OVER_BOUNDS[kind], tool, server, over.on_own_session() if own_session else over)
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


def schema_problems(schema: Mapping[str, Any] | Validator | None, value: Any) -> str | None:
    """Where `value` breaks `schema` (a schema, or a validator compiled once by
    `server_schema_validator`), or None when it fits. A value nested deeper than
    `max_argument_depth` (64 by default) breaks any schema. The text quotes the value, so it
    is made safe as an error's (cut, known secrets hidden): it goes into errors."""
    validator = server_schema_validator(schema) if isinstance(schema, Mapping) else schema
    problems = _problems(validator, value, DEFAULT_MAX_ARGUMENT_DEPTH)
    return None if problems is None else error_text(problems)


def _problems(validator: Validator | None, value: Any, max_depth: int) -> str | None:
    if type(value) in CONTAINERS and (deep := nesting_problem(value, max_depth)) is not None:
        return deep
    if validator is None:
        return None
    try:
        if validator.is_valid(value):
            return None
        found = {
            ("/".join(map(str, error.instance_path)) + ": " if error.instance_path else "") + capped(error.message, 300)
            for error in islice(validator.iter_errors(value), MAX_PROBLEMS)
        }
    except (ValueError, TypeError, OverflowError):  # not JSON: the check of what is sent says why
        return None
    return "; ".join(sorted(found))
