"""The inspector's demo: a small MCP server (weather, calculator, a page fetcher that
returns untrusted HTML), a research server whose tool runs as an MCP task, and a scripted
agent that calls them in parallel, so the page shows every kind of card — running, weather,
calculator, text, error, a task with live status — without a model."""

from __future__ import annotations

import argparse
import asyncio
import itertools
from collections.abc import Sequence
from importlib.metadata import entry_points
from typing import Any

import mcpbridge_events
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.messages.tool import tool_call
from langchain_core.tools import BaseTool
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from mcpbridge_cli.exits import run
from pydantic import BaseModel

from mcpbridge import MCPBridge
from mcpbridge_demo.inspector import Inspector, serve
from mcpbridge_demo.task_server import Status, TaskTools

UNTRUSTED_PAGE = '<h1>Offers</h1><script>window.__pwned = 1</script><img src="x" onerror="window.__pwned = 2">'
"""What `fetch_page` returns: the inspector must show it as text, never run it."""


class Forecast(BaseModel):
    city: str
    temperature_c: float
    conditions: str
    wind_kph: float


def build_demo_server(delay: float = 1.0) -> MCPServer:
    """The demo tools; each takes about `delay` seconds so the running cards are visible."""
    server = MCPServer("demo")
    readonly = ToolAnnotations(read_only_hint=True)

    @server.tool(annotations=readonly)
    async def get_forecast(city: str, ctx: Context) -> Forecast:
        """Today's forecast for a city."""
        steps = 4
        for step in range(steps):
            await ctx.report_progress(step, steps, f"asking station {step + 1} of {steps}")
            await asyncio.sleep(delay / steps)
        return Forecast(city=city, temperature_c=4.5, conditions="light snow", wind_kph=12.0)

    @server.tool(annotations=readonly)
    async def add(a: float, b: float) -> float:
        """Add two numbers."""
        await asyncio.sleep(delay / 2)
        return a + b

    @server.tool(annotations=readonly)
    async def divide(a: float, b: float) -> float:
        """Divide a by b."""
        await asyncio.sleep(delay / 2)
        if b == 0:
            raise ToolError("division by zero")
        return a / b

    @server.tool(annotations=readonly, structured_output=False)
    async def fetch_page(url: str) -> str:
        """The HTML of a web page (here: always the same untrusted page)."""
        await asyncio.sleep(delay / 3)
        return UNTRUSTED_PAGE

    return server


RESEARCH_STAGES = ("gathering sources", "reading", "writing the summary")


def build_research_server(delay: float = 1.0) -> MCPServer:
    """`research(topic)`: a tool that runs only as an MCP task (protocol 2025-11-25; connect
    in legacy mode), its status message naming each stage as it goes."""

    async def research(status: Status, topic: str) -> str:
        for stage in RESEARCH_STAGES:
            status(f"{stage} ({topic})")
            await asyncio.sleep(delay)
        return f"Three sources on {topic} agree: it is cold in winter."

    server = MCPServer("research", middleware=[TaskTools({"research": research}, {"research": "required"})])

    @server.tool(name="research", annotations=ToolAnnotations(read_only_hint=True), structured_output=False)
    def listed_research(topic: str) -> str:
        """Research a topic (a long-running MCP task)."""
        raise ToolError("research runs only as an MCP task")

    return server


def demo_turns(run: int) -> list[AIMessage]:
    """One turn asking for five calls at once, then a final answer. Call ids carry the run
    number so the cards of several runs stay apart."""
    calls: list[tuple[str, dict[str, Any]]] = [
        ("get_forecast", {"city": "Oslo"}),
        ("add", {"a": 2, "b": 3}),
        ("divide", {"a": 1, "b": 0}),
        ("fetch_page", {"url": "https://example.com/offers"}),
        ("research", {"topic": "Oslo winters"}),
    ]
    asked = [tool_call(name=name, args=args, id=f"run{run}-call-{i}") for i, (name, args) in enumerate(calls, 1)]
    answer = "Oslo: 4.5 °C and light snow; 2 + 3 = 5; 1 / 0 has no answer; winters there are cold. (scripted model)"
    return [AIMessage("Let me look that up.", tool_calls=asked), AIMessage(answer)]


class DemoModel(GenericFakeChatModel):
    """langchain-core's fake chat model, replying with `messages` in turn; the turns name the
    tools they call, so binding tools changes nothing."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> DemoModel:
        return self


async def run_demo_agent(tools: list[BaseTool], inspector: Inspector, run: int) -> None:
    """One run of the scripted demo agent, streamed into the inspector."""
    from langchain.agents import create_agent

    agent: Any = create_agent(DemoModel(messages=iter(demo_turns(run))), tools)
    config = {"configurable": {"thread_id": f"inspector-demo-{run}"}}
    inputs = {"messages": [("user", "Weather in Oslo, 2 + 3, 1 / 0, the offers page, and research Oslo winters?")]}
    async for _ in inspector.track(agent.astream(inputs, config, stream_mode=["updates", "custom"])):
        pass


def run_inspect(options: argparse.Namespace) -> int:
    """`inspect` (its options: `inspector.add_inspect_arguments`): serve the inspector and run
    the scripted demo agent against the demo servers (again on every "Run demo" click), until
    Ctrl-C or SIGTERM."""
    run(_serve_demo(options.host, options.port, options.delay, not options.no_run))
    return 0


async def _serve_demo(host: str, port: int, delay: float, run_now: bool) -> None:
    loop = asyncio.get_running_loop()
    requests: asyncio.Queue[None] = asyncio.Queue()

    def request_run() -> None:  # called on a server thread
        loop.call_soon_threadsafe(requests.put_nowait, None)

    with serve(host, port, on_run=request_run) as inspector:
        print(f"mcpbridge inspector: {inspector.url}  (scripted demo agent; Ctrl-C to stop)", flush=True)
        research = {"server": build_research_server(delay), "mode": "legacy"}
        servers = {"demo": build_demo_server(delay), "research": research}
        # The research task needs mcpbridge-tasks; without it its card shows the error that names it.
        tasks = ["tasks"] if entry_points(group="mcpbridge", name="tasks") else []
        async with MCPBridge(servers, plugins=[mcpbridge_events, *tasks]) as bridge:
            tools: list[BaseTool] = list(await bridge.list_tools())
            if run_now:
                requests.put_nowait(None)
            for run in itertools.count(1):
                await requests.get()
                await run_demo_agent(tools, inspector, run)
