"""The JSON Schema draft a server's schema is written in, read from its `$schema`.

MCP schemas are 2020-12 unless they say otherwise, and servers do say otherwise: every
zod-built TypeScript SDK server declares draft-07. A schema is checked by the rules of the
draft it declares (draft-04's boolean `exclusiveMaximum`, the array form of `items` before
2020-12, 2019-09's `$recursiveRef`), by both validators: jsonschema's class for that draft,
and jsonschema-rs' own (its 2020-12 validator, given another draft's `$schema`, accepts
every value). A `$schema` naming none of the five (a custom meta-schema, a typo, a value
that is not a string) is checked as 2020-12, with one warning per tool; a meta-schema is
never fetched.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import jsonschema_rs as rs
from jsonschema import (
    Draft4Validator,
    Draft6Validator,
    Draft7Validator,
    Draft201909Validator,
    Draft202012Validator,
)
from referencing import Specification
from referencing.jsonschema import DRAFT4, DRAFT6, DRAFT7, DRAFT201909, DRAFT202012

from mcpbridge._tools.patterns import shown

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Dialect:
    """One JSON Schema draft and what checks a schema by its rules."""

    name: str
    uri: str
    """Its meta-schema's URI, as the drafts themselves spell it."""
    checker: Any
    """jsonschema's validator class (it describes what is wrong)."""
    compiled: Callable[..., rs.Validator]
    """jsonschema-rs' validator class (the fast check)."""
    specification: Specification[Any]
    """How `referencing` finds identifiers and subschemas in it (`id` in draft-04, `$id` since)."""


DIALECTS = (
    Dialect("draft-04", "http://json-schema.org/draft-04/schema#", Draft4Validator, rs.Draft4Validator, DRAFT4),
    Dialect("draft-06", "http://json-schema.org/draft-06/schema#", Draft6Validator, rs.Draft6Validator, DRAFT6),
    Dialect("draft-07", "http://json-schema.org/draft-07/schema#", Draft7Validator, rs.Draft7Validator, DRAFT7),
    Dialect(
        "2019-09",
        "https://json-schema.org/draft/2019-09/schema",
        Draft201909Validator,
        rs.Draft201909Validator,
        DRAFT201909,
    ),
    Dialect(
        "2020-12",
        "https://json-schema.org/draft/2020-12/schema",
        Draft202012Validator,
        rs.Draft202012Validator,
        DRAFT202012,
    ),
)
DEFAULT = DIALECTS[-1]
"""The draft of a schema that declares none (MCP's default), and of one that declares an unknown one."""


def _key(uri: str) -> str:
    """`uri` without its scheme and an empty fragment: `http://` and `https://`, with or
    without a trailing `#`, name the same draft."""
    return uri.strip().removesuffix("#").partition("://")[2] or uri


_BY_URI = {_key(dialect.uri): dialect for dialect in DIALECTS}


def declared_dialect(schema: Mapping[str, Any]) -> Dialect | None:
    """The draft `schema` declares in its `$schema` (2020-12 when it declares none); None
    when it declares one that is not known."""
    if "$schema" not in schema:
        return DEFAULT
    declared = schema["$schema"]
    return _BY_URI.get(_key(declared)) if isinstance(declared, str) else None


def for_compiled(schema: Mapping[str, Any], dialect: Dialect) -> dict[str, Any]:
    """A copy of `schema` that jsonschema-rs' validator for `dialect` takes as that draft:
    its `$schema` spelled as the draft spells it (jsonschema-rs refuses or misreads others)."""
    copied = dict(schema)
    if "$schema" in copied:
        copied["$schema"] = dialect.uri
    return copied


def dialect_of(schema: Mapping[str, Any], server: str | None, tool: str | None, kind: str = "input") -> Dialect:
    """The draft `schema` is checked by: the one it declares, else 2020-12; an unknown
    `$schema` is logged, naming `server` and `tool` (once per tool: when it is built), when
    either is given."""
    dialect = declared_dialect(schema)
    if dialect is not None:
        return dialect
    if server is not None or tool is not None:
        logger.warning(
            "mcpbridge: the %s schema of tool %r of server %r declares $schema %s, which is none of "
            "the JSON Schema drafts 4, 6, 7, 2019-09 and 2020-12 (and is never fetched): it is checked "
            "as JSON Schema 2020-12, the MCP default",
            kind,
            tool,
            server,
            shown(schema["$schema"]),
        )
    return DEFAULT


def one_draft(kind: Any) -> Any:
    """`kind` (a jsonschema validator class of ours) that stays itself in every subschema.
    jsonschema's `evolve` picks the plain class of a subschema's `$schema` (`validator_for`),
    which would leave the deadline, the contained references and the RE2 patterns behind: a
    subschema that declares one is evolved without it, so the whole schema is checked by the
    root's draft, with every protection."""
    evolve = kind.evolve

    def evolve_in_draft(self: Any, **changes: Any) -> Any:
        schema = changes.get("schema", self.schema)
        if isinstance(schema, Mapping) and "$schema" in schema:
            changes["schema"] = {key: value for key, value in schema.items() if key != "$schema"}
        return evolve(self, **changes)

    kind.evolve = evolve_in_draft
    return kind
