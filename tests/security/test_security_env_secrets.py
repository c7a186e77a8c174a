"""A value a server's config takes from the environment (`${NAME}`) is a secret wherever it
goes: a token in a stdio server's `args` that the server quotes as it fails, a key in a URL's
path that the HTTP client logs with every request and that a proxy quotes in its error page.
Every sink is checked for real: the raised error, the model's ToolMessage, the OpenTelemetry
span, the events plugin's events, every log record (the root logger at DEBUG, so the HTTP
client's own `HTTP Request:` lines too) and the CLI's output."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import mcpbridge_events
import mcpbridge_otel
import pytest
from langchain_core.messages import ToolMessage
from langchain_core.runnables import RunnableConfig
from mcpbridge_cli import main as cli
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from mcpbridge import AuthenticationError, MCPBridge, ServerConnectionError, load_settings, redact_text
from mcpbridge.testing import make_agent, serve_http, stdio_config, tool_call_turn
from tests.helpers import ROOT
from tests.helpers.telemetry import Telemetry, telemetry, telemetry_session
from tests.plugins.events.events_support import lifecycle
from tests.security.test_security_secret_echo import Raised, refusing

__all__ = ["telemetry", "telemetry_session"]  # the otel tests' exporter, as fixtures here too

GH_TOKEN = "ghp_4d9e1a7c3b5f8062e1d4"
"""`${GH_TOKEN}`: a stdio server's `--token` argument."""
KEY = "k3y-9b2e6d4a1c7f3058"
"""`${MCP_KEY}`: the path segment of a streamable HTTP server's URL."""
PASSPHRASE = "open sesame 5c8e2a7d"
"""`${PROXY_KEY}`: a URL path segment the HTTP client sends percent-encoded (`%20`)."""
ARGV_SERVER = "tests.security.argv_server"


def argv_config(*extra: str) -> dict[str, Any]:
    """The argv server over stdio, its token from the environment."""
    return stdio_config(ARGV_SERVER, "--token", "${GH_TOKEN}", *extra, cwd=str(ROOT))


def assert_hidden(text: str) -> None:
    for secret in (GH_TOKEN, KEY, PASSPHRASE, PASSPHRASE.replace(" ", "%20")):
        assert secret not in text


def assert_logs_hidden(caplog: pytest.LogCaptureFixture) -> None:
    for record in caplog.records:
        assert_hidden(record.getMessage() + (record.exc_text or ""))
    assert_hidden(caplog.text)


