"""`mcpbridge cache clear [--server S] [--tool T]`: invalidate entries from outside the
agent processes. Builds the bridge of the same config file (settings checked as the agents'
are) but connects to no MCP server."""

from __future__ import annotations

import argparse
import asyncio
import sys

import mcpbridge_cache
from mcpbridge import AddCommand, MCPBridge, load_settings


def add(add_command: AddCommand) -> None:
    cache = add_command("cache", run, "manage the mcpbridge-cache result cache")
    actions = cache.add_subparsers(dest="action", required=True)
    clear = actions.add_parser("clear", help="remove cached tool results (all, or one server's / one tool's)")
    clear.add_argument("--config", default=argparse.SUPPRESS, help="config file (default: ./mcpbridge.toml)")
    clear.add_argument("--server", help="only this server's entries")
    clear.add_argument("--tool", help="only this MCP tool name's entries (with --server: of that server)")


def run(options: argparse.Namespace) -> int:
    bridge = MCPBridge(settings=load_settings(options.config), plugins=[mcpbridge_cache])
    mcpbridge_cache.check_server(options.server, bridge.servers)
    [cache] = mcpbridge_cache.interceptors_of(bridge)
    if isinstance(cache.store, mcpbridge_cache.MemoryStore):
        print(
            "mcpbridge cache: nothing to clear: the in-memory cache lives inside each agent process and ends with it. "
            'Call `await mcpbridge_cache.clear(bridge)` there, or use backend = "redis" to share (and clear) it.',
            file=sys.stderr,
        )
        return 0
    removed = asyncio.run(_clear(bridge, options.server, options.tool))
    scope = " ".join(f"{k}={v}" for k, v in (("server", options.server), ("tool", options.tool)) if v) or "all"
    print(f"cleared {removed} cache entr{'y' if removed == 1 else 'ies'} ({scope})")
    return 0


async def _clear(bridge: MCPBridge, server: str | None, tool: str | None) -> int:
    async with bridge:
        return await mcpbridge_cache.clear(bridge, server, tool)
