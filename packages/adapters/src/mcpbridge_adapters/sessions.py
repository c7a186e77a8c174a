"""The connection dicts of langchain-mcp-adapters, and how each becomes an mcpbridge server.

Timeouts: `timeout` (the HTTP timeout) bounds connecting and the handshake
(`connect_timeout`); `sse_read_timeout` (how long to wait for the server's answer) bounds
each tool call (`timeout`). Both take seconds or a `timedelta`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

EncodingErrorHandler = Literal["strict", "ignore", "replace"]


class StdioConnection(TypedDict):
    transport: Literal["stdio"]
    command: str
    args: list[str]
    env: NotRequired[dict[str, str] | None]
    cwd: NotRequired[str | Path | None]
    encoding: NotRequired[str]
    encoding_error_handler: NotRequired[EncodingErrorHandler]
    session_kwargs: NotRequired[dict[str, Any] | None]


class SSEConnection(TypedDict):
    transport: Literal["sse"]
    url: str
    headers: NotRequired[dict[str, Any] | None]
    timeout: NotRequired[float | timedelta]
    sse_read_timeout: NotRequired[float | timedelta]
    session_kwargs: NotRequired[dict[str, Any] | None]
    httpx_client_factory: NotRequired[Callable[..., Any] | None]
    auth: NotRequired[Any]


class StreamableHttpConnection(TypedDict):
    transport: Literal["streamable_http", "streamable-http", "http"]
    url: str
    headers: NotRequired[dict[str, Any] | None]
    timeout: NotRequired[float | timedelta]
    sse_read_timeout: NotRequired[float | timedelta]
    terminate_on_close: NotRequired[bool]
    session_kwargs: NotRequired[dict[str, Any] | None]
    httpx_client_factory: NotRequired[Callable[..., Any] | None]
    auth: NotRequired[Any]


class WebsocketConnection(TypedDict):
    transport: Literal["websocket"]
    url: str
    session_kwargs: NotRequired[dict[str, Any] | None]


class InProcessConnection(TypedDict):
    """mcpbridge's own: an `MCPServer` object run in this process (tests, embedded servers)."""

    transport: Literal["in_process"]
    server: Any


Connection = StdioConnection | SSEConnection | StreamableHttpConnection | WebsocketConnection | InProcessConnection

_HTTP = {"streamable_http", "streamable-http", "http"}
_IGNORED = {"terminate_on_close"}
"""Accepted and not needed: mcpbridge always ends its HTTP sessions when it closes."""
_DEFAULTS = {"encoding": "utf-8", "encoding_error_handler": "strict"}
"""Accepted with their default value only: stdio servers speak strict UTF-8."""


def server_config(name: str, connection: Mapping[str, Any]) -> dict[str, Any]:
    """The mcpbridge server table for one connection dict; a ValueError names what cannot be
    carried over."""
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
        raise ValueError(
            f"server {name!r}: WebSocket servers cannot be reached (mcp 2.x has no WebSocket client); "
            "serve the server over streamable HTTP ('http') or SSE ('sse')"
        )
    if transport == "stdio":
        for key in ("command", "args"):
            if key not in given:
                raise ValueError(f"'{key}' parameter is required for stdio connection (server {name!r})")
        if given.get("cwd") is not None:
            given["cwd"] = str(given["cwd"])
        return _drop_none(given)
    if transport in _HTTP or transport == "sse":
        if "url" not in given:
            raise ValueError(f"'url' parameter is required for {transport} connection (server {name!r})")
        table = _drop_none(given)
        if transport == "sse":
            table["transport"] = "sse"
        if "httpx_client_factory" in table:
            table["http_client"] = table.pop("httpx_client_factory")
        if "timeout" in table:
            table["connect_timeout"] = _seconds(table.pop("timeout"))
        if "sse_read_timeout" in table:
            table["timeout"] = _seconds(table.pop("sse_read_timeout"))
        return table
    if transport == "in_process":
        return _drop_none(given)
    raise ValueError(
        f"Unsupported transport: {transport} (server {name!r}). Must be one of: 'stdio', 'sse', 'http', 'in_process'"
    )


def _seconds(value: float | timedelta) -> float:
    return value.total_seconds() if isinstance(value, timedelta) else float(value)


def _drop_none(table: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in table.items() if value is not None}
