"""LangChain callbacks still see every tool run: passed handlers, `collect_runs`, and a
bridge tool inside an agent's trace; the lean path only runs when nobody listens."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import AsyncCallbackHandler
from langchain_core.tracers.context import collect_runs
from langsmith.run_helpers import tracing_context

from mcpbridge import MCPBridge
from mcpbridge._tools.results import nobody_listens
from tests.servers import basic


class Recorder(AsyncCallbackHandler):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    async def on_tool_start(self, serialized: dict[str, Any], input_str: str, **kwargs: Any) -> None:
        self.events.append(("start", serialized["name"]))

    async def on_tool_end(self, output: Any, **kwargs: Any) -> None:
        self.events.append(("end", output.status))


async def test_passed_handlers_see_start_and_end() -> None:
    recorder = Recorder()
    async with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        echo = {t.name: t for t in await bridge.list_tools()}["echo"]
        call = {"type": "tool_call", "name": "echo", "args": {"text": "hi"}, "id": "c1"}
        message = await echo.ainvoke(call, {"callbacks": [recorder]})
    assert message.content[0]["text"] == "hi"
    assert recorder.events == [("start", "echo"), ("end", "success")]


async def test_collect_runs_sees_the_tool_run() -> None:
    async with MCPBridge({"basic": basic.build()}, plugins=[]) as bridge:
        echo = {t.name: t for t in await bridge.list_tools()}["echo"]
        with collect_runs() as collector:
            assert not nobody_listens(None, None, False)
            await echo.ainvoke({"text": "hi"})
    assert [run.name for run in collector.traced_runs] == ["echo"]
    assert collector.traced_runs[0].extra["metadata"]["name"] == "echo"


def test_nobody_listens_only_without_any_listener() -> None:
    assert nobody_listens(None, None, False)
    assert not nobody_listens([Recorder()], None, False)
    assert not nobody_listens(None, [Recorder()], False)
    assert not nobody_listens(None, None, True)
    with tracing_context(enabled=True):
        assert not nobody_listens(None, None, False)
