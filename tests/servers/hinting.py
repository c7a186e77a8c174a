"""An MCP server whose `tools/list` answers carry a freshness hint, and which counts the
`tools/list` requests that reach it.

`build(ttl_ms=...)` sets the hint the SDK's way (`cache_hints`, `mcp.server.caching`);
`wire_ttl=...` instead puts any value as `ttlMs` on the wire (negative, malformed), as a
hostile server would. `grow` adds a tool without telling anyone (only a new listing shows
it); `announce` adds one and says so (`tools/list_changed`). `Hinting.asked` counts the
listings; with `log`, each is also a line in that file (`asked(log)`), for stdio:
`python -m tests.servers.hinting LOG [TTL_MS]`.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, MCPServer
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

_UNSET: Any = object()


@dataclass
class Hinting:
    server: MCPServer
    listings: list[int]

    @property
    def asked(self) -> int:
        """How many `tools/list` requests reached the server."""
        return len(self.listings)


def build(ttl_ms: int | None = None, *, wire_ttl: Any = _UNSET, log: Path | None = None) -> Hinting:
    listings: list[int] = []

    async def counting(ctx: Any, call_next: Any) -> Any:
        result = await call_next(ctx)
        if ctx.method == "tools/list" and ctx.request_id is not None:
            listings.append(1)
            if log is not None:
                with log.open("a", encoding="utf-8") as out:
                    out.write(json.dumps({"cursor": (ctx.params or {}).get("cursor")}) + "\n")
            if wire_ttl is not _UNSET and isinstance(result, dict):
                result = {**result, "ttlMs": wire_ttl}
        return result

    hints = {"tools/list": CacheHint(ttl_ms=ttl_ms)} if ttl_ms is not None else None
    server = MCPServer("hinting", cache_hints=hints, middleware=[counting])
    added: list[str] = []

    def add_tool() -> None:
        name = f"grown{len(added)}"
        added.append(name)

        def grown() -> str:
            return name

        server.add_tool(grown, name=name)

    @server.tool()
    def echo(text: str) -> str:
        """Repeat the text."""
        return text

    @server.tool()
    def grow() -> str:
        """Add a tool, silently."""
        add_tool()
        return added[-1]

    @server.tool()
    async def announce(ctx: Context) -> str:
        """Add a tool and announce the change."""
        add_tool()
        if ctx.request_context.protocol_version in MODERN_PROTOCOL_VERSIONS:
            await ctx.notify_tools_changed()
        else:
            await ctx.session.send_tool_list_changed()
        return added[-1]

    return Hinting(server, listings)


def asked(log: Path) -> int:
    """How many `tools/list` requests the stdio server writing `log` received."""
    return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


if __name__ == "__main__":
    ttl = int(sys.argv[2]) if len(sys.argv) > 2 else None
    build(ttl, log=Path(sys.argv[1])).server.run()
