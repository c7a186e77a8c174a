"""Configuration: `mcpbridge.toml` or `[tool.mcpbridge]` in pyproject.toml, plus `${ENV}`
expansion, turned into typed, validated settings. Python callers build the same settings
from keyword arguments, so the file and `MCPBridge(...)` can never disagree."""

from __future__ import annotations

import difflib
import importlib
import os
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic.type_adapter import TypeAdapter
from pydantic.types import ImportString

from mcpbridge._base.errors import ConfigError, redact_text, validation_problems
from mcpbridge._base.fields import expand_env, header_problem, secrets_in_servers, value_problem

if TYPE_CHECKING:
    from httpx2 import AsyncClient as HTTPClient, Auth as HTTPAuth
else:  # httpx2 is slow to import (docs/performance.md): the validators below check these when one is given
    HTTPAuth = HTTPClient = Any

DEFAULT_CONFIG_FILE = "mcpbridge.toml"
MODERN_PROTOCOL = "2026-07-28"

MiB = 1024 * 1024
DEFAULT_MAX_ARGUMENT_BYTES = 4 * MiB
DEFAULT_MAX_RESULT_BYTES = 64 * MiB
DEFAULT_MAX_ARGUMENT_DEPTH = 64
DEFAULT_MAX_SCHEMA_DEPTH = 64
DEFAULT_MAX_SCHEMA_REFS = 1000
DEFAULT_MAX_SCHEMA_BYTES = 128 * 1024
SENDABLE_DEPTH = 200
"""The deepest any value a call sends may nest: the SDK's serializer (pydantic) refuses
values nested past ~254 levels, in the caller's task or the transport's, and so does
LangGraph's checkpointer (ormsgpack); this leaves room for the request's own envelope."""


@dataclass(frozen=True, slots=True)
class SchemaBounds:
    """The most a server's input schema may cost, with its references inlined (settings
    `max_schema_depth`, `max_schema_refs`, `max_schema_bytes`)."""

    max_depth: int = DEFAULT_MAX_SCHEMA_DEPTH
    """Nesting of objects and arrays."""
    max_refs: int = DEFAULT_MAX_SCHEMA_REFS
    """References inlined."""
    max_bytes: int = DEFAULT_MAX_SCHEMA_BYTES
    """Size as compact JSON (strings counted by their length)."""


Transport = Literal["stdio", "http", "sse", "inprocess"]


