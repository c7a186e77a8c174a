"""End to end: a header that HTTP cannot carry, set by any interceptor, ends that call with an
error ToolMessage naming the header (never its value) while another user's call on the same
streamable-HTTP session succeeds, and no log line carries the value (issue 14, point 4).

NEEDS THE CORE WIRING: `Connection.call_tool` must call
`mcpbridge._base.tool_errors.check_headers(self.name, request.headers)` before the request reaches
the transport. Until then these tests fail (the bad header breaks the shared session).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import make_runtime, make_tool_call
from tests.helpers.waiting import until

SECRET = "TOPSECRET-e2e-91b3"

BAD = {
    "non-ASCII": f"Jos\u00e9-{SECRET}",
    "trailing space": f"{SECRET} ",
    "leading space": f" {SECRET}",
    "vertical tab": f"{SECRET}\x0b",
    "form feed": f"{SECRET}\x0c",
    "SOH": f"{SECRET}\x01",
    "DEL": f"{SECRET}\x7f",
    "CRLF": f"{SECRET}\r\nx-evil: 1",
    "lone surrogate": f"{SECRET}\ud800",
}


async def from_context(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """A user's interceptor that copies `context["user"]` into x-user-id unchecked."""
    context = request.runtime.context if request.runtime is not None else None
    if isinstance(context, dict) and "user" in context:
        request = request.override(headers={"x-user-id": context["user"]})
    return await handler(request)


async def _call(tools: dict[str, Any], name: str, args: dict[str, Any], user: str | None) -> Any:
    tool = tools[name]
    runtime = make_runtime({"user": user} if user is not None else {})
    return await tool.ainvoke(make_tool_call(tool, args, runtime=runtime))


@pytest.mark.parametrize("mode", ["legacy", "modern"])
@pytest.mark.parametrize(("why", "value"), BAD.items(), ids=list(BAD))
async def test_bad_header_is_an_error_message_and_the_bystander_succeeds(
    http_url: str, mode: str, why: str, value: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    bridge = MCPBridge({"crm": {"url": http_url, "mode": mode}}, interceptors=[from_context], plugins=[])
    async with bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        session = await bridge.session("crm")
        bystander = asyncio.create_task(_call(tools, "slow", {"seconds": 0.3}, "bob"))
        await until(lambda: bool(bridge.calls_in_flight("crm")), "the bystander's call in flight on the shared session")
        bad = await _call(tools, "whoami", {}, value)
        done = await bystander
        after = await _call(tools, "whoami", {}, "carol")
        assert await bridge.session("crm") is session, "the shared session was reopened"
    assert bad.status == "error", bad.content
    assert "'x-user-id'" in str(bad.content)
    assert "the server was not called" in str(bad.content)
    assert SECRET not in str(bad.content)
    assert done.status == "success"
    assert done.content[0]["text"] == "done"
    assert after.status == "success"
    assert after.content[0]["text"] == "carol"
    assert SECRET not in caplog.text
