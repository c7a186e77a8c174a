"""A LangGraph agent run that calls an MCP tool: the bridge's tool against a hand-written
`StructuredTool` calling the same session, client CPU per run.

Each run is `create_agent` with a scripted model (no LLM): one tool call `echo`, then
"Done." — so the run is the agent's own machinery plus one tool call, which is where the
two tools differ. The hand-written tool is what a user writes without the bridge: a
`StructuredTool` whose coroutine calls `session.call_tool` on the bridge's own session (same
transport, same server) and returns the text. The server is a stdio subprocess, so the CPU
measured (`time.process_time`) is the client's alone, which is what the bridge adds to.

Runs alternate between the two agents in rounds (`--rounds`), each round `--runs` runs at
each `--concurrency`, for the bare core (`plugins=[]`) and the default install; with
`--workers N`, N processes do the same at the same time. Printed: client CPU µs per run
(median of rounds) and bridge / hand-written. Target: ≤ 1.05."""

from __future__ import annotations

import argparse
import asyncio
import logging
import multiprocessing
import statistics
import time
from collections.abc import Sequence
from typing import Any

from _common import ROOT, hand_written_echo, stdio_config

TARGET = 1.05
INSTALLS: dict[str, Sequence[str] | None] = {"bare": [], "default": None}


async def _measure(plugins: Sequence[str] | None, concurrency: int, runs: int, rounds: int) -> dict[str, float]:
    """Median client CPU seconds per agent run, for each of the two tools."""
    from langchain_core.messages import AIMessage, ToolMessage

    from mcpbridge import MCPBridge
    from mcpbridge.testing import ScriptedChatModel, make_agent, tool_call_turn

    async with MCPBridge({"bench": stdio_config()}, plugins=plugins) as bridge:
        tool = {t.name: t for t in await bridge.list_tools()}["echo"]
        session = await bridge.session("bench")

        def turn(messages: list[Any]) -> AIMessage:
            if isinstance(messages[-1], ToolMessage):
                return AIMessage("Done.")
            return tool_call_turn(("echo", {"text": "hello"}))

        model = ScriptedChatModel(turns=[])
        agents = {
            "bridge": make_agent(model, [tool]),
            "hand-written": make_agent(model, [hand_written_echo(session)]),
        }
        counter = iter(range(10**9))

        async def run(agent: Any) -> None:
            config = {"configurable": {"thread_id": f"t{next(counter)}"}}
            result = await agent.ainvoke({"messages": [("user", "echo hello")]}, config)
            answer = result["messages"][-2]
            if not (isinstance(answer, ToolMessage) and answer.status == "success"):
                raise RuntimeError(f"bench/agent.py: the tool call failed: {answer}")

        async def burst(agent: Any) -> float:
            model.turns, model.position = [turn] * (2 * runs + 8), 0
            pending = iter(range(runs))

            async def loop() -> None:
                for _ in pending:
                    await run(agent)

            cpu = time.process_time()
            await asyncio.gather(*(loop() for _ in range(concurrency)))
            return (time.process_time() - cpu) / runs

        for agent in agents.values():  # warm both paths
            await burst(agent)
        cpu: dict[str, list[float]] = {name: [] for name in agents}
        for n in range(rounds):
            order = list(agents) if n % 2 == 0 else list(reversed(agents))
            for name in order:
                cpu[name].append(await burst(agents[name]))
        return {name: statistics.median(values) for name, values in cpu.items()}


def _worker(job: tuple[Sequence[str] | None, int, int, int]) -> dict[str, float]:
    import os
    import sys

    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))
    logging.disable(logging.INFO)
    return asyncio.run(_measure(*job))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=lambda s: [int(p) for p in s.split(",")], default=[1, 2])
    parser.add_argument("--concurrency", type=lambda s: [int(p) for p in s.split(",")], default=[1, 10])
    parser.add_argument("--runs", type=int, default=60, help="agent runs per round")
    parser.add_argument("--rounds", type=int, default=8, help="alternating rounds (median)")
    args = parser.parse_args(argv)
    failed = False
    context = multiprocessing.get_context("spawn")
    print(f"{'install':<9}{'W':>3}{'M':>5}{'hand-written µs':>17}{'bridge µs':>11}{'ratio':>7}{'target':>8}")
    for install, plugins in INSTALLS.items():
        for workers in args.workers:
            for concurrency in args.concurrency:
                job = (plugins, concurrency, args.runs, args.rounds)
                with context.Pool(workers) as pool:
                    results: list[dict[str, float]] = pool.map(_worker, [job] * workers)
                hand = statistics.median(r["hand-written"] for r in results)
                bridge = statistics.median(r["bridge"] for r in results)
                ratio = bridge / hand
                failed = failed or ratio > TARGET
                print(
                    f"{install:<9}{workers:>3}{concurrency:>5}{hand * 1e6:>17.0f}{bridge * 1e6:>11.0f}"
                    f"{ratio:>7.2f}{TARGET:>8.2f}",
                    flush=True,
                )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
