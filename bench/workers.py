"""Load: N worker processes x M concurrent calls against one echo MCP server served over
streamable HTTP by uvicorn in its own process on loopback.

Each worker process opens ONE MCPBridge (one session) and, beside it, one raw mcp SDK session
(`mcp.Client(url)`) to the same server, and answers bursts: M concurrent loops of
  raw          `session.call_tool("echo", ...)` on the raw session
  bridge       `tool.ainvoke(ToolCall)` through the bridge (no plugins)
  agent        LangGraph agent runs (`make_agent` + `ScriptedChatModel`: one echo call, then "Done.")
               with the bridge's tool
  agent-raw    the same agent with a hand-written `StructuredTool` over the raw session
Every worker runs the same burst at the same moment; raw and bridge alternate which goes
first. Printed per cell: calls/s over all workers, p50/p99 latency (the first call of each
loop left out), client CPU per call, and the server's CPU use (cores; 1.0 for one uvicorn
worker means the server was the bottleneck). Then the memory and descriptors one more open
idle session costs (bridge vs raw, fresh processes).

Target: with one worker and 200 concurrent calls on its session, the bridge's throughput is
at least 0.8x the raw SDK's (the median of paired rounds). Exits 1 when it is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import logging
import multiprocessing
import os
import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

from _common import echo_on, hand_written_echo
from _load import cpu_seconds, loopback_server, open_fds, rss_bytes

TARGET_AT = (1, 200)
"""(workers, concurrent calls) at which the throughput target is checked."""
TARGET = 0.8
WARM_UP_CALLS = 20
"""Concurrent calls of each kind a worker makes once its sessions are open, before any burst."""
MODES = ("raw", "bridge", "agent-raw", "agent")


# ---------------------------------------------------------------- worker processes


@dataclass
class Burst:
    """What one worker measured in one burst."""

    started: float
    ended: float
    calls: int
    cpu: float
    latencies: list[float] = field(default_factory=list)


def expect(ok: bool, what: object) -> None:
    if not ok:
        raise RuntimeError(f"bench/workers.py: a call failed: {what}")


class Worker:
    """One worker's sessions and the calls a burst makes on them."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.stack = AsyncExitStack()
        self.calls: dict[str, Callable[[int], Awaitable[None]]] = {}

    async def open(self) -> None:
        from langchain_core.messages import AIMessage, ToolMessage
        from mcp import Client

        from mcpbridge import MCPBridge
        from mcpbridge.testing import ScriptedChatModel, make_agent, tool_call_turn

        bridge = await self.stack.enter_async_context(MCPBridge({"echo": {"url": self.url}}, plugins=[]))
        [tool] = await bridge.list_tools()
        client = await self.stack.enter_async_context(Client(self.url))
        session = client.session
        await session.list_tools()

        raw_tool = hand_written_echo(session)

        def turn(messages: list[Any]) -> AIMessage:
            if isinstance(messages[-1], ToolMessage):
                return AIMessage("Done.")
            return tool_call_turn(("echo", {"text": "hello"}))

        self.model = ScriptedChatModel(turns=[])
        self.turn = turn
        agents = {"agent": make_agent(self.model, [tool]), "agent-raw": make_agent(self.model, [raw_tool])}
        pid = os.getpid()

        async def raw(i: int) -> None:
            result = await echo_on(session)
            expect(not result.is_error, result)

        async def through_bridge(i: int) -> None:
            message = await tool.ainvoke(
                {"type": "tool_call", "name": "echo", "args": {"text": "hello"}, "id": f"c{i}"}
            )
            expect(message.status == "success", message.content)

        def agent_run(agent: Any) -> Callable[[int], Awaitable[None]]:
            async def run(i: int) -> None:
                config = {"configurable": {"thread_id": f"{pid}-{id(agent)}-{i}"}}
                result = await agent.ainvoke({"messages": [("user", "echo hello")]}, config)
                answer = result["messages"][-2]
                expect(isinstance(answer, ToolMessage) and answer.status == "success", answer)

            return run

        self.calls = {
            "raw": raw,
            "bridge": through_bridge,
            **{name: agent_run(agent) for name, agent in agents.items()},
        }
        for mode in self.calls:  # warm every path (and each HTTP connection pool) before measuring
            await self.burst(mode, WARM_UP_CALLS, 1, time.monotonic())

    async def burst(self, mode: str, concurrency: int, per_loop: int, start_at: float) -> Burst:
        call = self.calls[mode]
        self.model.turns = [self.turn] * (2 * concurrency * per_loop + 8)
        self.model.position = 0
        latencies: list[float] = []
        numbers = iter(range(concurrency * per_loop))

        async def loop() -> None:
            for n in range(per_loop):
                t0 = time.perf_counter()
                await call(next(numbers))
                if n or per_loop == 1:
                    latencies.append(time.perf_counter() - t0)

        await asyncio.sleep(max(0.0, start_at - time.monotonic()))
        cpu = time.process_time()
        started = time.monotonic()
        await asyncio.gather(*(loop() for _ in range(concurrency)))
        return Burst(started, time.monotonic(), concurrency * per_loop, time.process_time() - cpu, latencies)