class ServerConfig(BaseModel):
    """How to reach one MCP server: a `command` (stdio), a `url` (streamable HTTP, or the
    older HTTP+SSE with `transport = "sse"`), or an in-process `server` object (an
    `MCPServer`, given in Python only)."""

    # Inputs (header values, env values) are secrets more often than not: never in errors.
    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True, hide_input_in_errors=True)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] | None = None
    cwd: str | None = None
    url: str | None = None
    transport: Transport = "http"
    """Given only for `url` servers ("http", the default, or "sse"); otherwise filled in."""
    headers: dict[str, str] = Field(default_factory=dict)
    auth: HTTPAuth | None = None
    """An httpx2 `Auth` for a `url` server's HTTP client (an import string "module:attr" names
    one, or a zero-argument factory of one, called once when the config loads)."""
    http_client: Callable[..., HTTPClient] | None = None
    """`(headers=, timeout=, auth=) -> httpx2.AsyncClient` (or an import string naming it):
    the HTTP client of a `url` server, for TLS, proxies, mTLS."""
    server: Any = Field(default=None, exclude=True)
    timeout: float | None = Field(default=None, gt=0)
    connect_timeout: float = Field(default=30.0, gt=0)
    mode: Literal["auto", "legacy", "modern"] = "auto"
    handle_transport_errors: bool | None = None
    """Overrides the top-level `handle_transport_errors` for this server."""
    max_argument_bytes: int | None = Field(default=None, gt=0)
    max_result_bytes: int | None = Field(default=None, gt=0)
    client_name: str | None = None
    client_version: str | None = None
    """Who the client says it is to this server (MCP `clientInfo`); default: the bridge's."""
    _bridge_client: tuple[str, str | None] = PrivateAttr(default=("mcpbridge", None))

    @field_validator("headers")
    @classmethod
    def _sendable_headers(cls, headers: dict[str, str]) -> dict[str, str]:
        """Static headers go on every request of the shared HTTP client: one it cannot send
        would fail every call, and its error would quote the value (often a token)."""
        for name, value in headers.items():
            if (problem := header_problem(name)) is not None:
                raise ValueError(problem)
            if header_problem(name, value) is not None:
                raise ValueError(f'header {name!r} = "***": the value {value_problem(value)}')
        return headers

    @field_validator("auth", mode="before")
    @classmethod
    def _auth_object(cls, value: Any) -> Any:
        value = _imported(value, "auth")
        if value is None or isinstance(value, auth := importlib.import_module("httpx2").Auth):
            return value
        if callable(value):
            try:
                value = value()
            except Exception as exc:
                raise ValueError(f"`auth`: its factory failed: {type(exc).__name__}: {exc}") from None
            if isinstance(value, auth):
                return value
        raise ValueError(
            f"`auth` must be an httpx2.Auth (mcp 2.x's HTTP clients are httpx2: an httpx.Auth does not fit), "
            f"an import string naming one, or a zero-argument factory of one; got {type(value).__name__}"
        )

    @field_validator("http_client", mode="before")
    @classmethod
    def _client_factory(cls, value: Any) -> Any:
        value = _imported(value, "http_client")
        if value is not None and not callable(value):
            raise ValueError(
                "`http_client` must be a callable (headers=, timeout=, auth=) -> httpx2.AsyncClient, or an "
                f"import string naming one; got {type(value).__name__}"
            )
        return value

    @model_validator(mode="before")
    @classmethod
    def _fill_transport(cls, data: Any) -> Any:
        """Give the transport the keys imply."""
        if isinstance(data, Mapping) and data.get("transport") is None:
            implied = "stdio" if data.get("command") is not None else "inprocess" if data.get("url") is None else "http"
            data = {**data, "transport": implied}
        return data

    @model_validator(mode="after")
    def _one_transport(self) -> ServerConfig:
        given = [key for key in ("command", "url", "server") if getattr(self, key) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of `command` (stdio), `url` (streamable HTTP or SSE) or an in-process "
                f"`server` object; got {', '.join(given) or 'none'}"
            )
        scheme = urlsplit(self.url).scheme.lower() if self.url is not None else "http"
        if scheme in ("ws", "wss"):
            raise ValueError(
                "WebSocket servers cannot be reached: mcp 2.x has no WebSocket client; serve the server over "
                'streamable HTTP (an http(s):// `url`) or SSE (`transport = "sse"`)'
            )
        if scheme not in ("http", "https"):
            raise ValueError(
                f"`url` must start with http:// or https:// (streamable HTTP or SSE), not {scheme or 'no scheme'}:// "
                '(a local program is a `command` server: `command = "..."`)'
            )
        if self.headers and self.url is None:
            raise ValueError(
                "`headers` only apply to `url` servers; stdio and in-process servers carry no HTTP headers"
            )
        for key in ("auth", "http_client"):
            if getattr(self, key) is not None and self.url is None:
                raise ValueError(f"`{key}` only applies to `url` servers; stdio and in-process servers use no HTTP")
        fits = ("stdio",) if self.command is not None else ("inprocess",) if self.url is None else ("http", "sse")
        if self.transport not in fits:
            raise ValueError(
                f'`transport` = "{self.transport}" does not fit this server: only `url` servers take one, '
                '"http" (streamable HTTP, the default) or "sse" (the older HTTP+SSE transport)'
            )
        if self.command is None and (self.args or self.env or self.cwd):
            raise ValueError("`args`, `env` and `cwd` only apply to `command` (stdio) servers")
        return self

    @property
    def client_info(self) -> tuple[str, str]:
        """(name, version) of the MCP `clientInfo` this server is sent: its own keys, else the
        bridge's, else `mcpbridge` and its version."""
        name = self.client_name or self._bridge_client[0]
        return name, self.client_version or self._bridge_client[1] or version("mcpbridge")

    @property
    def client_mode(self) -> str:
        """The `mode` value the mcp `Client` understands."""
        return MODERN_PROTOCOL if self.mode == "modern" else self.mode


class PluginsConfig(BaseModel):
    """The `[plugins]` table: which plugins run and in what order. Every other key is a
    `[plugins.<name>]` table that belongs to (and is validated by) that plugin."""

    model_config = ConfigDict(extra="allow", frozen=True)

    autoload: bool = True
    enabled: list[str] | None = None
    disabled: list[str] = Field(default_factory=list)
    order: list[str] = Field(default_factory=list)
    strict: bool = False

    @model_validator(mode="after")
    def _sections_are_tables(self) -> PluginsConfig:
        for name, value in (self.model_extra or {}).items():
            if not isinstance(value, Mapping):
                hint = did_you_mean(name, PluginsConfig.model_fields)
                raise ValueError(f"`plugins.{name}` must be a table of that plugin's settings{hint}")
        return self

    @property
    def sections(self) -> dict[str, dict[str, Any]]:
        """The per-plugin tables, by plugin name."""
        return {name: dict(value) for name, value in (self.model_extra or {}).items()}


