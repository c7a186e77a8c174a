"""Per-call latency of `tool.ainvoke(ToolCall)` through the bridge vs the raw mcp SDK's
`ClientSession.call_tool` on the same persistent session, over stdio, streamable HTTP and
in-process, for the bare core (`plugins=[]`) and for the default install (every installed
plugin loaded, none configured).

Targets: bare bridge/raw ≤ 1.05 (stdio), ≤ 1.05 (http), ≤ 1.12 (in-process); the default
install at most 5% over the bare core (default ratio / bare ratio ≤ 1.05).

Beside the wall-clock medians, `cpu over µs` is the median CPU time per call this process
spends beyond the raw call's (user and system, every thread): what the bridge itself costs,
which a busy or virtualized machine does not stretch. Over HTTP and in-process the server runs
in this process too; its CPU is in both calls alike.

Then, apart, a session of the SDK's own, as a user of the SDK alone has it (`mcp.Client(...)`,
its defaults), takes turns with the bridge's session: it checks each result against the tool's
output schema itself and, over stdio, reads with the SDK's reader, where the bridge's session
leaves the check to the bridge and reads with its own. That ratio gives the bridge's call over
the SDK alone. The targets are for `ratio`, the bridge over its own session: what the bridge
adds, and nothing else."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Sequence
from functools import partial
from typing import Any

from _common import basic, echo_on, paired_medians, serve_http, stdio_config, tool_call
from mcp import Client, StdioServerParameters

from mcpbridge import MCPBridge

logging.disable(logging.INFO)
TARGETS = {"stdio": 1.05, "http": 1.05, "inproc": 1.12}
DEFAULT_OVER_BARE = 1.05
INSTALLS: dict[str, Sequence[str] | None] = {"bare": [], "default": None}


async def measure(
    server: dict[str, Any], rounds: int, plugins: Sequence[str] | None
) -> tuple[list[float], list[float]]:
    """Median seconds per call through the bridge and on its raw session, taking turns:
    walls, then CPU times."""
    async with MCPBridge({"bench": server}, plugins=plugins) as bridge:
        echo = {t.name: t for t in await bridge.list_tools()}["echo"]
        session = await bridge.session("bench")
        call = tool_call("echo", {"text": "hello"})

        async def through_bridge() -> Any:
            return await echo.ainvoke(call)

        return await paired_medians(through_bridge, partial(echo_on, session), rounds=rounds)


async def sdk_over_raw(server: dict[str, Any], sdk_target: Any, rounds: int) -> float:
    """A call on a session of the SDK's own (`mcp.Client(sdk_target)`, its defaults) over one
    on the bridge's session, taking turns (apart from `measure`: on two cores, a third server
    process beside the pair would stretch the calls it measures)."""
    async with MCPBridge({"bench": server}, plugins=[]) as bridge, Client(sdk_target) as sdk:
        await bridge.list_tools()
        session = await bridge.session("bench")
        (sdk_s, raw_s), _ = await paired_medians(
            partial(echo_on, sdk.session), partial(echo_on, session), rounds=rounds
        )
        return sdk_s / raw_s


async def main(rounds: int) -> int:
    served = serve_http(basic.build().streamable_http_app())
    stdio = stdio_config()
    servers = {  # name: (the bridge's server table, what `mcp.Client` takes for the same server)
        "stdio": (stdio, StdioServerParameters(command=stdio["command"], args=stdio["args"], cwd=stdio["cwd"])),
        "http": ({"url": served.url}, served.url),
        "inproc": ({"server": basic.build()}, basic.build()),
    }
    failed = False
    print(
        f"{'transport':<10}{'install':<9}{'raw ms':>9}{'bridge ms':>11}{'over µs':>9}{'ratio':>7}{'target':>8}"
        f"{'cpu over µs':>13}"
    )
    for name, (server, sdk_target) in servers.items():
        ratios: dict[str, float] = {}
        for install, plugins in INSTALLS.items():
            (bridge_s, raw_s), (bridge_cpu, raw_cpu) = await measure(server, rounds, plugins)
            ratio = ratios[install] = bridge_s / raw_s
            target = TARGETS[name] if install == "bare" else TARGETS[name] * DEFAULT_OVER_BARE
            print(
                f"{name:<10}{install:<9}{raw_s * 1e3:>9.3f}{bridge_s * 1e3:>11.3f}"
                f"{(bridge_s - raw_s) * 1e6:>9.0f}{ratio:>7.2f}{target:>8.2f}{(bridge_cpu - raw_cpu) * 1e6:>13.0f}"
            )
        sdk = await sdk_over_raw(server, sdk_target, rounds)
        print(
            f"{name:<10}the SDK's own session over the bridge's: {sdk:.3f}, so bridge / SDK alone: "
            f"bare {ratios['bare'] / sdk:.2f}, default {ratios['default'] / sdk:.2f}"
        )
        over_bare = ratios["default"] / ratios["bare"]
        print(f"{name:<10}default install / bare core: {over_bare:.3f} (target ≤ {DEFAULT_OVER_BARE})")
        failed = failed or ratios["bare"] > TARGETS[name] or over_bare > DEFAULT_OVER_BARE
    served.stop()
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=1000)
    raise SystemExit(asyncio.run(main(parser.parse_args().rounds)))
