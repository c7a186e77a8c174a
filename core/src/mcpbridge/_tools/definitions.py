"""What a tool object, an approval and a pin are bound to: the definition a server listed,
by a fingerprint, and whether that definition is still the one the bridge offers.

A server may change a tool after listing it (`tools/list_changed`), or list it no more. The
objects built from the earlier definition must not reach the changed tool: a call through
one is refused before it is sent (`Definition.withdrawn`), and a decision given for one
definition does not hold for another (`definition_fingerprint`)."""

from __future__ import annotations

import hashlib
import json
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
