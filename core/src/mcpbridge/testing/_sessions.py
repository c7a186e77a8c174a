"""What a test may see of one server's session and do to it, beside what the bridge's public
methods already offer: whether it is open, whether the server announced a tool change, how
long its listing stays fresh, a call past every interceptor, and closing it to test a
reconnect. The one place the testing helpers reach into a bridge's sessions, so that tests
keep working when the core's insides change."""

from __future__ import annotations

from mcpbridge import MCPBridge, ToolCallRequest, ToolCallResult


class SessionProbe:
    """`SessionProbe(bridge, server)`: `server`'s session in `bridge`, as a test observes and
    drives it; every property is read anew from the bridge, so a test can poll it until a
    change shows. An unknown `server` raises `ConfigError` naming the known ones."""

    def __init__(self, bridge: MCPBridge, server: str) -> None:
        self.bridge = bridge
        self.server = server
        self._connection = bridge._connection(server)

    @property
    def connected(self) -> bool:
        """A session is open and its transport has not ended (a server that exited, or whose
        stream closed, reads False as soon as the bridge noticed, before any next call)."""
        return self._connection.connected

    @property
    def tools_changed(self) -> bool:
        """The server announced `tools/list_changed` and its tools were not listed since."""
        return self._connection.tools_stale

    @property
    def listing_fresh_until(self) -> float | None:
        """When (epoch seconds, `time.time()`) the held listing stops being fresh, as the server's
        `ttlMs` hint says; None without a hint (the listing is held until a change is announced)."""
        return self._connection._listing._until

    async def call_tool(self, request: ToolCallRequest) -> ToolCallResult:
        """Send `request` on the session, past every interceptor: the handler at the bottom of
        the chain, to drive one interceptor alone (`await interceptor(request, probe.call_tool)`)."""
        return await self.bridge._home.submit(self._connection.call_tool(request))

    async def close(self) -> None:
        """Close the session (a stdio server's process ends); the next call opens a new one."""
        await self.bridge._home.submit(self._connection.aclose())
