"""Missing values, providers, redaction, and headers refused for servers that cannot carry them."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import mcpbridge_headers
import pytest

from mcpbridge import ConfigError, MCPBridge, Settings, ToolCallError, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import make_runtime, make_tool_call
from tests.helpers import stdio_config
from tests.helpers.headers import RecordingServer
from tests.servers import basic

SECRET = "tok-7f3a9c-very-secret"
UNUSED_URL = "http://127.0.0.1:9/mcp"  # never connected: these bridges fail while being built


def tenant_from_user(request: ToolCallRequest) -> Mapping[str, str | None]:
    """A provider referenced from TOML as "tests.plugins.headers.test_headers_policy:tenant_from_user"."""
    user = request.runtime.context["user_id"]
    return {"x-provided": f"tenant-of-{user}", "x-static": None}


def bridge_for(crm: RecordingServer, **plugin: Any) -> MCPBridge:
    return MCPBridge({"crm": {"url": crm.url}}, plugins=[mcpbridge_headers], plugin_settings={"headers": plugin})


async def call(bridge: MCPBridge, tool: str, context: Any = None, *, runtime: bool = True) -> Any:
    [found] = [t for t in await bridge.list_tools() if t.name == tool]
    return await found.ainvoke(make_tool_call(found, {}, runtime=make_runtime(context) if runtime else None))


async def test_missing_value_is_an_error_and_the_server_is_not_called(crm: RecordingServer) -> None:
    async with bridge_for(crm, servers={"crm": {"x-user-id": "context.user_id"}}) as bridge:
        message = await call(bridge, "whoami", {"tenant": "acme"})
        no_runtime = await call(bridge, "whoami", runtime=False)
        [whoami] = [t for t in await bridge.list_tools() if t.name == "whoami"]
        with pytest.raises(mcpbridge_headers.MissingHeaderValue) as error:
            await whoami.ainvoke({})  # plain arguments: the error is raised, not a ToolMessage
    assert isinstance(error.value, ToolCallError)
    assert (error.value.server_name, error.value.name) == ("crm", "whoami")
    assert message.status == "error"
    assert "header 'x-user-id'" in message.content
    assert "`context.user_id`" in message.content
    assert "has no value for 'user_id'" in message.content
    assert "no LangGraph runtime" in no_runtime.content
    assert crm.tool_calls == 0


async def test_on_missing_skip_calls_without_the_header(crm: RecordingServer) -> None:
    servers = {"crm": {"x-user-id": "context.user_id", "x-tenant": {"source": "context.tenant", "on_missing": "error"}}}
    async with bridge_for(crm, servers=servers, on_missing="skip") as bridge:
        skipped = await call(bridge, "headers_seen", {"tenant": "acme"})
        refused = await call(bridge, "headers_seen", {"user_id": "u1"})
    assert json.loads(skipped.content[0]["text"]) == {"x-tenant": "acme"}
    assert refused.status == "error"
    assert "header 'x-tenant'" in refused.content
    assert crm.tool_calls == 1


async def test_python_provider_sync_and_async(crm: RecordingServer) -> None:
    async def provider(request: ToolCallRequest) -> dict[str, str]:
        return {"x-provided": f"{request.name}:{request.runtime.context['user_id']}", "x-user-id": "overridden"}

    async with bridge_for(
        crm, servers={"crm": {"x-user-id": "context.user_id"}}, providers={"crm": provider}
    ) as bridge:
        message = await call(bridge, "headers_seen", {"user_id": "u1"})
    assert json.loads(message.content[0]["text"]) == {"x-provided": "headers_seen:u1", "x-user-id": "overridden"}


async def test_provider_named_in_a_config_file(crm: RecordingServer, tmp_path: Path) -> None:
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        f"""
[servers.crm]
url = "{crm.url}"

[plugins.headers.servers.crm]
x-static = "fixed"

