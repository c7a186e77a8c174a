"""The limits: which servers may ask, how many requests one call may make, which model a
preference hint picks, and what the server and the agent see when the model fails."""

from __future__ import annotations

from typing import Any

import mcpbridge_sampling
import pytest

from mcpbridge import ConfigError, MCPBridge
from mcpbridge.testing import make_tool_call
from tests.servers import sampling_server

from .recording import RecordingChatModel


async def call(mode: str, tool: str, args: dict[str, Any], **settings: Any) -> Any:
    async with MCPBridge(
        {"notes": {"server": sampling_server.build(), "mode": mode}, "other": {"server": sampling_server.build()}},
        plugins=[mcpbridge_sampling],
        plugin_settings={"sampling": settings},
    ) as bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools(servers=["notes"])}
        message = await tools[tool].ainvoke(make_tool_call(tools[tool], args))
        # A refusal or a failing model never breaks the session: the next call works.
        after = await bridge.call_tool("notes", "brainstorm", {"rounds": 0})
        assert after.content[0]["text"] == "ideas: "
        return message


def text(message: Any) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


@pytest.mark.parametrize("mode", ["modern", "legacy"])
async def test_a_server_not_listed_is_not_offered_sampling(mode: str, recorder: RecordingChatModel) -> None:
    message = await call(mode, "summarize", {"text": "t"}, model=recorder, servers=["other"])
    assert message.status == "error"
    assert "did not declare the sampling capability" in text(message)
    assert "list the server in `servers` of [plugins.sampling]" in text(message)
    assert recorder.calls == []


async def test_a_server_not_listed_that_asks_anyway_is_refused(recorder: RecordingChatModel) -> None:
    message = await call("modern", "brainstorm", {"rounds": 1}, model=recorder, servers=["other"])
    assert message.status == "error"
    assert "no plugin answered sampling" in text(message)
    assert "set `model` and list the server in `servers` of [plugins.sampling]" in text(message)
    assert recorder.calls == []


async def test_without_a_model_nothing_is_answered(recorder: RecordingChatModel) -> None:
    message = await call("modern", "brainstorm", {"rounds": 1}, all_servers=True)
    assert "no plugin answered sampling" in text(message)
    assert "set `model` and list the server in `servers` of [plugins.sampling]" in text(message)


@pytest.mark.parametrize(
    ("settings", "on_the_path"),
    [
        ({}, False),
        ({"all_servers": True}, False),  # no model
        ({"model": "recorder", "servers": ["other"]}, False),
        ({"model": "recorder", "servers": ["notes"]}, True),
    ],
)
async def test_the_layer_is_on_a_tools_path_only_when_a_model_answers_its_server(
    settings: dict[str, Any], on_the_path: bool, recorder: RecordingChatModel
) -> None:
    settings = {key: recorder if value == "recorder" else value for key, value in settings.items()}
    servers = {"notes": {"server": sampling_server.build()}, "other": {"server": sampling_server.build()}}
    async with MCPBridge(servers, plugins=[mcpbridge_sampling], plugin_settings={"sampling": settings}) as bridge:
        tools = await bridge.list_tools(servers=["notes"])
    assert bridge.chain == ("sampling", "claiming")
    assert {("sampling" in tool.chain) for tool in tools} == {on_the_path}


async def test_requests_per_call_are_bounded(recorder: RecordingChatModel) -> None:
    recorder.replies = ["tea", "cake", "jam"]
    ok = await call("modern", "brainstorm", {"rounds": 3}, model=recorder, all_servers=True, max_requests=3)
    assert text(ok) == "ideas: tea, cake, jam"
    message = await call("modern", "brainstorm", {"rounds": 3}, model=recorder, all_servers=True, max_requests=2)
    assert message.status == "error"
    assert "made more than 2 sampling requests in one call" in text(message)
    assert "`max_requests` in [plugins.sampling]" in text(message)


@pytest.mark.parametrize(
    ("hint", "answered_by"),
    [("claude-3-haiku", "fast-1"), ("HAIKU", "fast-1"), ("gpt-4.1", "big-1"), ("", "recorder-1")],
)
async def test_model_preference_hints_pick_the_mapped_model(hint: str, answered_by: str) -> None:
    models = {name: RecordingChatModel(model_name=name) for name in ("recorder-1", "fast-1", "big-1")}
    message = await call(
        "modern",
        "summarize",
        {"text": "t", "hint": hint},
        model=models["recorder-1"],
        models={"haiku": models["fast-1"], "gpt-4.1-mini": models["big-1"]},
        all_servers=True,
    )
    assert text(message) == "summary by " + answered_by + ": a one-line summary"
    assert [name for name, model in models.items() if model.calls] == [answered_by]


@pytest.mark.parametrize("mode", ["modern", "legacy"])
async def test_a_failing_model_is_an_error_answer_not_a_broken_session(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    model = RecordingChatModel(fail="provider down (key sk-secret-123)")
    message = await call(mode, "summarize", {"text": "t"}, model=model, all_servers=True)
    assert message.status == "error"
    # modern: the tool call fails with our message; legacy: the server got it as an error
    # answer and failed the call with it. The provider's own text stays in the log.
    assert "asked for sampling, and model 'recorder-1' failed (RuntimeError; see the log)" in text(message)
    assert "sk-secret" not in text(message)
    assert "provider down" in caplog.text


async def test_a_missing_provider_package_is_a_config_error() -> None:
    message = await call("modern", "brainstorm", {"rounds": 1}, model="openai:gpt-4.1-mini", all_servers=True)
    assert message.status == "error"
    assert "`model` = 'openai:gpt-4.1-mini': the provider's package is missing" in text(message)
    assert "pip install langchain-openai" in text(message)


def test_an_unknown_server_name_is_refused() -> None:
    with pytest.raises(ConfigError, match="server 'nope' is not configured"):
        MCPBridge(
            {"notes": {"server": sampling_server.build()}},
            plugins=[mcpbridge_sampling],
            plugin_settings={"sampling": {"servers": ["nope"]}},
        )
