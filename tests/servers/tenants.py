"""A server that several users call at once on one shared session: `work` waits until every
call of its round has arrived, then logs, reports progress and waits again until every call
of the round has done so, then answers or fails. Every text it sends names its caller
(`who`), so a test can tell whose it is wherever it turns up. A round that never fills up
fails its calls after `ROUND_WAIT_S` instead of hanging. `python -m tests.servers.tenants`
serves it over stdio."""

from __future__ import annotations

import asyncio
import sys
import warnings
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPDeprecationWarning

ROUND_WAIT_S = 20.0
"""How long a call waits for the rest of its round."""

TRANSPORTS = ("in-process", "in-process legacy", "http", "http legacy", "sse", "sse legacy", "stdio", "stdio legacy")
"""Every way to reach the server, in both protocol eras (`mode` auto, which finds it modern, and legacy)."""
TIED = frozenset({"in-process", "in-process legacy", "http", "http legacy"})
"""Those on which a server's message comes with the request it answers (a streamable HTTP
response stream; in-process, the caller's own context); on stdio and SSE it comes on the
session's one stream, with nothing to tell whose it is."""


class Rounds:
    """Meeting points by (round, stage): each call waits there until `together` calls came."""

    def __init__(self) -> None:
        self._came: defaultdict[tuple[str, str], set[str]] = defaultdict(set)
        self._full: defaultdict[tuple[str, str], asyncio.Event] = defaultdict(asyncio.Event)

    async def meet(self, round_id: str, stage: str, who: str, together: int) -> None:
        key = (round_id, stage)
        self._came[key].add(who)
        if len(self._came[key]) >= together:
            self._full[key].set()
        try:
            await asyncio.wait_for(self._full[key].wait(), ROUND_WAIT_S)
        except TimeoutError:
            raise ToolError(f"round {round_id}: only {sorted(self._came[key])} of {together} calls {stage}") from None


def build() -> MCPServer:
    warnings.filterwarnings("ignore", category=MCPDeprecationWarning)  # MCP logging is deprecated, still served
    server = MCPServer("tenants")
    rounds = Rounds()

    @server.tool()
    async def work(
        who: str, round: str, ctx: Context, together: int = 1, logs: int = 1, progress: int = 0, fail: bool = False
    ) -> str:
        """Meet the round, log `logs` lines and report `progress` steps naming `who`, meet
        again, then answer (or fail) naming `who`."""
        await rounds.meet(round, "arrived", who, together)
        for i in range(logs):
            await ctx.info(f"log {i} of {who}")
        for i in range(progress):
            await ctx.report_progress(i + 1, progress, f"progress {i} of {who}")
        await rounds.meet(round, "spoke", who, together)
        if fail:
            raise ToolError(f"failure of {who}")
        return f"result of {who}"

    tokens: defaultdict[str, dict[str, object]] = defaultdict(dict)

    @server.tool()
    async def cross(who: str, round: str, ctx: Context, together: int = 2) -> str:
        """A server mixing up its callers: report progress, on this call's own stream, with
        the progress token of each other call of the round."""
        meta: dict[str, object] = dict(ctx.request_context.meta or {})
        tokens[round][who] = meta.get("progress_token", meta.get("progressToken"))
        await rounds.meet(round, "arrived", who, together)
        for other, token in tokens[round].items():
            if other != who and isinstance(token, str | int):
                message = f"progress of {who} sent as {other}'s"
                await ctx.session.send_progress_notification(token, 1, 1, message, related_request_id=ctx.request_id)
        await rounds.meet(round, "spoke", who, together)
        return f"result of {who}"

    return server


@contextmanager
def shared(
    transport: str, build: Callable[[], MCPServer] = build, module: str = "tests.servers.tenants"
) -> Iterator[dict[str, Any]]:
    """The server config of one `transport` (of `TRANSPORTS`), served while the block runs:
    `build()`'s server, or over stdio `module`'s (run with `-m`)."""
    from mcpbridge.testing import serve_http

    mode = "legacy" if transport.endswith(" legacy") else "auto"
    kind = transport.removesuffix(" legacy")
    if kind == "in-process":
        yield {"server": build(), "mode": mode}
    elif kind == "stdio":
        root = str(Path(__file__).resolve().parents[2])
        yield {"command": sys.executable, "args": ["-m", module], "cwd": root, "mode": mode}
    else:
        served = serve_http(build().sse_app() if kind == "sse" else build())
        try:
            if kind == "sse":
                yield {"url": f"{served.base_url}/sse", "transport": "sse", "mode": mode}
            else:
                yield {"url": served.url, "mode": mode}
        finally:
            served.stop()


if __name__ == "__main__":
    build().run()