@pytest.fixture
def keyed_url(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A streamable HTTP server whose endpoint is `/mcp/<KEY>`; its one tool's error quotes the
    URL it was called on. Yields the URL as a config writes it, with `${MCP_KEY}`."""
    monkeypatch.setenv("MCP_KEY", KEY)
    served = serve_http(
        refusing(lambda ctx: str(ctx.request.url)).streamable_http_app(streamable_http_path=f"/mcp/{KEY}")
    )
    try:
        yield f"{served.base_url}/mcp/${{MCP_KEY}}"
    finally:
        served.stop()


async def test_a_token_in_stdio_args_stays_out_of_every_text(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, telemetry: Telemetry
) -> None:
    """The server prints its command line as it dies under a call: the error, the ToolMessage,
    the span, the events and the logged stderr line show `***` instead."""
    monkeypatch.setenv("GH_TOKEN", GH_TOKEN)
    caplog.set_level(logging.DEBUG)
    raised = Raised()
    plugins = [mcpbridge_otel, mcpbridge_events]
    servers = {"argv": argv_config()}
    async with MCPBridge(servers, plugins=plugins, interceptors=[raised], handle_transport_errors=True) as bridge:
        graph = make_agent([tool_call_turn(("crash", {}))], await bridge.list_tools())
        config: RunnableConfig = {"configurable": {"thread_id": "t1"}}
        chunks = [c async for c in graph.astream({"messages": [("user", "go")]}, config, stream_mode=["custom"])]
        state = await graph.aget_state(config)

    (error,) = raised.errors
    assert isinstance(error, ServerConnectionError)
    assert "started as --token ***" in str(error)
    for text in (str(error), repr(error), error.message(), str(error.cause), repr(error.args)):
        assert_hidden(text)

    (answer,) = [m for m in state.values["messages"] if isinstance(m, ToolMessage)]
    assert answer.status == "error"
    assert "started as --token ***" in str(answer.content)
    assert_hidden(json.dumps(answer.content, default=str) + json.dumps(answer.artifact, default=str))

    span = telemetry.one("execute_tool crash")
    assert any(e.name == "exception" for e in span.events)
    assert_hidden(span.to_json())

    events = lifecycle(chunks)
    assert "--token ***" in next(e["error"] for e in events if e["event"] == "error")
    assert_hidden(json.dumps(events, default=str))

    assert any("started as --token ***" in r.getMessage() for r in caplog.records)  # the stderr line, logged
    assert_logs_hidden(caplog)


async def test_a_token_in_stdio_args_stays_out_of_the_error_when_the_server_refuses_to_start(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("GH_TOKEN", GH_TOKEN)
    caplog.set_level(logging.DEBUG)
    async with MCPBridge({"argv": argv_config("--refuse")}) as bridge:
        with pytest.raises(ServerConnectionError) as raised:
            await bridge.list_tools()
    assert "the token *** was refused" in str(raised.value)
    assert_hidden(str(raised.value) + repr(raised.value))
    assert_logs_hidden(caplog)


async def test_a_key_in_the_url_path_stays_out_of_the_http_clients_log_and_the_toolmessage(
    keyed_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    async with MCPBridge({"keyed": {"url": keyed_url}}) as bridge:
        [tool] = await bridge.list_tools()
        answer = await tool.ainvoke({"type": "tool_call", "name": "check", "args": {}, "id": "c1"})
    assert answer.status == "error"
    assert "/mcp/***' was revoked" in str(answer.content)  # the server quoted the URL it was called on
    assert_hidden(str(answer.content))
    requests = [r.getMessage() for r in caplog.records if r.name == "httpx2" and "HTTP Request: POST" in r.getMessage()]
    assert requests
    assert all("/mcp/*** " in line for line in requests)
    assert_logs_hidden(caplog)


def _quoting_proxy(status: int) -> Starlette:
    """What a reverse proxy in front of a server that is down answers (502), or a server
    refusing a call without credentials (401, its challenge pointing at the resource's
    metadata): both quote the URL."""

    async def refuse(request: Request) -> PlainTextResponse:
        metadata = f'Bearer resource_metadata="{request.base_url}.well-known/oauth-protected-resource'
        metadata += f'{request.url.path}"'
        headers = {"www-authenticate": metadata} if status == 401 else {}
        return PlainTextResponse(f"refused {request.url}", status_code=status, headers=headers)

    return Starlette(routes=[Route("/{rest:path}", refuse, methods=["GET", "POST", "DELETE"])])


@pytest.mark.parametrize(("transport", "status"), [("http", 502), ("sse", 502), ("http", 401)])
async def test_a_key_in_the_url_path_stays_out_of_a_connection_error_quoting_it(
    transport: str, status: int, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """Both keys: one sent as it is, one the HTTP client percent-encodes (a space)."""
    monkeypatch.setenv("MCP_KEY", KEY)
    monkeypatch.setenv("PROXY_KEY", PASSPHRASE)
    caplog.set_level(logging.DEBUG)
    served = serve_http(_quoting_proxy(status))
    try:
        url = f"{served.base_url}/mcp/${{MCP_KEY}}/${{PROXY_KEY}}/sse"
        async with MCPBridge({"proxied": {"url": url, "transport": transport}}) as bridge:
            with pytest.raises(ServerConnectionError) as raised:
                await bridge.list_tools()
    finally:
        served.stop()
    error = raised.value
    assert f"HTTP {status}" in str(error)
    assert "/mcp/***/***/sse" in str(error)
    assert_hidden(str(error) + repr(error) + str(error.cause))
    if isinstance(error, AuthenticationError):
        assert error.challenge is not None
        assert "/mcp/***/***/sse" in error.challenge
        assert_hidden(error.challenge)
    assert_logs_hidden(caplog)


def test_the_cli_never_prints_a_token_from_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GH_TOKEN", GH_TOKEN)
    monkeypatch.chdir(tmp_path)
    for name, extra in (("crashing", []), ("refusing", ["--refuse"])):
        server = argv_config(*extra)
        (tmp_path / f"{name}.toml").write_text(
            f"[servers.argv]\ncommand = {json.dumps(server['command'])}\nargs = {json.dumps(server['args'])}\n"
            f"cwd = {json.dumps(server['cwd'])}\n[plugins]\nautoload = false\n"
        )
    assert cli(["call", "argv", "crash", "--config", str(tmp_path / "crashing.toml")]) == 1
    crashed = capsys.readouterr()
    assert "started as --token ***" in crashed.err
    assert cli(["tools", "--config", str(tmp_path / "refusing.toml")]) == 1
    refused = capsys.readouterr()
    assert "the token *** was refused" in refused.err
    assert_hidden(crashed.out + crashed.err + refused.out + refused.err)


def test_which_values_from_the_environment_are_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every value a server's table takes from the environment, but a short one (under 8
    characters) whose variable's name does not look secret; a `:-default` is the file's own
    text; a value only plugin settings take is not a server's."""
    taken = {
        "REGION": "eu-north-1",
        "WORKDIR": "/srv/agent-data-7",
        "DEPLOY": "staging-blue",
        "API_KEY": "x9q",
        "PORT": "8080",
        "MODE": "debug",
        "EMPTY": "",
        "PLUGIN_ONLY": "plugin-value-4e1d",
    }
    for name, value in taken.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("UNSET_THING", raising=False)
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        '[servers.s]\ncommand = "python"\n'
        'args = ["--region=${REGION}", "--key", "${API_KEY}", "--port", "${PORT}", "--mode", "${MODE}",'
        ' "${EMPTY}", "${UNSET_THING:-fallback-value-123}"]\n'
        'env = { TARGET = "${DEPLOY}" }\ncwd = "${WORKDIR}"\n'
        '[plugins.some]\nvalue = "${PLUGIN_ONLY}"\n'
    )
    secrets = load_settings(config).secret_values()
    assert {"eu-north-1", "/srv/agent-data-7", "staging-blue", "x9q"} <= secrets
    assert not {"8080", "debug", "", "fallback-value-123", "plugin-value-4e1d"} & secrets


def test_a_secret_is_hidden_in_the_percent_encoded_forms_the_http_client_sends() -> None:
    for secret in (PASSPHRASE, 'a"b<c>d`e{f}g|h', "naïve-secret-1"):
        path, query = httpx2.URL(f"http://h/mcp/{secret}/sse"), httpx2.URL("http://h/mcp", params={"k": secret})
        assert redact_text(f"POST {path}", [secret]) == "POST http://h/mcp/***/sse"
        assert redact_text(f"POST {query}", [secret]) == "POST http://h/mcp?k=***"
