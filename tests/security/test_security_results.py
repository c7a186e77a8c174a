"""Arbitrary server results (valid MCP or not) thrown at a shared session while a bystander
call from another user runs on it: the bystander always succeeds, the caller always gets a
ToolMessage at once, nothing hangs."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge
from mcpbridge.testing import serving
from tests.helpers import ROOT
from tests.servers import raw_jsonrpc

CALL_LIMIT_S = 10


@contextlib.contextmanager
def shared_session(transport: str) -> Iterator[MCPBridge]:
    if transport == "stdio":
        server = {"command": sys.executable, "args": ["-m", "tests.servers.raw_jsonrpc"], "cwd": str(ROOT)}
        with MCPBridge({"raw": {**server, "mode": "legacy"}}, plugins=[], timeout=CALL_LIMIT_S) as bridge:
            yield bridge
    else:
        with (
            serving(raw_jsonrpc.http_app()) as url,
            MCPBridge({"raw": {"url": url, "mode": "legacy"}}, plugins=[], timeout=CALL_LIMIT_S) as bridge,
        ):
            yield bridge


@pytest.fixture(scope="module", params=["stdio", "http"])
def tools(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    with shared_session(request.param) as bridge:
        yield {tool.name: tool for tool in bridge.list_tools_sync()}


@pytest.fixture(scope="module")
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=4) as executor:
        yield executor


_text = st.text(max_size=12)
_leaf = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | _text
_json = st.recursive(
    _leaf, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4), max_leaves=12
)
_block = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "image", "audio", "resource", "resource_link", "hologram", 5])},
    optional={"text": _json, "data": _json, "mimeType": _json, "uri": _json, "name": _json, "resource": _json},
)
_results = _json | st.fixed_dictionaries(
    {"content": st.lists(_block, max_size=3) | _json},
    optional={"isError": _json, "structuredContent": _json, "_meta": _json},
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(result=_results)
def test_arbitrary_results_never_hurt_a_bystander(tools: dict[str, Any], pool: ThreadPoolExecutor, result: Any) -> None:
    reply, echo = tools["reply"], tools["echo"]
    bystander = pool.submit(echo.invoke, {"type": "tool_call", "name": "echo", "args": {"text": "b"}, "id": "b"})
    hostile = pool.submit(reply.invoke, {"type": "tool_call", "name": "reply", "args": {"result": result}, "id": "h"})
    message = hostile.result(timeout=CALL_LIMIT_S)
    assert isinstance(message, ToolMessage)
    if message.status == "error":
        texts = message.content if isinstance(message.content, list) else [{"text": message.content}]
        assert any("server 'raw'" in block.get("text", "") for block in texts)
    answered = bystander.result(timeout=CALL_LIMIT_S)
    assert answered.status == "success"
    assert answered.content[0]["text"] == "b"
