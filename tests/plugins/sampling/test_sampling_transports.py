"""A chat model answers our server's sampling request over every transport and both
protocols: modern rounds through the interceptor, legacy mid-call requests through the
client's `sampling_callback`; the request reaches the model as LangChain messages with the
server's max tokens capped."""

from __future__ import annotations

from typing import Any

import mcpbridge_sampling
import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from mcpbridge import MCPBridge
from mcpbridge.testing import make_tool_call, stdio_config
from tests.servers import sampling_server

from .recording import RecordingChatModel


def server_config(transport: str, mode: str, url: str) -> dict[str, Any]:
    if transport == "inprocess":
        return {"server": sampling_server.build(), "mode": mode}
    if transport == "stdio":
        return stdio_config("tests.servers.sampling_server", mode=mode)
    return {"url": url, "mode": mode}


async def summarize(server: dict[str, Any], model: RecordingChatModel, **settings: Any) -> Any:
    async with MCPBridge(
        {"notes": server},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": {"model": model, "servers": ["notes"], **settings}},
    ) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        return await tools["summarize"].ainvoke(make_tool_call(tools["summarize"], {"text": "a long text"}))


@pytest.mark.parametrize("mode", ["modern", "legacy"])
@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_the_model_answers_the_server(
    transport: str, mode: str, sampling_url: str, recorder: RecordingChatModel
) -> None:
    message = await summarize(server_config(transport, mode, sampling_url), recorder)
    assert message.status == "success", message.content
    assert message.content[0]["text"] == "summary by recorder-1: a one-line summary"
    [(messages, options)] = recorder.calls
    assert messages == [SystemMessage("You summarize in one line."), HumanMessage("Summarize: a long text")]
    # The server asked for 4000 tokens; the default cap is 1024.
    assert options == {"max_tokens": 1024, "temperature": 0.2}
    answered = [entry for entry in message.artifact if entry["type"] == mcpbridge_sampling.ARTIFACT_TYPE]
    assert len(answered) == (1 if mode == "modern" else 0)  # legacy requests are answered outside the call


async def test_a_lower_request_than_the_cap_is_kept(recorder: RecordingChatModel) -> None:
    await summarize(server_config("inprocess", "modern", ""), recorder, max_tokens=10_000)
    [(_, options)] = recorder.calls
    assert options["max_tokens"] == sampling_server.ASKED_MAX_TOKENS
