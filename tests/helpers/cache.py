"""The cache tests' counting server and helpers (the fixtures are in
tests/plugins/cache/conftest.py). Nothing is cached without rules: tests pass
`rules=READS` (every read-only tool of "s") or their own."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from typing import Annotated, Any

import anyio
import mcpbridge_cache
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult, ToolAnnotations
from pydantic import BaseModel

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import make_tool_call

READ_ONLY = ToolAnnotations(read_only_hint=True)
READS = [{"server": "s"}]
"""The rule that caches every read-only tool of server "s"."""


class When(BaseModel):
    date: str


def ask_date() -> Elicit[When]:
    return Elicit("For which date?", When)


def counting_server(calls: Counter[str], gate: asyncio.Event | None = None) -> MCPServer:
    """Tools for each cache decision; `calls[tool]` counts what really reached the server.
    With a `gate` (an in-process server), `slow_lookup` answers once the test opens it."""
    server = MCPServer("counting")

    @server.tool(annotations=READ_ONLY)
    def lookup(q: str, limit: int = 1) -> str:
        """Read-only: cached by default."""
        calls["lookup"] += 1
        return f"{q}:{limit}:{calls['lookup']}"

    @server.tool(annotations=READ_ONLY)
    async def slow_lookup(q: str) -> str:
        """Read-only and slow, so concurrent calls overlap."""
        calls["slow_lookup"] += 1
        await (gate.wait() if gate is not None else anyio.sleep(0.1))
        return f"slow:{q}"

    @server.tool()
    def plain(q: str) -> str:
        """No annotations: cached only when a rule names it exactly."""
        calls["plain"] += 1
        return f"plain:{q}:{calls['plain']}"

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def wipe(q: str) -> str:
        """Marked destructive: never cached, even when a rule selects it."""
        calls["wipe"] += 1
        return f"wiped:{q}"

    @server.tool(annotations=READ_ONLY)
    async def failing(q: str) -> str:
        """Read-only but always an error result."""
        calls["failing"] += 1
        await anyio.sleep(0.05)
        raise ToolError(f"no {q}")

    @server.tool(annotations=READ_ONLY)
    def ask(q: str) -> InputRequiredResult:
        """Read-only but asks for input first."""
        calls["ask"] += 1
        params = ElicitRequestFormParams(message=f"which {q}?", requested_schema={"type": "object", "properties": {}})
        return InputRequiredResult(request_state="s1", input_requests={"which": ElicitRequest(params=params)})

    @server.tool(annotations=READ_ONLY)
    def dated(q: str, when: Annotated[When, Resolve(ask_date)]) -> str:
        """Read-only, but asks the client for a date mid-call (on a legacy session)."""
        calls["dated"] += 1
        return f"{q}@{when.date}:{calls['dated']}"

    @server.tool()
    def whoami(ctx: Context) -> str:
        """Answers with the caller's x-user-id header."""
        calls["whoami"] += 1
        return str((ctx.headers or {}).get("x-user-id", "anonymous"))

    return server


BridgeMaker = Callable[..., AbstractAsyncContextManager[MCPBridge]]


async def user_header(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """Stands in for the headers plugin (outside the cache, which is innermost): the call
    carries the user id of its runtime context as `x-user-id`."""
    context = request.runtime.context if request.runtime is not None else None
    user = context.get("user_id") if isinstance(context, dict) else None
    return await handler(request.override(headers={"x-user-id": user}) if user else request)


def cache_entries(message: Any) -> list[dict[str, Any]]:
    return [entry for entry in message.artifact if entry.get("type") == mcpbridge_cache.ARTIFACT_TYPE]


async def call(bridge: MCPBridge, tool: str, args: dict[str, Any], *, runtime: Any = None) -> Any:
    """`tool.ainvoke(ToolCall)`: the ToolMessage, with its artifact."""
    tools = {t.binding.tool.name: t for t in await bridge.list_tools()}
    return await tools[tool].ainvoke(make_tool_call(tools[tool], args, runtime=runtime))


def text(message: Any) -> str:
    return str(message.content[0]["text"])


SECRET = "test-cache-secret-0123456789"
