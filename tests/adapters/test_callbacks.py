"""langchain-mcp-adapters' callback behaviours (tests/test_callbacks.py there): progress and
log messages of a running tool call reach the callbacks with the server and tool names."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from mcpbridge_adapters.callbacks import CallbackContext, Callbacks, LoggingMessageNotificationParams

pytestmark = pytest.mark.filterwarnings("ignore:The logging capability is deprecated")


async def test_callbacks_hear_a_tool_call(make_client: Any, behaviours_url: str) -> None:
    progress: list[tuple[float, float | None, str | None, CallbackContext]] = []
    logs: list[tuple[str, Any, CallbackContext]] = []

    async def on_progress(value: float, total: float | None, message: str | None, context: CallbackContext) -> None:
        progress.append((value, total, message, context))

    async def on_logging_message(params: LoggingMessageNotificationParams, context: CallbackContext) -> None:
        logs.append((params.level, params.data, context))

    client = make_client(
        {"behaviours": {"url": behaviours_url, "transport": "http"}},
        callbacks=Callbacks(on_progress=on_progress, on_logging_message=on_logging_message),
    )
    tools = {tool.name: tool for tool in await client.get_tools()}
    content = await tools["slow_count"].ainvoke({})
    assert content[0]["text"] == "counted"
    context = CallbackContext(server_name="behaviours", tool_name="slow_count")
    assert progress == [(1, 2, "step 1", context), (2, 2, "step 2", context)]
    assert logs == [("info", "starting", context)]


async def test_no_callbacks_no_listener(make_client: Any, behaviours_url: str) -> None:
    assert not Callbacks().listening
    client = make_client({"behaviours": {"url": behaviours_url, "transport": "http"}})
    tools = {tool.name: tool for tool in await client.get_tools()}
    assert (await tools["slow_count"].ainvoke({}))[0]["text"] == "counted"


class ToolRuns(BaseCallbackHandler):
    """Counts the LangChain tool runs a call makes."""

    def __init__(self) -> None:
        self.started: list[str] = []
        self.ended: list[Any] = []

    def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kwargs: Any) -> None:
        self.started.append(serialized["name"])

    def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        self.ended.append(output)


async def test_a_call_is_one_tool_run(make_client: Any, math_url: str) -> None:
    """LangChain's callbacks (tracers, UIs) see one run per call of a drop-in tool, not one
    of the drop-in's tool and another of the bridge's underneath."""
    runs = ToolRuns()
    client = make_client({"math": {"url": math_url, "transport": "http"}})
    add = next(tool for tool in await client.get_tools() if tool.name == "add")
    message = await add.ainvoke({"args": {"a": 1, "b": 2}, "id": "c1", "type": "tool_call"}, {"callbacks": [runs]})
    content = await add.ainvoke({"a": 2, "b": 2}, {"callbacks": [runs]})
    assert (message.content[0]["text"], content[0]["text"]) == ("3", "4")
    assert runs.started == ["add", "add"]
    assert runs.ended == [message, content]
