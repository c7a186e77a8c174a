"""JSON Schema checks with one message format: `path: message; ...` (tool arguments,
edited arguments, elicitation answers).

Every schema checked here comes from an MCP server, so it is untrusted input. It is never
resolved outside itself: validators are built with a `referencing.Registry` whose
`retrieve` refuses every URI, so a `$ref` to `http://...`, `file://...` or any other
document is never fetched (jsonschema's default would `urlopen` it, blocking, with no
timeout). A `$ref` that cannot be resolved inside the schema (or from the bundled JSON
Schema meta-schemas) is dropped: that subschema counts as `{}` and the rest of the schema
still applies; `server_schema_validator` logs one warning per tool naming it. Regular
expressions run time-limited (see `mcpbridge._patterns`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from typing import Any

from jsonschema import Draft202012Validator, ValidationError, validators
from jsonschema_specifications import REGISTRY as SPECIFICATIONS  # type: ignore[import-untyped]
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable
from referencing.jsonschema import DRAFT202012

from mcpbridge._patterns import PATTERN_KEYWORDS, late_message, pattern_budget, precompile, shown

logger = logging.getLogger(__name__)


def _refuse(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]


_NO_RETRIEVAL: Registry[Any] = Registry(retrieve=_refuse)  # type: ignore[call-arg]
_WALK_REGISTRY: Registry[Any] = SPECIFICATIONS.combine(_NO_RETRIEVAL)


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


_REFERENCES = {"$ref": _tolerant("$ref"), "$dynamicRef": _tolerant("$dynamicRef")}
_ServerSchemaValidator: Any = validators.extend(Draft202012Validator, _REFERENCES)
_PatternedServerSchemaValidator: Any = validators.extend(Draft202012Validator, {**_REFERENCES, **PATTERN_KEYWORDS})
"""For schemas with regular expressions: only they pay for the time budget."""


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
            named = ", ".join(shown(ref) for ref in refs[:3]) + (f" and {len(refs) - 3} more" if len(refs) > 3 else "")
            logger.warning(
                "mcpbridge: the input schema of tool %r on server %r refers to %s, which cannot be "
                "resolved inside the schema and is never fetched: arguments are validated without "
                "that part",
                tool,
                server,
                named,
            )
        schema = _without(schema, where)
    patterned = "pattern" in json.dumps(schema, default=str)  # over-inclusive, and cheap: once per tool
    kind = _PatternedServerSchemaValidator if patterned else _ServerSchemaValidator
    validator: Draft202012Validator = kind(dict(schema), registry=_NO_RETRIEVAL)
    return validator


def schema_problems(schema: Mapping[str, Any] | Draft202012Validator, value: Any) -> str | None:
    """Where `value` breaks `schema` (a schema, or a validator compiled once by
    `server_schema_validator`), or None when it fits."""
    validator = server_schema_validator(schema) if isinstance(schema, Mapping) else schema
    if not isinstance(validator, _PatternedServerSchemaValidator):
        return "; ".join(sorted(_described(validator.iter_errors(value)))) or None
    with pattern_budget() as late:
        described = _described(validator.iter_errors(value))
    if late and not any("could not be checked" in line for line in described):
        described.add(f"a value {late_message(late[0])}")
    return "; ".join(sorted(described)) or None


def _described(errors: Iterator[ValidationError]) -> set[str]:
    return {(f"{'/'.join(str(p) for p in e.absolute_path)}: " if e.absolute_path else "") + e.message for e in errors}