[plugins.headers.providers]
crm = "tests.plugins.headers.test_headers_policy:tenant_from_user"
"""
    )
    async with MCPBridge.from_config(config, plugins=[mcpbridge_headers]) as bridge:
        message = await call(bridge, "headers_seen", {"user_id": "u2"})
    # The provider's None leaves x-static as configured.
    assert json.loads(message.content[0]["text"]) == {"x-provided": "tenant-of-u2", "x-static": "fixed"}


async def test_header_names_ignore_case_when_merged(crm: RecordingServer) -> None:
    async def outer(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(headers={"X-User-Id": "outer"}))

    bridge = MCPBridge(
        {"crm": {"url": crm.url}},
        plugins=[mcpbridge_headers],
        interceptors=[outer],
        settings=Settings(plugins={"order": ["interceptors"]}),  # `outer` outside the plugin
        plugin_settings={
            "headers": {
                "servers": {"crm": {"x-user-id": "configured", "x-static": "configured"}},
                "providers": {"crm": lambda request: {"X-Static": "provided"}},
            }
        },
    )
    async with bridge:
        message = await call(bridge, "headers_seen", {})
    assert message.status == "success"
    # Each header once: the provider replaced the configured one and the outer one won.
    assert [r for r in crm.requests if "x-static" in r] == [{"x-static": "provided", "x-user-id": "outer"}]


async def test_a_header_source_reads_a_header_already_on_the_call(crm: RecordingServer) -> None:
    async def outer(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request.override(headers={"X-Tenant": "acme"}))

    bridge = MCPBridge(
        {"crm": {"url": crm.url}},
        plugins=[mcpbridge_headers],
        interceptors=[outer],
        settings=Settings(plugins={"order": ["interceptors"]}),  # `outer` outside the plugin
        plugin_settings={"headers": {"servers": {"crm": {"x-account": "header.x-tenant"}}}},
    )
    async with bridge:
        message = await call(bridge, "headers_seen", {})
    assert json.loads(message.content[0]["text"]) == {"x-account": "acme", "x-tenant": "acme"}


async def test_provider_header_names_are_checked(crm: RecordingServer) -> None:
    async with bridge_for(crm, providers={"crm": lambda request: {"x user": "u1"}}) as bridge:
        message = await call(bridge, "whoami", {})
    assert message.status == "error"
    assert "returned the header name 'x user', which is not a valid HTTP header name" in message.content
    assert crm.tool_calls == 0


async def test_values_are_redacted_in_logs_and_errors(crm: RecordingServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    async with bridge_for(crm, servers={"crm": {"authorization": "context.token"}}) as bridge:
        sent = await call(bridge, "whoami", {"token": SECRET})
        bad = await call(bridge, "whoami", {"token": SECRET + "\r\nx-evil: 1"})
    assert sent.status == "success"
    assert "crm/whoami sends {'authorization': '<redacted 22 chars>'}" in caplog.text
    assert bad.status == "error"
    assert "line break" in bad.content
    assert SECRET not in caplog.text
    assert SECRET not in bad.content
    assert crm.tool_calls == 1


def test_headers_for_a_stdio_or_inprocess_server_fail_at_build() -> None:
    for name, server in (("local", stdio_config()), ("inproc", {"server": basic.build()})):
        with pytest.raises(ConfigError, match=rf"server '{name}', a (stdio|inprocess) server, which carries no HTTP"):
            MCPBridge(
                {name: server},
                plugins=[mcpbridge_headers],
                plugin_settings={"headers": {"servers": {name: {"x-user-id": "context.user_id"}}}},
            )


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"servers": {"nope": {"x-a": "b"}}}, "server 'nope' is not configured; configured servers: crm"),
        ({"servers": {"crm": {"x a": "b"}}}, "`plugins.headers.servers.crm`: header name 'x a' is not a valid HTTP"),
        ({"servers": {"crm": {"x-a": "context."}}}, "`plugins.headers.servers.crm.x-a.source`: 'context.' is not a"),
        ({"servers": {"crm": {"x-a": "header.x.y"}}}, "'header.x.y' is not a value source"),
        ({"servers": {"crm": {"x-a": "env:MCPBRIDGE_TEST_UNSET_VAR"}}}, "'MCPBRIDGE_TEST_UNSET_VAR', which is not set"),
        ({"servers": {"crm": {"x-a": {"source": "b", "on_missing": "never"}}}}, "`plugins.headers.servers.crm.x-a"),
        ({"servers": {"crm": {"X-A": "1", "x-a": "2"}}}, "sets header 'x-a' twice"),
        ({"providers": {"nope": "json:dumps"}}, "server 'nope' is not configured"),
        ({"on_missing": "ignore"}, r"`plugins.headers.on_missing`"),
        ({"providers": {"crm": "no_such_module:f"}}, r"`plugins.headers.providers.crm`"),
        ({"header": {}}, r"`plugins.headers.header`: unknown key"),
    ],
)
def test_config_errors_name_the_problem(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        MCPBridge(
            {"crm": {"url": "http://127.0.0.1:9/mcp"}},
            plugins=[mcpbridge_headers],
            plugin_settings={"headers": settings},
        )


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (f"Jos\u00e9-{SECRET}", "non-ASCII"),
        (f"{SECRET} ", "starts or ends with a space or tab"),
        (f"{SECRET}\x0b", "vertical tab"),
        (f"{SECRET}\x0c", "form feed"),
        (f"{SECRET}\x01", "U+0001"),
        (f"{SECRET}\x7f", "U+007F"),
    ],
)
async def test_values_outside_rfc_9110_are_refused_like_the_core(
    crm: RecordingServer, caplog: pytest.LogCaptureFixture, value: str, problem: str
) -> None:
    caplog.set_level(logging.DEBUG)
    async with bridge_for(crm, servers={"crm": {"x-user-id": "context.user_id"}}) as bridge:
        bad = await call(bridge, "whoami", {"user_id": value})
        good = await call(bridge, "whoami", {"user_id": "u1"})
    assert bad.status == "error"
    assert "header 'x-user-id' from `context.user_id`" in bad.content
    assert problem in bad.content
    assert SECRET not in bad.content + caplog.text
    assert good.status == "success"
    assert crm.tool_calls == 1


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({"x-a": "literal:bad "}, r"servers.crm`: the value of header 'x-a' starts or ends"),
        ({"x-a": "Jos\u00e9"}, "non-ASCII"),
        ({"content-length": "context.n"}, "set by the transport itself"),
        ({"Mcp-Session-Id": "context.n"}, "set by the transport itself"),
    ],
)
def test_configured_values_and_names_follow_the_core_rules(headers: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        MCPBridge(
            {"crm": {"url": UNUSED_URL}},
            plugins=[mcpbridge_headers],
            plugin_settings={"headers": {"servers": {"crm": headers}}},
        )


async def test_provider_values_and_reserved_names_are_checked(crm: RecordingServer) -> None:
    async with bridge_for(crm, providers={"crm": lambda request: {"x-user-id": "a\x0bb"}}) as bridge:
        bad_value = await call(bridge, "whoami", {})
    async with bridge_for(crm, providers={"crm": lambda request: {"Content-Length": "0"}}) as bridge:
        reserved = await call(bridge, "whoami", {})
    assert bad_value.status == "error"
    assert "vertical tab" in bad_value.content
    assert reserved.status == "error"
    assert "not a valid HTTP header name" in reserved.content
    assert crm.tool_calls == 0
