"""Large tool results (1, 4, 16, 50 MB of text) through MCPBridge over stdio (its own
transport) vs streamable HTTP, same server code. Prints the best of a few calls per size and
the ratio stdio/HTTP; target ≤ 2 at 50 MB. The raw SDK `stdio_client` is timed at 1 and 4 MB
for comparison (its reader is quadratic: 50 MB takes about a minute)."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time
from typing import Any, TextIO

from _common import ROOT, serve_http
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import TextContent

from mcpbridge import MCPBridge
from tests.servers import noisy_stdio

logging.disable(logging.INFO)
MB = 1_000_000
SIZES = [1, 4, 16, 50]
ROUNDS = {1: 5, 4: 3, 16: 2, 50: 2}
SDK_SIZES = [1, 4]
TARGET = 2.0
ARGS = ["-m", "tests.servers.noisy_stdio"]


async def best_of(server: Any, sizes: list[int], rounds: dict[int, int]) -> dict[int, float]:
    """Best seconds per size for one raw SDK `big` call on one persistent session."""
    times: dict[int, float] = {}
    async with Client(server) as client:
        await client.session.call_tool("big", {"size": MB})  # warm up
        for size in sizes:
            best = float("inf")
            for _ in range(rounds[size]):
                start = time.perf_counter()
                result = await client.session.call_tool("big", {"size": size * MB}, read_timeout_seconds=600)
                best = min(best, time.perf_counter() - start)
                block = result.content[0]
                assert isinstance(block, TextContent)
                assert len(block.text) == size * MB
            times[size] = best
    return times


async def bridge_best_of(server: dict[str, Any], sizes: list[int], rounds: dict[int, int]) -> dict[int, float]:
    """Best seconds per size for one `big` tool call through MCPBridge on its persistent session."""
    times: dict[int, float] = {}
    async with MCPBridge({"bench": server}, plugins=[], timeout=600) as bridge:
        big = {tool.name: tool for tool in await bridge.list_tools()}["big"]
        await big.ainvoke({"size": MB})  # warm up
        for size in sizes:
            best = float("inf")
            for _ in range(rounds[size]):
                start = time.perf_counter()
                blocks = await big.ainvoke({"size": size * MB})
                best = min(best, time.perf_counter() - start)
                assert len(blocks[0]["text"]) == size * MB
            times[size] = best
    return times


async def main(sizes: list[int], devnull: TextIO) -> int:
    stdio = await bridge_best_of({"command": sys.executable, "args": ARGS, "cwd": str(ROOT)}, sizes, ROUNDS)
    served = serve_http(noisy_stdio.build().streamable_http_app())
    try:
        http = await bridge_best_of({"url": served.url}, sizes, ROUNDS)
    finally:
        served.stop()
    params = StdioServerParameters(command=sys.executable, args=ARGS, cwd=ROOT)
    sdk = await best_of(stdio_client(params, errlog=devnull), SDK_SIZES, ROUNDS)

    print(f"{'MB':>4}{'stdio s':>10}{'http s':>10}{'stdio/http':>12}{'SDK stdio s':>14}")
    for size in sizes:
        raw = f"{sdk[size]:>14.3f}" if size in sdk else f"{'':>14}"
        print(f"{size:>4}{stdio[size]:>10.3f}{http[size]:>10.3f}{stdio[size] / http[size]:>12.2f}{raw}")
    largest = max(sizes)
    ratio = stdio[largest] / http[largest]
    print(f"stdio/http at {largest} MB: {ratio:.2f} (target ≤ {TARGET})")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="result sizes in MB")
    with open(os.devnull, "w") as devnull:  # the SDK's stdio_client would print the server's stderr to ours
        raise SystemExit(asyncio.run(main(parser.parse_args().sizes, devnull)))
