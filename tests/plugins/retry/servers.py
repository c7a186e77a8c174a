"""Real misbehaving MCP servers for the retry tests.

`python -m tests.plugins.retry.servers STATE_DIR` runs a stdio server whose process exits in
the middle of a call when the test arms `STATE_DIR/die-<tool>`, and refuses to start once when
it arms `STATE_DIR/refuse-start`. Every call is logged to `STATE_DIR/calls.log` (tool, pid).
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

READ_ONLY = ToolAnnotations(read_only_hint=True)
DESTRUCTIVE = ToolAnnotations(destructive_hint=True)


def log_call(state: Path, tool: str) -> None:
    with (state / "calls.log").open("a") as log:
        log.write(f"{tool} {os.getpid()}\n")
    marker = state / f"die-{tool}"
    if marker.exists():
        marker.unlink()
        os._exit(3)


def calls(state: Path) -> list[tuple[str, int]]:
    log = state / "calls.log"
    lines = log.read_text().split() if log.exists() else []
    return [(tool, int(pid)) for tool, pid in zip(lines[::2], lines[1::2], strict=True)]


def dying(state: Path) -> MCPServer:
    server = MCPServer("dying")

    @server.tool(annotations=READ_ONLY)
    def lookup(key: str) -> str:
        """Read a record."""
        log_call(state, "lookup")
        return f"{key}@{os.getpid()}"

    @server.tool(annotations=DESTRUCTIVE)
    def delete_record(key: str) -> str:
        """Delete a record."""
        log_call(state, "delete_record")
        return f"deleted {key}"

    return server


class Flaky:
    """An in-process server whose tools hang past the client's timeout on their first `k` calls."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.calls: dict[str, int] = {}
        self.hanging = asyncio.Event()
        self.server = MCPServer("flaky")
        self.server.tool(annotations=READ_ONLY)(self.read_report)
        self.server.tool()(self.write_report)
        self.server.tool(annotations=READ_ONLY)(self.hang)
        self.server.tool(annotations=READ_ONLY)(self.account)

    async def _flake(self, tool: str) -> None:
        self.calls[tool] = self.calls.get(tool, 0) + 1
        if self.calls[tool] <= self.k:
            await anyio.sleep(2)

    async def read_report(self, name: str) -> str:
        """Read a report (read-only)."""
        await self._flake("read_report")
        return f"report {name}"

    async def write_report(self, name: str) -> str:
        """Write a report (not annotated: may have side effects)."""
        await self._flake("write_report")
        return f"wrote {name}"

    async def hang(self) -> str:
        """Never answers in time."""
        self.calls["hang"] = self.calls.get("hang", 0) + 1
        self.hanging.set()
        await anyio.sleep(30)
        return "late"

    def account(self, ctx: Context) -> str:
        """The caller's x-user-id header (read-only)."""
        self.calls["account"] = self.calls.get("account", 0) + 1
        return str((ctx.headers or {}).get("x-user-id", "anonymous"))


def refuse_start_once(state: Path) -> None:
    marker = state / "refuse-start"
    if marker.exists():
        marker.unlink()
        sys.exit(4)


def run(argv: list[str]) -> Any:
    state = Path(argv[1])
    refuse_start_once(state)
    dying(state).run("stdio")


if __name__ == "__main__":
    run(sys.argv)