class Settings(BaseModel):
    """Everything a bridge is built from."""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True, hide_input_in_errors=True)

    servers: dict[str, ServerConfig] = Field(default_factory=dict)
    tool_name_prefix: bool = False
    timeout: float = Field(default=60.0, gt=0)
    on_server_error: Literal["raise", "skip"] = "raise"
    handle_transport_errors: bool = False
    """A `ServerConnectionError` becomes an error ToolMessage (True) or is raised (False)."""
    handle_tool_errors: bool = True
    """A failed call given as a ToolCall becomes an error ToolMessage (True) or raises (False):
    the default `handle_tool_error` of the bridge's tools."""
    max_argument_bytes: int = Field(default=DEFAULT_MAX_ARGUMENT_BYTES, gt=0)
    max_result_bytes: int = Field(default=DEFAULT_MAX_RESULT_BYTES, gt=0)
    max_argument_depth: int = Field(default=DEFAULT_MAX_ARGUMENT_DEPTH, gt=0, le=SENDABLE_DEPTH)
    """The deepest a call's arguments may nest (objects and arrays) to be checked and sent."""
    max_schema_depth: int = Field(default=DEFAULT_MAX_SCHEMA_DEPTH, gt=0)
    max_schema_refs: int = Field(default=DEFAULT_MAX_SCHEMA_REFS, gt=0)
    max_schema_bytes: int = Field(default=DEFAULT_MAX_SCHEMA_BYTES, gt=0)
    """A tool whose input schema, with its `$ref`s inlined, nests deeper, inlines more `$ref`s
    or is larger than these is left out when listed, with a warning (see `_schema_cost`)."""
    plugins: PluginsConfig = Field(default_factory=PluginsConfig)
    client_name: str = "mcpbridge"
    client_version: str | None = None
    """Who the client says it is to servers (MCP `clientInfo`); the version defaults to
    mcpbridge's. A server's own `client_name` / `client_version` win."""
    source: str | None = Field(default=None, exclude=True)

    @model_validator(mode="after")
    def _introduce_to_servers(self) -> Settings:
        """A connection sees its server's table only: each gets the bridge's `clientInfo` keys."""
        for name, server in self.servers.items():
            server = self.servers[name] = server.model_copy()
            server._bridge_client = (self.client_name, self.client_version)
        return self

    def server_timeout(self, server: str) -> float:
        return self.servers[server].timeout or self.timeout

    def server_handle_transport_errors(self, server: str) -> bool:
        own = self.servers[server].handle_transport_errors
        return self.handle_transport_errors if own is None else own

    def server_max_argument_bytes(self, server: str) -> int:
        """The largest `tools/call` arguments (UTF-8 JSON bytes) sent to `server`."""
        return self.servers[server].max_argument_bytes or self.max_argument_bytes

    def server_max_result_bytes(self, server: str) -> int:
        """The largest tool result (bytes on the wire) accepted from `server`."""
        return self.servers[server].max_result_bytes or self.max_result_bytes

    def require_servers(self) -> None:
        """Refuse to list the tools of no server: a config without `[servers.<name>]` is a
        mistake (a file that was not the one meant, a table misspelled), not an empty list."""
        if not self.servers:
            where = f" in {self.source}" if self.source else ""
            raise ConfigError(
                f"no servers configured{where}: add a `[servers.<name>]` table with a `command` (a stdio "
                "program) or a `url` (streamable HTTP), or pass `MCPBridge(servers={...})` (docs/configuration.md)"
            )

    def schema_bounds(self) -> SchemaBounds:
        """What a tool's input schema may cost (`max_schema_depth`, `_refs`, `_bytes`)."""
        return SchemaBounds(self.max_schema_depth, self.max_schema_refs, self.max_schema_bytes)

    def secret_values(self) -> frozenset[str]:
        """Values to keep out of logs and errors: static header values, `env` values whose
        names look secret, credentials in server URLs (see `mcpbridge._base.errors`), and
        the values servers' tables took from the environment (`${NAME}`: see
        `mcpbridge._base.fields.environment_secret`)."""
        return frozenset(secrets_in_servers(self.servers))

    def with_overrides(
        self,
        *,
        servers: Mapping[str, Any] | None = None,
        plugin_settings: Mapping[str, Mapping[str, Any]] | None = None,
        **options: Any,
    ) -> Settings:
        """These settings with `MCPBridge(...)`'s keyword arguments over them: `servers` and
        `plugin_settings` (`${ENV}` expanded) add to or replace tables by name, and every
        other option that is not None replaces its key; validated again, as a file is."""
        base: dict[str, Any] = {**self.model_dump(exclude={"source"}), "servers": dict(self.servers)}
        if servers is not None:
            base["servers"] = {**base["servers"], **expand_env(servers, "MCPBridge(servers=...)")}
        base.update({key: value for key, value in options.items() if value is not None})
        if plugin_settings:
            plugins = dict(base.get("plugins") or {})
            for name, table in expand_env(plugin_settings, "MCPBridge(plugin_settings=...)").items():
                plugins[name] = {**plugins.get(name, {}), **table}
            base["plugins"] = plugins
        return build_settings(base, self.source)