async def _serve(connection: Connection, url: str) -> None:
    logging.disable(logging.INFO)
    worker = Worker(url)
    async with worker.stack:
        await worker.open()
        connection.send("ready")
        while True:
            command = await asyncio.to_thread(connection.recv)
            if command is None:
                return
            connection.send(await worker.burst(*command))


def serve(connection: Connection, url: str) -> None:
    """A worker process's body: open the sessions, then run bursts until told to stop."""
    asyncio.run(_serve(connection, url))


async def _idle_sessions(url: str, kind: str, count: int) -> tuple[float, float]:
    from mcp import Client

    from mcpbridge import MCPBridge

    logging.disable(logging.INFO)

    async def open_one(stack: AsyncExitStack) -> None:
        if kind == "bridge":
            bridge = await stack.enter_async_context(MCPBridge({"echo": {"url": url}}, plugins=[]))
            await bridge.list_tools()
        else:
            client = await stack.enter_async_context(Client(url))
            await client.session.list_tools()

    async with AsyncExitStack() as stack:
        await open_one(stack)  # the first one also imports and warms up what every session uses
        await asyncio.sleep(0.5)
        gc.collect()
        rss, fds = rss_bytes(), open_fds()
        for _ in range(count):
            await open_one(stack)
        await asyncio.sleep(0.5)
        gc.collect()
        return (rss_bytes() - rss) / count, (open_fds() - fds) / count


def idle_sessions(connection: Connection, url: str, kind: str, count: int) -> None:
    """RSS bytes and descriptors per open idle session, measured in a fresh process."""
    connection.send(asyncio.run(_idle_sessions(url, kind, count)))


# ---------------------------------------------------------------- the conductor


@dataclass
class Cell:
    workers: int
    concurrency: int
    mode: str
    rate: float
    p50_ms: float
    p99_ms: float
    cpu_us: float
    server_cores: float


class Pool:
    """Worker processes (spawned, each with its own sessions) and the server they load."""

    def __init__(self, url: str, server_pid: int, size: int) -> None:
        self.server_pid = server_pid
        context = multiprocessing.get_context("spawn")
        self.pipes: list[Connection] = []
        self.processes = []
        for _ in range(size):
            mine, theirs = context.Pipe()
            process = context.Process(target=serve, args=(theirs, url), daemon=True)
            process.start()
            self.pipes.append(mine)
            self.processes.append(process)
        for pipe in self.pipes:
            if pipe.recv() != "ready":
                raise SystemExit("bench/workers.py: a worker could not open its sessions")

    def burst(self, workers: int, mode: str, concurrency: int, per_loop: int) -> Cell:
        start_at = time.monotonic() + 0.1
        server_cpu = cpu_seconds(self.server_pid)
        for pipe in self.pipes[:workers]:
            pipe.send((mode, concurrency, per_loop, start_at))
        bursts: list[Burst] = [pipe.recv() for pipe in self.pipes[:workers]]
        server_cpu = cpu_seconds(self.server_pid) - server_cpu
        elapsed = max(b.ended for b in bursts) - min(b.started for b in bursts)
        calls = sum(b.calls for b in bursts)
        latencies = sorted(t for b in bursts for t in b.latencies)
        return Cell(
            workers,
            concurrency,
            mode,
            calls / elapsed,
            statistics.median(latencies) * 1e3,
            latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1e3,
            sum(b.cpu for b in bursts) / calls * 1e6,
            server_cpu / elapsed,
        )

    def close(self) -> None:
        for pipe in self.pipes:
            pipe.send(None)
        for process in self.processes:
            process.join(timeout=30)


def in_fresh_process(target: Callable[..., None], *args: Any) -> Any:
    context = multiprocessing.get_context("spawn")
    mine, theirs = context.Pipe()
    process = context.Process(target=target, args=(theirs, *args), daemon=True)
    process.start()
    answer = mine.recv()
    process.join(timeout=30)
    return answer


