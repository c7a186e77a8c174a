"""An MCP server that reads the client's roots: `python -m tests.servers.roots_server` (stdio).

`legacy_roots` asks with `roots/list` (legacy protocol); `asked_roots` asks within the call
with an `InputRequiredResult` (modern protocol). On `notifications/roots/list_changed` it
reads the roots again, as server-everything does; `seen_roots` tells what it read last and
how many notifications came.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    ListRootsRequest,
    ListRootsResult,
    NotificationParams,
)


def shown(result: ListRootsResult) -> str:
    return " ".join(f"{root.uri}={root.name or ''}" for root in result.roots) or "(none)"


def build() -> MCPServer:
    server = MCPServer("rooted")
    seen = {"changes": 0, "roots": "(not read)"}

    @server.tool()
    async def legacy_roots(ctx: Context) -> str:
        """The client's roots, asked with roots/list."""
        return shown(await ctx.session.list_roots())

    @server.tool()
    async def asked_roots(ctx: Context) -> str | InputRequiredResult:
        """The client's roots, asked within the call (modern protocol)."""
        answer = (ctx.input_responses or {}).get("roots")
        if not isinstance(answer, ListRootsResult):
            return InputRequiredResult(input_requests={"roots": ListRootsRequest()}, request_state="roots")
        return shown(answer)

    @server.tool()
    async def confirm_in_roots(ctx: Context) -> str | InputRequiredResult:
        """Asks for the roots and a person's confirmation in one round (modern protocol)."""
        responses = ctx.input_responses or {}
        roots, confirm = responses.get("roots"), responses.get("confirm")
        if not isinstance(roots, ListRootsResult) or not isinstance(confirm, ElicitResult):
            question = ElicitRequestFormParams(
                message="Work in these roots?",
                requested_schema={"type": "object", "properties": {"sure": {"type": "boolean"}}, "required": ["sure"]},
            )
            asked = {"roots": ListRootsRequest(), "confirm": ElicitRequest(params=question)}
            return InputRequiredResult(input_requests=asked, request_state="roots+confirm")
        return f"{shown(roots)} sure={(confirm.content or {}).get('sure')}"

    @server.tool()
    def seen_roots() -> str:
        """How many roots/list_changed notifications came, and the roots read after the last."""
        return f"{seen['changes']} {seen['roots']}"

    async def changed(ctx: Any, params: NotificationParams) -> None:
        seen["changes"] = int(seen["changes"]) + 1
        seen["roots"] = shown(await ctx.session.list_roots())

    server._lowlevel_server.add_notification_handler("notifications/roots/list_changed", NotificationParams, changed)
    return server


if __name__ == "__main__":
    build().run("stdio")
