"""How one of the adapters' connection dicts becomes an mcpbridge server table.

Kept as the adapters treat them: the legacy protocol (2025-11-25) unless the dict says
`"mode"`, `${VAR}` expanded in a stdio `env` only (an undefined one passed on literally,
with a warning), an `httpx` factory or auth carried over to `httpx2`. Timeouts: `timeout`
(the HTTP timeout) bounds connecting and the handshake (`connect_timeout`);
`sse_read_timeout` (how long to wait for the server's answer) bounds each tool call
(`timeout`). Both take seconds or a `timedelta`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpbridge_adapters.httpx_compat import adapt_auth, adapt_factory
from mcpbridge_adapters.sessions import CREATORS, WEBSOCKET_REFUSED, expand_env, seconds

DEFAULT_MODE = "legacy"
"""The protocol the adapters speak; servers that push requests (`ctx.elicit`) need it."""
ADAPTERS_CLIENT_INFO = {"client_name": "mcp", "client_version": "0.1.0"}
"""The `clientInfo` langchain-mcp-adapters sent (mcp 1.x's default): servers that tell
clients apart by it see the same client after the move."""
HTTP_CALL_TIMEOUT = 300.0
"""The adapters' `sse_read_timeout` default: how long an HTTP or SSE tool call may take."""
STDIO_CALL_TIMEOUT = 86400.0
"""The adapters set no bound on a stdio tool call; mcpbridge needs one: a day."""

_HTTP = {"streamable_http", "streamable-http", "http"}
_IGNORED = {"terminate_on_close"}
"""Accepted and not needed: mcpbridge always ends its HTTP sessions when it closes."""
_DEFAULTS = {"encoding": "utf-8", "encoding_error_handler": "strict"}
"""Accepted with their default value only: stdio servers speak strict UTF-8."""


def server_config(name: str, connection: Mapping[str, Any], *, call_timeouts: bool = True) -> dict[str, Any]:
    """The mcpbridge server table for one connection dict; a ValueError names what cannot be
    carried over. `call_timeouts`: bound tool calls as the adapters do (unless the dict says)."""
    if "transport" not in connection:
        raise ValueError(
            f"Configuration error: missing 'transport' key in the configuration of server {name!r}; "
            "give one of 'stdio', 'sse', 'http' (or 'streamable_http'), 'in_process'"
        )
    given = dict(connection)
    transport = given.pop("transport")
    for key in _IGNORED.intersection(given):
        given.pop(key)
    for key, default in _DEFAULTS.items():
        if key in given and str(given.pop(key)).lower().replace("_", "-") != default.replace("_", "-"):
            raise ValueError(f"server {name!r}: {key!r} other than {default!r} is not supported")
    if given.get("session_kwargs"):
        raise ValueError(
            f"server {name!r}: 'session_kwargs' cannot be carried over (sessions are shared and persistent); "
            "use `callbacks=Callbacks(...)` for logging, progress and elicitation"
        )
    given.pop("session_kwargs", None)
    if transport == "websocket":
        raise ValueError(f"server {name!r}: {WEBSOCKET_REFUSED}")
    for key in CREATORS.get(transport, (None, ()))[1]:
        if key not in given:
            raise ValueError(f"'{key}' parameter is required for {transport} connection (server {name!r})")
    given.setdefault("mode", DEFAULT_MODE)
    for key, value in ADAPTERS_CLIENT_INFO.items():  # sessions introduce themselves as the adapters' did
        given.setdefault(key, value)
    if transport == "stdio":
        if given.get("cwd") is not None:
            given["cwd"] = str(given["cwd"])
        if call_timeouts:
            given.setdefault("timeout", STDIO_CALL_TIMEOUT)
        env = expand_env(given.pop("env", None))
        stdio: dict[str, Any] = _literal({**_drop_none(given), **({"env": env} if env is not None else {})})
        return stdio
    if transport in _HTTP or transport == "sse":
        table = _http_table(name, transport, _literal(_drop_none(given)))
        if call_timeouts:
            table.setdefault("timeout", HTTP_CALL_TIMEOUT)
        return table
    if transport == "in_process":
        return _drop_none(given)
    raise ValueError(
        f"Unsupported transport: {transport} (server {name!r}). Must be one of: 'stdio', 'sse', 'http', 'in_process'"
    )


def _http_table(name: str, transport: str, table: dict[str, Any]) -> dict[str, Any]:
    where = f"server {name!r}"
    if transport == "sse":
        table["transport"] = "sse"
    if "httpx_client_factory" in table:
        table["http_client"] = adapt_factory(table.pop("httpx_client_factory"), where, table.get("auth"))
    if "auth" in table:
        table["auth"] = adapt_auth(table["auth"], where)
    if "timeout" in table:
        table["connect_timeout"] = seconds(table.pop("timeout"))
    if "sse_read_timeout" in table:
        table["timeout"] = seconds(table.pop("sse_read_timeout"))
    return table


def _literal(value: Any) -> Any:
    """Strings as they are: mcpbridge would expand `${VAR}` again (and refuse an unset one),
    so each is written as mcpbridge's literal `$${VAR}`."""
    if isinstance(value, str):
        return value.replace("${", "$${")
    if isinstance(value, dict):
        return {key: _literal(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_literal(item) for item in value]
    return value


def _drop_none(table: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in table.items() if value is not None}
