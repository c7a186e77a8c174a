"""What a tool object, an approval and a pin are bound to: the definition a server listed,
by a fingerprint, and whether that definition is still the one the bridge offers.

A server may change a tool after listing it (`tools/list_changed`), or list it no more. The
objects built from the earlier definition must not reach the changed tool: a call through
one is refused before it is sent (`Definition.withdrawn`), and a decision given for one
definition does not hold for another (`definition_fingerprint`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from mcp.types import Tool


def definition_fingerprint(tool: Tool) -> str:
    """A stable hash of everything `tool` says about itself (name, title, description, input
    and output schemas, annotations, execution, icons, `_meta`): the same definition has the
    same fingerprint in every process and run, one that differs in anything has another."""
    data = tool.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))  # ASCII: a lone surrogate hashes too
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


@dataclass(slots=True, eq=False)
class Definition:
    """Whether the bridge still offers the definition one tool object was built from."""

    withdrawn: str | None = None
    """None while it does; else why not (it changed, is no longer listed, or a review holds
    it back), for the error refusing a call through the object."""


@dataclass(frozen=True, slots=True)
class Relisting:
    """A server's listing as its tool objects see it, one per server: a call through one
    first lists the server's tools again when the server announced a change the bridge has
    not listed yet (`tools/list_changed`), so that it is checked against the definition the
    server has now, not the one it had when the object was built."""

    announced: Callable[[], bool]
    """True while a change the server announced is not listed yet (a cheap read, per call)."""
    relist: Callable[[], Awaitable[object]]
    """List the server's tools through the bridge (its reviews, its tool objects)."""
