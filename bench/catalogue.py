"""The live catalogue's cost (mcpbridge-catalogue's `LiveCatalogue`).

1. Per model call, an unchanged catalogue of 500 tools (an in-process server): what
   `awrap_model_call` does before handing the request on (the check that nothing changed,
   the tools the model is given, `request.override`), without a budget and with one that
   leaves `find_tools` and a found tool. Target: ≤ 200 µs per model call. Then, apart, the
   same catalogue when a plugin lists per run (a list interceptor that passes each listing
   on, as the auth plugin's does for a run with no person): each model call lists for its run
   from what the sessions hold (`catalogue.current(runtime)`; no target: docs/catalogue.md
   gives what it costs).
2. Per agent run, client CPU (`time.process_time`) of `create_agent` with a scripted model
   calling `echo` once on a stdio server: the tools given at build (`tools=[echo]`), the same
   with a middleware that only passes both calls on (what LangChain's middleware machinery
   costs), and `tools=[]` with `LiveCatalogue(bridge)`, in turns (median). Printed: µs per run
   and the ratios (no target: what the live catalogue costs a run)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from _common import stdio_config

logging.disable(logging.INFO)
TARGET_US = 200.0
TOOLS = 500


async def per_model_call(calls: int) -> dict[str, float]:
    """µs per model call of an unchanged catalogue, without and with a budget."""
    import mcpbridge_catalogue
    from langchain.agents.middleware import ModelRequest, ModelResponse
    from langchain_core.messages import AIMessage
    from langchain_core.messages.utils import AnyMessage

    from mcpbridge import MCPBridge
    from mcpbridge.testing import ScriptedChatModel
    from tests.plugins.catalogue.changing import many

    response = ModelResponse(result=[AIMessage("Done.")])

    async def handler(request: ModelRequest[Any]) -> ModelResponse[Any]:
        return response

    timings: dict[str, float] = {}
    async with MCPBridge({"many": {"server": many(TOOLS)}}, plugins=[mcpbridge_catalogue]) as bridge:
        for label, budget, found in (("no budget", 0, []), ("budget", 400, ["wire_money"])):
            middleware = mcpbridge_catalogue.LiveCatalogue(bridge, max_catalog_tokens=budget)
            messages: list[AnyMessage] = []
            request = ModelRequest(
                model=ScriptedChatModel(), messages=messages, tools=[], state={"messages": [], "catalogue_found": found}
            )
            await middleware.awrap_model_call(request, handler)  # the first call lists and converts
            start = time.perf_counter()
            for _ in range(calls):
                await middleware.awrap_model_call(request, handler)
            timings[label] = (time.perf_counter() - start) / calls * 1e6
    return timings


async def per_run_listing(calls: int) -> float:
    """µs per model call of an unchanged catalogue of `TOOLS` tools listed for each run."""
    import mcpbridge_catalogue

    from mcpbridge import MCPBridge, ToolListHandler, ToolListRequest, hookimpl
    from mcpbridge.testing import make_runtime
    from tests.plugins.catalogue.changing import many

    class PassOn:
        @hookimpl
        def mcpbridge_list_interceptors(self, context: Any) -> list[Any]:
            async def pass_on(request: ToolListRequest, handler: ToolListHandler) -> Any:
                return await handler(request)

            return [pass_on]

    servers = {"many": {"server": many(TOOLS)}}
    async with MCPBridge(servers, plugins=[mcpbridge_catalogue, PassOn()]) as bridge:
        catalogue = mcpbridge_catalogue.LiveCatalogue(bridge).catalogue
        runtime = make_runtime()
        if len((await catalogue.current(runtime)).entries) != TOOLS:  # the first call lists and converts
            raise RuntimeError("bench/catalogue.py: the listing per run lost tools")
        start = time.perf_counter()
        for _ in range(calls):
            await catalogue.current(runtime)
        return (time.perf_counter() - start) / calls * 1e6


async def per_run(runs: int, rounds: int) -> dict[str, float]:
    """Client CPU µs per agent run: tools given at build, with a pass-on middleware, live."""
    import mcpbridge_catalogue
    from langchain.agents.middleware import AgentMiddleware
    from langchain_core.messages import AIMessage, ToolMessage

    from mcpbridge import MCPBridge
    from mcpbridge.testing import ScriptedChatModel, make_agent, tool_call_turn

    class PassOn(AgentMiddleware[Any, Any, Any]):
        async def awrap_model_call(self, request: Any, handler: Any) -> Any:
            return await handler(request)

        async def awrap_tool_call(self, request: Any, handler: Any) -> Any:
            return await handler(request)

    def turn(messages: list[Any]) -> AIMessage:
        if isinstance(messages[-1], ToolMessage):
            return AIMessage("Done.")
        return tool_call_turn(("echo", {"text": "hello"}))

    async with MCPBridge({"bench": stdio_config()}, plugins=[mcpbridge_catalogue]) as bridge:
        tools = await bridge.list_tools()
        model = ScriptedChatModel(turns=[])
        agents = {
            "built with": make_agent(model, tools),
            "pass-on middleware": make_agent(model, tools, middleware=[PassOn()]),
            "live": make_agent(model, [], middleware=[mcpbridge_catalogue.LiveCatalogue(bridge)]),
        }
        counter = iter(range(10**9))

        async def burst(agent: Any) -> float:
            model.turns, model.position = [turn] * (2 * runs + 4), 0
            cpu = time.process_time()
            for _ in range(runs):
                config = {"configurable": {"thread_id": f"t{next(counter)}"}}
                result = await agent.ainvoke({"messages": [("user", "echo hello")]}, config)
                if result["messages"][-2].status != "success":
                    raise RuntimeError(f"bench/catalogue.py: the tool call failed: {result['messages'][-2]}")
            return (time.process_time() - cpu) / runs * 1e6

        for agent in agents.values():
            await burst(agent)
        cpu: dict[str, list[float]] = {name: [] for name in agents}
        for n in range(rounds):
            for name in list(agents) if n % 2 == 0 else reversed(list(agents)):
                cpu[name].append(await burst(agents[name]))
    return {name: statistics.median(values) for name, values in cpu.items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=2000, help="model calls measured per case")
    parser.add_argument("--runs", type=int, default=40, help="agent runs per round")
    parser.add_argument("--rounds", type=int, default=6, help="alternating rounds (median)")
    args = parser.parse_args(argv)
    calls = asyncio.run(per_model_call(args.calls))
    for label, us in calls.items():
        print(f"model call, {TOOLS} unchanged tools, {label:<10}{us:>8.1f} µs   target ≤ {TARGET_US:.0f}", flush=True)
    listed = asyncio.run(per_run_listing(max(1, args.calls // 10)))
    print(f"model call, {TOOLS} unchanged tools, listed per run {listed:>8.1f} µs   (no target)", flush=True)
    runs = asyncio.run(per_run(args.runs, args.rounds))
    built, passing, live = runs["built with"], runs["pass-on middleware"], runs["live"]
    print(
        f"agent run, client CPU: tools given at build {built:.0f} µs, with a pass-on middleware {passing:.0f} µs, "
        f"live catalogue {live:.0f} µs: live / build {live / built:.2f}, live / pass-on {live / passing:.2f}"
    )
    return 1 if max(calls.values()) > TARGET_US else 0


if __name__ == "__main__":
    sys.exit(main())
