"""Cache keys: which server, which tool, which arguments, and whose call.

Two calls share an entry only when all four agree. The caller's identity (the partition)
comes from configured sources read off the call itself, so a user can never be answered
from another user's entry; a call whose identity cannot be read is not cached at all.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from mcpbridge import ServerConfig, ToolCallRequest, ValueSource

VERSION = "v1"


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Server and tool stay readable (so entries can be cleared by them); everything else,
    including the identity, is only in the digest."""

    server: str
    tool: str
    digest: str

    def text(self, namespace: str) -> str:
        """The Redis key: `<namespace>:v1:<server>:<tool>:<digest>`, names %-escaped so no
        name can contain `:` or a glob character."""
        return f"{namespace}:{VERSION}:{quote(self.server, safe='')}:{quote(self.tool, safe='')}:{self.digest}"


def pattern(namespace: str, server: str | None, tool: str | None) -> str:
    """The Redis SCAN pattern matching every key of `server` / `tool` (any when None)."""
    parts = (quote(name, safe="") if name is not None else "*" for name in (server, tool))
    return f"{namespace}:{VERSION}:{':'.join(parts)}:*"


class MissingIdentity(Exception):
    """A configured identity source has no value on this call."""


class KeyBuilder:
    """Builds the key of a call from its server's identity, arguments and partition."""

    def __init__(self, servers: Mapping[str, ServerConfig], partition_by: Sequence[ValueSource]) -> None:
        self._servers = {name: server_identity(name, config) for name, config in servers.items()}
        self._sources = partition_by

    def key(self, request: ToolCallRequest) -> CacheKey:
        """Raises `MissingIdentity` (naming the source) or `TypeError` for arguments that
        are not JSON."""
        partition = [_read(request, source) for source in self._sources]
        material = "\x00".join(
            (
                self._servers.get(request.server_name, request.server_name),
                request.name,
                _canonical(request.args),
                _canonical(partition),
            )
        )
        return CacheKey(request.server_name, request.name, hashlib.sha256(material.encode()).hexdigest())


def server_identity(name: str, config: ServerConfig) -> str:
    """What the server *is*, not just its name: two processes sharing Redis must not mix up
    entries of two different servers both called "search", nor of two deployments that
    reach the same URL with different credentials (static headers, env)."""
    described = config.model_dump(mode="json", include={"command", "args", "env", "cwd", "url", "headers"})
    return f"{name}\x00{_canonical(described)}"


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _read(request: ToolCallRequest, source: ValueSource) -> Any:
    found = source.read(request)
    if found is None:
        raise MissingIdentity(str(source))
    return found if isinstance(found, str | int | float | bool) else str(found)
