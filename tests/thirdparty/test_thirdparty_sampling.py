"""npm `@modelcontextprotocol/server-everything` (legacy protocol, stdio and streamable HTTP) asks the client's
model through its `trigger-sampling-request` tool; mcpbridge-sampling answers with a chat
model mid-call, capping the tokens the server asks for."""

from __future__ import annotations

from typing import Any

import mcpbridge_sampling
import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from mcpbridge import MCPBridge
from tests.plugins.sampling.recording import RecordingChatModel

from .support import invoke, text, tools_of

SAMPLING_TOOL = "trigger-sampling-request"


@pytest.fixture(params=["stdio", "http"])
def everything(request: pytest.FixtureRequest, everything_stdio: dict[str, Any]) -> dict[str, Any]:
    if request.param == "stdio":
        return everything_stdio
    config: dict[str, Any] = request.getfixturevalue("everything_http").config
    return config


async def test_the_model_answers_server_everything(everything: dict[str, Any]) -> None:
    model = RecordingChatModel(replies=["Paris."])
    async with MCPBridge(
        {"ev": everything},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": {"model": model, "servers": ["ev"], "max_tokens": 64}},
    ) as bridge:
        reply = await invoke(bridge, SAMPLING_TOOL, {"prompt": "capital of France?", "maxTokens": 500})
    assert reply.status == "success", text(reply)
    assert '"text": "Paris."' in text(reply)
    assert '"model": "recorder-1"' in text(reply)
    [(messages, options)] = model.calls
    assert messages == [
        SystemMessage("You are a helpful test server."),
        HumanMessage(f"Resource {SAMPLING_TOOL} context: capital of France?"),
    ]
    assert options == {"max_tokens": 64, "temperature": 0.7}


async def test_a_server_not_listed_gets_no_sampling_tool(everything_stdio: dict[str, Any]) -> None:
    """server-everything registers its sampling tool only for clients that declare sampling."""
    async with MCPBridge(
        {"ev": everything_stdio},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": {"model": RecordingChatModel()}},
    ) as bridge:
        assert SAMPLING_TOOL not in await tools_of(bridge)
