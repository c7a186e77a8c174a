"""`mcpbridge cache clear [--server S] [--tool T]`: invalidate entries from outside the
agent processes. Reads the same config file as the bridge but connects to no server."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from mcpbridge import ConfigError, PluginConfig, load_settings
from mcpbridge_cache import build_store, check_server, settings_from
from mcpbridge_cache.stores import Store, StoreUnavailable

PROG = "mcpbridge cache"


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog=PROG, description="Manage the mcpbridge-cache result cache.")
    commands = top.add_subparsers(dest="command", required=True)
    clear = commands.add_parser("clear", help="remove cached tool results (all, or one server's / one tool's)")
    clear.add_argument("--config", help="config file (default: ./mcpbridge.toml)")
    clear.add_argument("--server", help="only this server's entries")
    clear.add_argument("--tool", help="only this MCP tool name's entries (with --server: of that server)")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the process exit code (0 ok, 1 Redis unreachable, 2 bad config)."""
    args = parser().parse_args(argv)
    try:
        return _clear(args.config, args.server, args.tool)
    except ConfigError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2
    except StoreUnavailable as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1


def _clear(path: str | None, server: str | None, tool: str | None) -> int:
    settings = load_settings(path)
    check_server(server, settings.servers)
    cache = settings_from(PluginConfig(settings))
    if cache.backend == "memory":
        print(
            f"{PROG}: nothing to clear: the in-memory cache lives inside each agent process and ends with it. "
            'Call `await mcpbridge_cache.clear(bridge)` there, or use backend = "redis" to share (and clear) it.',
            file=sys.stderr,
        )
        return 0
    removed = asyncio.run(_clear_store(build_store(cache), server, tool))
    scope = " ".join(f"{k}={v}" for k, v in (("server", server), ("tool", tool)) if v is not None) or "all"
    print(f"cleared {removed} cache entr{'y' if removed == 1 else 'ies'} ({scope})")
    return 0


async def _clear_store(store: Store, server: str | None, tool: str | None) -> int:
    try:
        return await store.clear(server, tool)
    finally:
        await store.aclose()