def build_settings(data: Mapping[str, Any], source: str | None = None) -> Settings:
    """Validate raw settings (from a file or from Python), naming the key and the file. A server
    given as an object (an `MCPServer` or low-level `Server`) is an in-process server."""
    servers = {
        name: value if isinstance(value, Mapping | ServerConfig) else {"server": value}
        for name, value in dict(data.get("servers") or {}).items()
    }
    try:
        return Settings.model_validate({**data, "servers": servers, "source": source})
    except ValidationError as exc:
        raise ConfigError(redact_text(_explain(exc, source), secrets_in_servers(servers))) from None


def load_settings(path: str | os.PathLike[str] | None = None) -> Settings:
    """Read `mcpbridge.toml` or a `pyproject.toml`'s `[tool.mcpbridge]` table, expand `${ENV}`
    references, and validate. Without `path`: `mcpbridge.toml` in the working directory,
    else the `[tool.mcpbridge]` table of its `pyproject.toml`."""
    file = Path(path) if path is not None else _default_file()
    if not file.is_file():
        raise ConfigError(
            f"config file {str(file)!r} not found: create it, or a [tool.mcpbridge] table in pyproject.toml "
            "(see docs/configuration.md), or pass --config PATH"
        )
    try:
        raw = tomllib.loads(file.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from None
    if file.name == "pyproject.toml":
        raw = raw.get("tool", {}).get("mcpbridge")
        if raw is None:
            raise ConfigError(f"{file} has no [tool.mcpbridge] table")
    return build_settings(expand_env(raw, str(file)), str(file))


def _default_file() -> Path:
    """`mcpbridge.toml` if the working directory has one, else its `pyproject.toml` if that has
    a `[tool.mcpbridge]` table."""
    file, pyproject = Path(DEFAULT_CONFIG_FILE), Path("pyproject.toml")
    ours = not file.is_file() and pyproject.is_file() and "[tool.mcpbridge" in pyproject.read_text(errors="replace")
    return pyproject if ours else file


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """ " (did you mean `x`?)" for the choice closest to a misspelled `word`, else ""."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean `{close[0]}`?)" if close else ""


def _imported(value: Any, key: str) -> Any:
    """The object an import string "module:attribute" names (pydantic's `ImportString`); other values as given."""
    if not isinstance(value, str):
        return value
    try:
        return TypeAdapter(ImportString[Any]).validate_python(value)
    except ValidationError as exc:
        why = exc.errors()[0]["msg"].removeprefix("Invalid python path: ")
        raise ValueError(
            f'`{key}` = "{value}" cannot be imported ({why}): write an import string "module:attribute"'
        ) from None


def _explain(exc: ValidationError, source: str | None) -> str:
    where = f" in {source}" if source else ""
    lines = []
    for error, (key, message) in zip(exc.errors(), validation_problems(exc), strict=True):
        if error["type"] == "extra_forbidden":
            keys = ServerConfig.model_fields if error["loc"][0] == "servers" else Settings.model_fields
            hint = did_you_mean(str(error["loc"][-1]), (k for k in keys if k != "source"))
            message = f"unknown key{hint or ' (check its spelling against docs/configuration.md)'}"
        lines.append(f"  {key or '(top level)'}: {message}")
    return f"invalid mcpbridge configuration{where}:\n" + "\n".join(lines)
