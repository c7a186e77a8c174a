"""How a server's conversation reaches the model (roles, image blocks, stop sequences) and
how the model's finish reason reaches the server; what is not answered."""

from __future__ import annotations

import mcpbridge_sampling
import pytest
from langchain_core.messages import AIMessage, HumanMessage
from mcp.types import CreateMessageRequestParams, SamplingMessage, TextContent, Tool
from mcpbridge_sampling.convert import Unsupported, to_messages, to_result

from mcpbridge import BridgeContext, MCPBridge, Settings
from tests.servers import sampling_server

from .recording import RecordingChatModel


async def test_images_and_earlier_turns_reach_the_model(recorder: RecordingChatModel) -> None:
    async with MCPBridge(
        {"pics": {"server": sampling_server.build(), "mode": "modern"}},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": {"model": recorder, "servers": ["pics"]}},
    ) as bridge:
        message = await bridge.call_tool("pics", "caption", {})
    assert message.content[0]["text"] == "caption (endTurn): a one-line summary"
    [(messages, options)] = recorder.calls
    assert messages == [
        HumanMessage(
            [
                {"type": "text", "text": "Caption this:"},
                {"type": "image", "base64": sampling_server.PIXEL, "mime_type": "image/png"},
            ]
        ),
        AIMessage("Sure."),
        HumanMessage("Keep it short."),
    ]
    assert options == {"max_tokens": 20, "stop": ["\n"]}


@pytest.mark.parametrize(
    ("metadata", "stop_reason"),
    [
        ({"finish_reason": "length"}, "maxTokens"),
        ({"stop_reason": "stop_sequence"}, "stopSequence"),
        ({"finish_reason": "content_filter"}, "endTurn"),
        ({}, "endTurn"),
    ],
)
def test_finish_reasons_in_mcp_words(metadata: dict[str, str], stop_reason: str) -> None:
    result = to_result(AIMessage("hi", response_metadata=metadata), "configured-name")
    assert (result.role, result.model, result.stop_reason) == ("assistant", "configured-name", stop_reason)


def test_sampling_with_tools_is_not_answered() -> None:
    params = CreateMessageRequestParams(
        messages=[SamplingMessage(role="user", content=TextContent(text="x"))],
        max_tokens=5,
        tools=[Tool(name="t", input_schema={"type": "object"})],
    )
    with pytest.raises(Unsupported, match="sampling with tools"):
        to_messages(params)


def test_status_says_what_is_answered() -> None:
    def status(table: mcpbridge_sampling.SamplingSettings) -> str:
        return mcpbridge_sampling.mcpbridge_status(BridgeContext(Settings(), tables={type(table): table}))

    unset = mcpbridge_sampling.SamplingSettings()
    assert status(unset) == "answers no sampling request: set `model` in [plugins.sampling]"
    on = mcpbridge_sampling.SamplingSettings(model=RecordingChatModel(), servers=["a", "b"], review="always")
    assert status(on) == "answers sampling for a, b (max_tokens 1024, review always)"