def show(cell: Cell) -> None:
    print(
        f"{cell.workers:>3}{cell.concurrency:>6}  {cell.mode:<10}{cell.rate:>9.0f}{cell.p50_ms:>9.1f}"
        f"{cell.p99_ms:>9.1f}{cell.cpu_us:>10.0f}{cell.server_cores:>8.2f}",
        flush=True,
    )


def compare(raw: Cell, bridge: Cell) -> str:
    return (
        f"{'':>9}bridge/raw {bridge.rate / raw.rate:.2f}x calls/s; overhead per call "
        f"{(bridge.cpu_us - raw.cpu_us):+.0f} us client CPU, {bridge.p50_ms - raw.p50_ms:+.1f} ms p50"
    )


def target_check(pool: Pool, rounds: int, per_loop: int) -> float:
    """The median ratio bridge/raw of calls/s over `rounds` paired bursts (order alternating)."""
    workers, concurrency = TARGET_AT
    ratios = []
    for i in range(rounds):
        order = ("raw", "bridge") if i % 2 else ("bridge", "raw")
        cells = {mode: pool.burst(workers, mode, concurrency, per_loop) for mode in order}
        ratios.append(cells["bridge"].rate / cells["raw"].rate)
        print(
            f"  round {i + 1}: raw {cells['raw'].rate:.0f}/s, bridge {cells['bridge'].rate:.0f}/s, "
            f"ratio {ratios[-1]:.2f}",
            flush=True,
        )
    return statistics.median(ratios)


def ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=ints, default=[1, 2, 4], help="worker process counts, e.g. 1,2,4")
    parser.add_argument("--concurrency", type=ints, default=[10, 50, 200, 500], help="concurrent calls per worker")
    parser.add_argument("--agent-concurrency", type=ints, default=[10, 100], help="concurrent agent runs per worker")
    parser.add_argument("--per-loop", type=int, default=2, help="calls each concurrent loop makes per burst")
    parser.add_argument("--rounds", type=int, default=6, help="paired bursts for the target check, even")
    parser.add_argument("--sessions", type=int, default=50, help="idle sessions opened to measure memory")
    parser.add_argument("--server-workers", type=int, default=1, help="uvicorn worker processes")
    parser.add_argument("--quick", action="store_true", help="1 and 2 workers, 10 and 200 calls, fewer rounds")
    args: Any = parser.parse_args(argv)
    if args.quick:
        args.workers, args.concurrency, args.agent_concurrency = [1, 2], [10, 200], [10]
        args.rounds, args.sessions = 4, 20
    began = time.monotonic()
    with loopback_server(args.server_workers) as served:
        print(f"echo server: uvicorn, {args.server_workers} worker(s), stateless, on {served.url}")
        print(f"memory per open idle session ({args.sessions} sessions opened in a fresh process):")
        memory = {kind: in_fresh_process(idle_sessions, served.url, kind, args.sessions) for kind in ("raw", "bridge")}
        for kind, (rss, fds) in memory.items():
            print(f"  {kind:<7}{rss / 1024:8.0f} KiB  {fds:5.1f} fds")
        pool = Pool(served.url, served.pid, max(args.workers))
        try:
            print(f"target check at {TARGET_AT[0]} worker x {TARGET_AT[1]} concurrent calls:", flush=True)
            ratio = target_check(pool, args.rounds, args.per_loop)
            header = (
                f"{'W':>3}{'M':>6}  {'mode':<10}{'calls/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'CPU us':>10}{'server':>8}"
            )
            print(header)
            for n, workers in enumerate(args.workers):
                for m, concurrency in enumerate(args.concurrency):
                    order = ("raw", "bridge") if (n + m) % 2 == 0 else ("bridge", "raw")
                    cells = {mode: pool.burst(workers, mode, concurrency, args.per_loop) for mode in order}
                    for mode in ("raw", "bridge"):
                        show(cells[mode])
                    print(compare(cells["raw"], cells["bridge"]), flush=True)
                for concurrency in args.agent_concurrency:
                    cells = {mode: pool.burst(workers, mode, concurrency, 1) for mode in ("agent-raw", "agent")}
                    for mode in ("agent-raw", "agent"):
                        show(cells[mode])
                    print(compare(cells["agent-raw"], cells["agent"]), flush=True)
        finally:
            pool.close()
    ok = ratio >= TARGET
    print(f"took {time.monotonic() - began:.0f} s")
    print(f"bridge/raw calls/s at {TARGET_AT[0]} worker x {TARGET_AT[1]} concurrent: {ratio:.2f} (>= {TARGET})", end="")
    print("  ok" if ok else "  FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
