"""A server that echoes a secret the bridge knows from its config as it fails (a stdio
server printing its `env` to stderr before it dies, an HTTP server quoting the credential
it refused): the secret reaches no outward text. Every sink is checked for real: the
exception's str and repr, the error ToolMessage through a LangGraph agent, the OpenTelemetry
span (exported by the SDK), the events plugin's event, the logs and the CLI.

Run as a script, this module is the stdio server."""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import mcp.types as types
import mcpbridge_events
import mcpbridge_otel
import pytest
from langchain_core.messages import ToolMessage
from mcp import MCPError
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer
from mcpbridge_cli import main as cli

from mcpbridge import MCPBridge, ServerConnectionError, Settings, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import make_agent, serving, tool_call_turn
from tests.helpers import ROOT, stdio_config
from tests.helpers.telemetry import Telemetry, telemetry, telemetry_session
from tests.plugins.events.events_support import lifecycle

__all__ = ["telemetry", "telemetry_session"]  # the otel tests' exporter, as fixtures here too

SECRET = "sk-live-5f3c9a1e7b2d4086"
"""The stdio server's `API_TOKEN`, from the bridge's config."""
TOKEN = "hdr-7c1e9b3a5d2f8e64"
"""The HTTP server's bearer token, a static header in the bridge's config."""
MODULE = "tests.security.test_security_secret_echo"


def build() -> MCPServer:
    server = MCPServer("leaky")

    @server.tool()
    def leak() -> str:
        """Print the configuration to stderr, then die."""
        sys.stderr.write(f"starting with API_TOKEN={os.environ['API_TOKEN']}\nfatal: giving up\n")
        sys.stderr.flush()
        os._exit(2)

    return server


def refusing(quoted: Callable[[Any], str] = lambda ctx: f"Bearer {TOKEN}") -> Server[Any]:
    """An HTTP server whose every call is a JSON-RPC error quoting a credential it refused:
    `quoted(ctx)` (by default `TOKEN`'s, whatever the call carried)."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="check", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        raise MCPError(-32000, f"credential {quoted(ctx)!r} was revoked")

    return Server("refusing", on_list_tools=list_tools, on_call_tool=call_tool)


def leaky_config(**extra: Any) -> dict[str, Any]:
    return stdio_config(MODULE, env={"API_TOKEN": SECRET}, **extra)


def assert_hidden(text: str) -> None:
    assert SECRET not in text
    assert TOKEN not in text


class Raised:
    """A user's interceptor: keeps the exceptions that pass through it."""

    def __init__(self) -> None:
        self.errors: list[Exception] = []

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        try:
            return await handler(request)
        except Exception as exc:
            self.errors.append(exc)
            raise


async def test_no_outward_text_shows_it(telemetry: Telemetry, caplog: pytest.LogCaptureFixture) -> None:
    """The exception, the model's ToolMessage, the span, the events and the logs."""
    caplog.set_level(logging.DEBUG, logger="mcpbridge")
    raised = Raised()
    with serving(refusing().streamable_http_app()) as url:
        servers = {"leaky": leaky_config(), "refusing": {"url": url, "headers": {"Authorization": f"Bearer {TOKEN}"}}}
        async with MCPBridge(
            servers, plugins=[mcpbridge_otel, mcpbridge_events], interceptors=[raised], handle_transport_errors=True
        ) as bridge:
            graph = make_agent([tool_call_turn(("leak", {}), ("check", {}))], await bridge.list_tools())
            config = {"configurable": {"thread_id": "t1"}}
            chunks = [c async for c in graph.astream({"messages": [("user", "go")]}, config, stream_mode=["custom"])]
            state = await graph.aget_state(config)
    (error,) = raised.errors
    assert isinstance(error, ServerConnectionError)
    assert "API_TOKEN=***" in str(error)
    assert "fatal: giving up" in str(error)
    for text in (str(error), repr(error), error.message(), str(error.cause), repr(error.args)):
        assert_hidden(text)

    answers = {m.name: m for m in state.values["messages"] if isinstance(m, ToolMessage)}
    assert answers["leak"].status == "error"
    assert "API_TOKEN=***" in str(answers["leak"].content)
    assert answers["check"].status == "error"
    assert "credential '***' was revoked" in str(answers["check"].content)
    for message in answers.values():
        assert_hidden(json.dumps(message.content, default=str) + json.dumps(message.artifact, default=str))

    spans = [s for s in telemetry.spans() if s.name.startswith("execute_tool")]
    assert sorted(s.name for s in spans) == ["execute_tool check", "execute_tool leak"]
    leak_span = next(s for s in spans if s.name == "execute_tool leak")
    assert any(e.name == "exception" for e in leak_span.events)
    for span in spans:
        assert_hidden(span.to_json())

    events = lifecycle(chunks)
    errors = {e["tool_call_id"]: e["error"] for e in events if e["event"] == "error"}
    assert "API_TOKEN=***" in errors["call-1"]
    assert_hidden(json.dumps(events, default=str))

    assert any("API_TOKEN=***" in r.getMessage() for r in caplog.records)  # the stderr line, logged
    for record in caplog.records:
        assert_hidden(record.getMessage() + (record.exc_text or ""))


async def test_a_span_never_shows_it_from_the_cause_of_an_error(telemetry: Telemetry) -> None:
    """A transport error that quotes the credential is chained under the ServerConnectionError
    (`raise ... from`): the span's stacktrace, which prints the chain, hides it too."""

    async def transport_fails(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        try:
            raise OSError(f"POST refused for 'Bearer {TOKEN}'")
        except OSError as exc:
            raise ServerConnectionError(request.server_name, exc, name=request.name) from exc

    with serving(refusing().streamable_http_app()) as url:
        servers = {"refusing": {"url": url, "headers": {"Authorization": f"Bearer {TOKEN}"}}}
        settings = Settings(servers=servers, plugins={"order": ["otel", "interceptors"]})
        async with MCPBridge(settings=settings, plugins=[mcpbridge_otel], interceptors=[transport_fails]) as bridge:
            with pytest.raises(ServerConnectionError):
                await bridge.call_tool("refusing", "check")
    (span,) = [s for s in telemetry.spans() if s.name == "execute_tool check"]
    (event,) = [e for e in span.events if e.name == "exception"]
    assert "The above exception was the direct cause" in str((event.attributes or {})["exception.stacktrace"])
    assert_hidden(span.to_json())


def test_the_cli_never_prints_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "mcpbridge.toml"
    server = leaky_config()
    config.write_text(
        f"[servers.leaky]\ncommand = {json.dumps(server['command'])}\nargs = {json.dumps(server['args'])}\n"
        f"cwd = {json.dumps(str(ROOT))}\nenv = {{ API_TOKEN = {json.dumps(SECRET)} }}\n"
        "[plugins]\nautoload = false\n"
    )
    monkeypatch.chdir(tmp_path)
    assert cli(["call", "leaky", "leak", "--config", str(config)]) == 1
    printed = capsys.readouterr()
    assert "API_TOKEN=***" in printed.err
    assert_hidden(printed.out + printed.err)


if __name__ == "__main__":
    build().run()
