"""An MCP server that counts the calls each tool receives, so tests can prove a call ran once.

`build()` returns a fresh server and its `Counter`: `"<tool>"` counts executions, and for
`confirm_delete` `"confirm_delete.ask"` counts the rounds that asked for confirmation.
"""

from __future__ import annotations

import asyncio
from collections import Counter

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult, ToolAnnotations

RUN_SECONDS = 0.3
"""How long an execution takes: long enough for racing workers to overlap."""

_DESTRUCTIVE = ToolAnnotations(destructive_hint=True)
_WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False)


def build() -> tuple[MCPServer, Counter[str]]:
    server = MCPServer("counting")
    calls: Counter[str] = Counter()

    @server.tool(annotations=_DESTRUCTIVE)
    async def delete_file(path: str) -> str:
        """Delete a file (destructive: the approval plugin gates it)."""
        calls["delete_file"] += 1
        await asyncio.sleep(RUN_SECONDS)
        return f"deleted {path}"

    @server.tool(annotations=_DESTRUCTIVE)
    async def wipe_disk(disk: str) -> str:
        """Never answers: a worker killed while it runs leaves its call claimed."""
        calls["wipe_disk"] += 1
        await asyncio.Event().wait()
        return "unreachable"

    @server.tool(annotations=_WRITES)
    async def confirm_delete(user: str, ctx: Context) -> str | InputRequiredResult:
        """Delete an account once a person confirms (a modern-protocol question)."""
        reply = (ctx.input_responses or {}).get("confirm")
        if not isinstance(reply, ElicitResult):
            calls["confirm_delete.ask"] += 1
            question = ElicitRequestFormParams(
                message=f"Really delete {user}?",
                requested_schema={"type": "object", "properties": {"sure": {"type": "boolean"}}, "required": ["sure"]},
            )
            return InputRequiredResult(input_requests={"confirm": ElicitRequest(params=question)}, request_state=user)
        calls["confirm_delete"] += 1
        await asyncio.sleep(RUN_SECONDS)
        return f"deleted account {user}" if reply.content and reply.content.get("sure") else f"kept {user}"

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def echo(text: str) -> str:
        """Repeat the text (never paused)."""
        calls["echo"] += 1
        return text

    return server, calls
