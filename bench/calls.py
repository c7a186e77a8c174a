"""Per-call latency of `tool.ainvoke(ToolCall)` through the bridge vs the raw mcp SDK's
`ClientSession.call_tool` on the same persistent session: stdio, streamable HTTP and
in-process. Targets: bridge/raw ≤ 1.10 (stdio), ≤ 1.10 (http), ≤ 1.35 (in-process)."""

from __future__ import annotations

import argparse
import asyncio
import logging
from typing import Any

from _common import basic, paired_medians, serve_http, stdio_config, tool_call

from mcpbridge import MCPBridge

logging.disable(logging.INFO)
TARGETS = {"stdio": 1.10, "http": 1.10, "inproc": 1.35}


async def measure(server: dict[str, Any], rounds: int) -> tuple[float, float]:
    async with MCPBridge({"bench": server}, plugins=[]) as bridge:
        echo = {t.name: t for t in await bridge.list_tools()}["echo"]
        session = await bridge.session("bench")
        call = tool_call("echo", {"text": "hello"})

        async def through_bridge() -> Any:
            return await echo.ainvoke(call)

        async def raw() -> Any:
            return await session.call_tool("echo", {"text": "hello"}, allow_input_required=True)

        return await paired_medians(through_bridge, raw, rounds=rounds)


async def main(rounds: int) -> int:
    served = serve_http(basic.build().streamable_http_app())
    servers = {
        "stdio": stdio_config(),
        "http": {"url": served.url},
        "inproc": {"server": basic.build()},
    }
    ratios: dict[str, float] = {}
    print(f"{'transport':<10}{'raw ms':>10}{'bridge ms':>12}{'overhead µs':>14}{'ratio':>8}{'target':>8}")
    for name, server in servers.items():
        bridge_s, raw_s = await measure(server, rounds)
        ratios[name] = bridge_s / raw_s
        overhead_us = (bridge_s - raw_s) * 1e6
        print(
            f"{name:<10}{raw_s * 1e3:>10.3f}{bridge_s * 1e3:>12.3f}{overhead_us:>14.0f}"
            f"{ratios[name]:>8.2f}{TARGETS[name]:>8.2f}"
        )
    served.stop()
    print(f"bridge/raw stdio: {ratios['stdio']:.2f}  http: {ratios['http']:.2f}  inproc: {ratios['inproc']:.2f}")
    return 0 if all(ratios[k] <= TARGETS[k] for k in TARGETS) else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=1000)
    raise SystemExit(asyncio.run(main(parser.parse_args().rounds)))
