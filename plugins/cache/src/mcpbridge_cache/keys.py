"""Cache keys: which server, which caller, which tool, which arguments.

The cache is the innermost layer, so the request it sees is exactly what reaches the
server: its headers and `_meta` go into the caller's *scope* (with the server's identity
and any `partition_by` values), and two calls share an entry only when scope, tool and
arguments all agree. Both are keyed hashes (HMAC-SHA256 with the secret): a key reveals no
argument, header or user id to whoever can list the keys of a shared Redis.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from mcpbridge import ServerConfig, ToolCallRequest, ValueSource

VERSION = "v2"


@dataclass(frozen=True, slots=True)
class CacheKey:
    """Server and tool stay readable (so entries can be cleared by them); the scope is the
    unit a write invalidates ("this server, this caller")."""

    server: str
    scope: str
    tool: str
    digest: str

    def text(self, namespace: str) -> str:
        """The Redis key: `<namespace>:v2:<server>:<scope>:<tool>:<digest>`, names %-escaped
        so no name can contain `:` or a glob character."""
        server, tool = quote(self.server, safe=""), quote(self.tool, safe="")
        return f"{namespace}:{VERSION}:{server}:{self.scope}:{tool}:{self.digest}"


def pattern(namespace: str, server: str | None, tool: str | None) -> str:
    """The Redis SCAN pattern matching every entry key of `server` / `tool` (any when None)."""
    server_part, tool_part = (quote(name, safe="") if name is not None else "*" for name in (server, tool))
    return f"{namespace}:{VERSION}:{server_part}:*:{tool_part}:*"


def is_entry(namespace: str, key: str) -> bool:
    """Whether `key` (matched by `pattern`) is an entry, not a generation counter or a flight lock."""
    parts = key.removeprefix(f"{namespace}:{VERSION}:").split(":")
    return len(parts) == 4 and len(parts[1]) == 32 and len(parts[3]) == 64


class MissingIdentity(Exception):
    """A `partition_by` source has no value on this call."""


class KeyBuilder:
    """Builds the scope and key of a call from its server's identity, what it sends, and its
    partition."""

    def __init__(self, servers: Mapping[str, ServerConfig], partition_by: Sequence[ValueSource], secret: bytes) -> None:
        self._servers = {name: server_identity(name, config) for name, config in servers.items()}
        self._sources = partition_by
        self._mac = hmac.new(secret, digestmod=hashlib.sha256)
        self._scope = functools.lru_cache(maxsize=4096)(self._hash_scope)
        """Callers repeat themselves: the scope of the same server and material is hashed once."""

    def scope(self, request: ToolCallRequest) -> str:
        """Raises `MissingIdentity` (naming the source), or `TypeError` / `ValueError` for a
        `_meta` that is not JSON."""
        partition = [_read(request, source) for source in self._sources]
        headers = sorted((name.lower(), value) for name, value in (request.headers or {}).items())
        material = _canonical([headers, request.meta, partition]) if headers or request.meta or partition else ""
        return self._scope(request.server_name, material)

    def _hash_scope(self, server_name: str, material: str) -> str:
        return self._hash(f"{self._servers.get(server_name, server_name)}\x00{material}")[:32]

    def key(self, request: ToolCallRequest) -> CacheKey:
        """Raises as `scope`, and for arguments that are not JSON."""
        scope = self.scope(request)
        digest = self._hash("\x00".join((scope, request.name, _canonical(request.args))))
        return CacheKey(request.server_name, scope, request.name, digest)

    def _hash(self, material: str) -> str:
        mac = self._mac.copy()
        mac.update(material.encode())
        return mac.hexdigest()


def server_identity(name: str, config: ServerConfig) -> str:
    """What the server *is*, not just its name: two processes sharing Redis must not mix up
    entries of two different servers both called "search", nor of two deployments that
    reach the same URL with different credentials (static headers, env)."""
    described = config.model_dump(mode="json", include={"command", "args", "env", "cwd", "url", "headers"})
    return f"{name}\x00{_canonical(described)}"


_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode


def _read(request: ToolCallRequest, source: ValueSource) -> Any:
    found = source.read(request)
    if found is None:
        raise MissingIdentity(str(source))
    return found if isinstance(found, str | int | float | bool) else str(found)
