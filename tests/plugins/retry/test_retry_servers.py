"""Retries against real failing servers: a stdio server that dies mid-call, one that hangs
past its timeout, and an HTTP server that answers 503."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import mcpbridge_headers
import mcpbridge_retry
import pytest

from mcpbridge import MCPBridge, MCPTool, ServerConnectionError, Settings, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import make_runtime, make_tool_call, serve_http
from tests.helpers import ROOT
from tests.plugins.retry.servers import Flaky, calls

FAST = {"initial": 0.01, "max": 0.05}


def dying_server(state: Path) -> dict[str, Any]:
    return {"command": sys.executable, "args": ["-m", "tests.plugins.retry.servers", str(state)], "cwd": str(ROOT)}


class Agentless:
    """Calls tools as an agent would, with the tools of one listing (so a call never lists,
    and so never reconnects, on its own)."""

    def __init__(self, bridge: MCPBridge) -> None:
        self.bridge = bridge
        self.tools: dict[str, MCPTool] = {}

    async def __call__(self, name: str, args: Mapping[str, Any], runtime: Any = None) -> Any:
        if not self.tools:
            self.tools = {t.name: t for t in await self.bridge.list_tools()}
        tool = self.tools[name]
        return await tool.ainvoke(make_tool_call(tool, args, runtime=runtime))


def retry_entries(message: Any) -> list[dict[str, Any]]:
    return [entry for entry in message.artifact if entry["type"] == "mcpbridge_retry"]


async def test_read_only_call_on_a_dying_stdio_server_reconnects_and_succeeds(tmp_path: Path) -> None:
    async with MCPBridge(
        {"db": dying_server(tmp_path)}, plugins=[mcpbridge_retry], plugin_settings={"retry": FAST}
    ) as bridge:
        invoke = Agentless(bridge)
        first = await invoke("lookup", {"key": "a"})
        (tmp_path / "die-lookup").touch()
        message = await invoke("lookup", {"key": "b"})
    [(_, pid1), (_, dead), (_, pid2)] = calls(tmp_path)
    assert first.content[0]["text"] == f"a@{pid1}"
    assert dead == pid1 != pid2
    assert message.status == "success"
    assert message.content[0]["text"] == f"b@{pid2}"
    assert retry_entries(message) == [{"type": "mcpbridge_retry", "attempts": 2}]


async def test_destructive_call_is_not_repeated_and_the_error_says_why(tmp_path: Path) -> None:
    async with MCPBridge(
        {"db": dying_server(tmp_path)},
        plugins=[mcpbridge_retry],
        plugin_settings={"retry": FAST},
        handle_transport_errors=True,
    ) as bridge:
        invoke = Agentless(bridge)
        (tmp_path / "die-delete_record").touch()
        message = await invoke("delete_record", {"key": "k"})
        assert message.status == "error"
        assert "not retried: MCP tool 'delete_record' on server 'db' is not annotated readOnlyHint" in message.content
        assert (
            'add the rule `{ server = "db", tool = "delete_record", idempotent = true }` to [plugins.retry] rules'
            in message.content
        )
        assert retry_entries(message) == [{"type": "mcpbridge_retry", "attempts": 1}]
        assert [tool for tool, _ in calls(tmp_path)] == ["delete_record"]

        # A call that never reached the server (its connection could not be opened) is
        # safe to repeat for any tool: the server refuses to start once, then works.
        (tmp_path / "refuse-start").touch()
        again = await invoke("delete_record", {"key": "k"})
    assert again.status == "success"
    assert retry_entries(again) == [{"type": "mcpbridge_retry", "attempts": 2}]
    assert [tool for tool, _ in calls(tmp_path)] == ["delete_record", "delete_record"]


async def test_without_handle_transport_errors_the_final_error_is_raised_with_its_attempts(tmp_path: Path) -> None:
    settings = {"retry": {**FAST, "attempts": 2}}
    async with MCPBridge({"db": dying_server(tmp_path)}, plugins=[mcpbridge_retry], plugin_settings=settings) as bridge:
        invoke = Agentless(bridge)
        await invoke("lookup", {"key": "warm"})
        (tmp_path / "die-lookup").touch()
        (tmp_path / "refuse-start").touch()
        with pytest.raises(ServerConnectionError, match=r"server 'db' is unreachable: ") as error:
            await invoke("lookup", {"key": "x"})
    # The same exception, its type and attributes kept, with why it is final as a note.
    assert error.value.__notes__ == ["gave up after 2 attempts"]
    assert error.value.message().endswith(" (gave up after 2 attempts)")
    assert error.value.server_name == "db"


async def test_timeouts_of_a_flaky_server_are_retried_with_backoff_and_reported() -> None:
    flaky = Flaky(k=2)
    events: list[tuple[str, dict[str, Any]]] = []

    async def listen(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        def observer(event: str, data: Mapping[str, Any]) -> None:
            events.append((event, dict(data)))

        return await handler(request.override(observers=(*request.observers, observer)))

    bridge = MCPBridge(
        {"reports": {"server": flaky.server, "timeout": 0.2}},
        plugins=[mcpbridge_retry],
        interceptors=[listen],
        settings=Settings(plugins={"order": ["interceptors"]}),  # the listener outside retry
        plugin_settings={"retry": {"initial": 0.05, "max": 0.1}},
    )
    async with bridge:
        invoke = Agentless(bridge)
        message = await invoke("read_report", {"name": "q3"})
    assert message.status == "success"
    assert message.content[0]["text"] == "report q3"
    assert retry_entries(message) == [{"type": "mcpbridge_retry", "attempts": 3}]
    assert flaky.calls["read_report"] == 3
    assert [(event, data["attempt"]) for event, data in events] == [("retry.attempt", 2), ("retry.attempt", 3)]
    assert "timed out after 0.2 s" in events[0][1]["error"]
    assert all(0.05 <= data["delay"] <= 0.1 for _, data in events)


async def test_non_idempotent_timeout_is_retried_only_when_config_says_so() -> None:
    for idempotent, expected in ((None, 1), (True, 2)):
        flaky = Flaky(k=1)
        rules = [{"server": "reports", "tool": "write_report", "idempotent": True}] if idempotent else []
        bridge = MCPBridge(
            {"reports": {"server": flaky.server, "timeout": 0.2}},
            plugins=[mcpbridge_retry],
            tool_name_prefix=True,  # policies use the MCP tool name, never the display name
            plugin_settings={"retry": {**FAST, "rules": rules}},
        )
        async with bridge:
            invoke = Agentless(bridge)
            message = await invoke("reports_write_report", {"name": "q3"})
        assert flaky.calls["write_report"] == expected
        assert retry_entries(message) == [{"type": "mcpbridge_retry", "attempts": expected}]
        assert message.status == ("success" if idempotent else "error")
        if not idempotent:
            assert "timed out after 0.2 s" in message.content
            assert "not retried: MCP tool 'write_report'" in message.content


async def test_http_503_error_results_retry_by_pattern_and_resend_headers() -> None:
    flaky = Flaky(k=0)
    seen: list[str | None] = []
    failures = [2]
    base, server, thread = serve_http(failing_tool_calls(flaky.server.streamable_http_app(), failures, seen))
    try:
        bridge = MCPBridge(
            {"crm": {"url": f"{base}/mcp"}},
            plugins=[mcpbridge_retry, mcpbridge_headers],
            plugin_settings={
                "retry": {**FAST, "error_patterns": ["HTTP 50[234] "]},
                "headers": {"servers": {"crm": {"x-user-id": "context.user_id"}}},
            },
        )
        async with bridge:
            invoke = Agentless(bridge)
            message = await invoke("account", {}, runtime=make_runtime({"user_id": "u-42"}))
            failures[0] = 5
            given_up = await invoke("account", {}, runtime=make_runtime({"user_id": "u-43"}))
    finally:
        server.should_exit = True
        thread.join(timeout=5)
    assert message.status == "success"
    assert message.content[0]["text"] == "u-42"
    assert retry_entries(message) == [{"type": "mcpbridge_retry", "attempts": 3}]
    # Every attempt went through the headers interceptor again.
    assert seen[:3] == ["u-42", "u-42", "u-42"]
    assert given_up.status == "error"
    assert "gave up after 3 attempts" in given_up.content[-1]["text"]
    assert retry_entries(given_up) == [{"type": "mcpbridge_retry", "attempts": 3}]
    assert flaky.calls["account"] == 1


def failing_tool_calls(app: Any, failures: list[int], seen: list[str | None]) -> Any:
    """Answer 503 to the next `failures[0]` tools/call POSTs, recording each one's x-user-id."""

    async def asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if b'"tools/call"' in body:
            seen.append(dict(scope["headers"]).get(b"x-user-id", b"").decode() or None)
            if failures[0] > 0:
                failures[0] -= 1
                await send(
                    {"type": "http.response.start", "status": 503, "headers": [(b"content-type", b"text/plain")]}
                )
                return await send({"type": "http.response.body", "body": b"overloaded"})
        replayed = False

        async def replay() -> dict[str, Any]:
            nonlocal replayed
            if replayed:
                return dict(await receive())
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        return await app(scope, replay, send)

    return asgi
