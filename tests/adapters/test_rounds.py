"""`on_elicitation` answers its part of a modern server's round (the toolkit's
`RoundAnswerer`): the rest goes to the plugins that answer it, and a server that never stops
asking fails the call instead of asking forever."""

from __future__ import annotations

from typing import Any

from mcp.types import ElicitRequestParams, ElicitResult
from mcpbridge_adapters.callbacks import CallbackContext, Callbacks

from tests.plugins.elicitation import elicit_servers
from tests.plugins.sampling.recording import RecordingChatModel
from tests.servers import sampling_server


async def confirm(mcp_context: Any, params: ElicitRequestParams, context: CallbackContext) -> ElicitResult:
    return ElicitResult(action="accept", content={"ok": True})


async def test_a_round_asking_a_person_and_a_model_is_answered_by_both(make_client: Any) -> None:
    """The sampling plugin sits outside the client's own interceptors: it gets the model's
    part of the round, `on_elicitation` the person's, and the call completes in one go."""
    model = RecordingChatModel(replies=["short"])
    client = make_client(
        {"notes": {"transport": "in_process", "server": sampling_server.build(), "mode": "modern"}},
        callbacks=Callbacks(on_elicitation=confirm),
        plugins=["sampling"],
        plugin_settings={"sampling": {"model": model, "all_servers": True}},
    )
    tools = {tool.name: tool for tool in await client.get_tools()}
    message = await tools["summarize_and_confirm"].ainvoke({"args": {"text": "t"}, "id": "1", "type": "tool_call"})
    assert (message.status, message.content[0]["text"]) == ("success", "published: short")
    assert len(model.calls) == 1


async def test_a_server_that_never_stops_asking_fails_the_call(make_client: Any) -> None:
    asked: list[str] = []

    async def answer(mcp_context: Any, params: ElicitRequestParams, context: CallbackContext) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"ok": True})

    client = make_client(
        {"shop": {"transport": "in_process", "server": elicit_servers.build(), "mode": "modern"}},
        callbacks=Callbacks(on_elicitation=answer),
    )
    tools = {tool.name: tool for tool in await client.get_tools()}
    message = await tools["pester"].ainvoke({"args": {}, "id": "1", "type": "tool_call"})
    assert message.status == "error"
    assert "made more than 10 elicitation requests in one call; stopped" in message.content[0]["text"]
    assert len(asked) == 10
