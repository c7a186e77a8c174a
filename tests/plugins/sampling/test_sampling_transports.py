"""A chat model answers our server's sampling request over every transport and both
protocols: modern rounds through the interceptor, legacy mid-call requests through the
client's `sampling_callback`; the request reaches the model as LangChain messages with the
server's max tokens capped."""

from __future__ import annotations

import asyncio
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


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_a_legacy_server_asks_at_most_max_requests_per_call(
    transport: str, sampling_url: str, recorder: RecordingChatModel
) -> None:
    """Legacy requests name no call, so nothing counted them: a server could ask the model
    without end during one call, or when no call of it ran. Each request now counts against
    `max_requests` of a call in flight on its server; two calls at once have theirs each."""
    async with MCPBridge(
        {"notes": server_config(transport, "legacy", sampling_url)},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": {"model": recorder, "servers": ["notes"], "max_requests": 2}},
    ) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        ask = tools["ask_times"]
        over = await ask.ainvoke(make_tool_call(ask, {"times": 5}))
        assert len(recorder.calls) == 2
        both = await asyncio.gather(*(ask.ainvoke(make_tool_call(ask, {"times": 2})) for _ in range(2)))
        assert len(recorder.calls) == 6
        session = await bridge.session("notes")  # a request of the user's own, not a tool call of the bridge
        outside = await session.call_tool("ask_times", {"times": 1})
    assert over.content[0]["text"].startswith("answered 2; then refused: mcpbridge: server 'notes' asked for sampling")
    assert (
        "more than 2 times in one call; refused (raise `max_requests` in [plugins.sampling]" in over.content[0]["text"]
    )
    assert [message.content[0]["text"] for message in both] == ["answered 2", "answered 2"]
    assert outside.content[0].text.startswith(
        "answered 0; then refused: mcpbridge: server 'notes' asked for sampling outside"
    )
    assert len(recorder.calls) == 6
