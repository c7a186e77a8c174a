"""How low the bare bridge's ratio can go: `tool.ainvoke(ToolCall)` over the raw call on the
same session (as in `bench/calls.py`), paired call by call over stdio, streamable HTTP and
in-process, three ways:

- the bridge as it is (`plugins=[]`);
- the bridge with its protective checks replaced by no-ops (`CHECKS`: whether callbacks
  listen, the arguments' wire check, the schema checks, the output-schema check), which no
  release may do: what is left is the LangChain tool contract, the chain and the session;
- a hand-written LangChain `StructuredTool` calling `session.call_tool` on the same session,
  the way a user would write one without the bridge.

The checks' share of the ratio is the gap between the first two rows. The second row is a
floor: a ratio target of `bench/calls.py` below it cannot be met by making the bridge leaner,
only by removing behaviour.

    python bench/floor.py [--rounds 600]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from functools import partial
from typing import Any

from _common import basic, echo_on, hand_written_echo, paired_medians, serve_http, stdio_config, tool_call

import mcpbridge._session.connections as connections
import mcpbridge._tools.arguments as arguments
import mcpbridge._tools.schemas as schemas
import mcpbridge._tools.tool as tool
from mcpbridge import MCPBridge

logging.disable(logging.INFO)


async def _nothing_wrong(*args: Any, **kwargs: Any) -> None:
    return None


CHECKS: dict[str, tuple[Any, str, Callable[..., Any]]] = {
    "whether callbacks listen": (tool, "nobody_listens", lambda *args: True),
    "the arguments' wire check": (arguments, "wire_problems", lambda *args, **kwargs: None),
    "the schema checks": (schemas.ToolSchema, "problems", lambda *args, **kwargs: None),
    "the output-schema check": (connections.Connection, "output_problem", _nothing_wrong),
}
"""Check name: (module or class, attribute, the no-op put in its place)."""


@contextmanager
def checks_out() -> Any:
    kept = {}
    for name, (home, attribute, no_op) in CHECKS.items():
        if not hasattr(home, attribute):
            raise SystemExit(f"bench/floor.py: {home.__name__}.{attribute} is gone: update CHECKS ({name})")
        kept[name] = getattr(home, attribute)
        setattr(home, attribute, no_op)
    try:
        yield
    finally:
        for name, (home, attribute, _) in CHECKS.items():
            setattr(home, attribute, kept[name])


async def ratios(server: dict[str, Any], rounds: int) -> dict[str, float]:
    """bridge/raw as is and with the checks out, and hand-written tool/raw, on one session."""
    async with MCPBridge({"bench": server}, plugins=[]) as bridge:
        echo = {t.name: t for t in await bridge.list_tools()}["echo"]
        session = await bridge.session("bench")
        call = tool_call("echo", {"text": "hello"})
        rows: dict[str, tuple[Any, Callable[[], Any]]] = {
            "bridge": (echo, nullcontext),
            "bridge, checks out": (echo, checks_out),
            "hand-written": (hand_written_echo(session), nullcontext),
        }
        found: dict[str, float] = {}
        for row, (runs, conditions) in rows.items():

            async def through(runs: Any = runs) -> Any:
                return await runs.ainvoke(call)

            with conditions():
                (through_s, raw_s), _ = await paired_medians(through, partial(echo_on, session), rounds=rounds)
            found[row] = through_s / raw_s
        return found


async def main(rounds: int) -> None:
    served = serve_http(basic.build().streamable_http_app())
    servers = {"stdio": stdio_config(), "http": {"url": served.url}, "inproc": {"server": basic.build()}}
    print(f"{'transport':<10}{'bridge':>8}{'bridge, checks out':>20}{'hand-written StructuredTool':>29}   (over raw)")
    for name, server in servers.items():
        found = await ratios(server, rounds)
        print(f"{name:<10}{found['bridge']:>8.3f}{found['bridge, checks out']:>20.3f}{found['hand-written']:>29.3f}")
    served.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=600)
    asyncio.run(main(parser.parse_args().rounds))
