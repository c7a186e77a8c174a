"""Connecting to N servers costs about the slowest one: `MCPBridge(servers)` opened and
`list_tools()` over N streamable HTTP servers, each answering every HTTP request after a
delay of its own (50 to 200 ms, so a connect's few requests take 0.2 to 0.8 s), against the
slowest of them alone and against the sum of each alone (what connecting one after another
would cost). The servers run in a process of their own (uvicorn threads; `--in-process` runs
them in this one, where their threads compete with the client for the interpreter), so the
figure is the bridge's own concurrency. Target: N servers at most 1.25 times the slowest alone."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from _common import basic, serve_http

from mcpbridge import MCPBridge

logging.disable(logging.ERROR)  # a server still sleeping when the bridge closes logs a disconnect
TARGET = 1.25
_App = Callable[[dict[str, Any], Callable[[], Awaitable[Any]], Callable[[Any], Awaitable[None]]], Awaitable[None]]


def delayed(app: _App, seconds: float) -> _App:
    """`app`, answering each HTTP request `seconds` late (lifespan events pass at once)."""

    async def answer(scope: dict[str, Any], receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        if scope["type"] == "http":
            await asyncio.sleep(seconds)
        await app(scope, receive, send)

    return answer


async def connect(servers: dict[str, dict[str, Any]]) -> float:
    """Seconds from building the bridge to holding every server's tools."""
    started = time.perf_counter()
    async with MCPBridge(servers, plugins=[], tool_name_prefix=True) as bridge:
        tools = await bridge.list_tools()
        assert {tool.metadata["server_name"] for tool in tools if tool.metadata} == set(servers)
    return time.perf_counter() - started


@contextmanager
def served_here(count: int) -> Iterator[list[str]]:
    """The URLs of `count` servers answering 50, 100, 150, 200, 50 ... ms late, in this process."""
    served = [serve_http(delayed(basic.build().streamable_http_app(), 0.05 * (1 + i % 4))) for i in range(count)]
    try:
        yield [server.base_url + "/mcp" for server in served]
    finally:
        for server in served:
            server.stop()


def serve(count: int) -> None:
    """The child process: print the servers' URLs as a JSON list, serve until stdin closes."""
    with served_here(count) as urls:
        print(json.dumps(urls), flush=True)
        sys.stdin.read()


@contextmanager
def served_apart(count: int) -> Iterator[list[str]]:
    """`served_here` in a child process."""
    command = [sys.executable, __file__, "--serve", str(count)]
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as child:
        assert child.stdin is not None
        assert child.stdout is not None
        try:
            yield json.loads(child.stdout.readline())
        finally:
            child.stdin.close()
            child.wait(timeout=30)


async def main(counts: list[int], rounds: int, here: bool) -> int:
    with (served_here if here else served_apart)(max(counts)) as urls:
        return await compare({f"s{i}": {"url": url} for i, url in enumerate(urls)}, counts, rounds)


async def compare(configs: dict[str, dict[str, Any]], counts: list[int], rounds: int) -> int:
    failed = False
    print(f"{'servers':>8}{'all ms':>9}{'slowest alone ms':>18}{'sum alone ms':>14}{'all/slowest':>13}{'target':>8}")
    alone = {
        name: statistics.median([await connect({name: config}) for _ in range(rounds)])
        for name, config in configs.items()
    }
    for count in counts:
        chosen = dict(list(configs.items())[:count])
        together = statistics.median([await connect(chosen) for _ in range(rounds)])
        slowest = max(alone[name] for name in chosen)
        ratio = together / slowest
        failed = failed or ratio > TARGET
        total = sum(alone[name] for name in chosen)
        print(f"{count:>8}{together * 1e3:>9.0f}{slowest * 1e3:>18.0f}{total * 1e3:>14.0f}{ratio:>13.2f}{TARGET:>8}")
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--counts", type=lambda s: [int(p) for p in s.split(",")], default=[1, 4, 16])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--in-process", action="store_true", help="serve from threads of this process")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        raise SystemExit(0)
    raise SystemExit(asyncio.run(main(args.counts, args.rounds, args.in_process)))
