"""Which sessions belong to a `MultiServerMCPClient`, and how requests reach them.

A session from `client.session(name)` is the bridge's shared one: the drop-in's functions
(`load_mcp_tools`, `load_mcp_prompt`, ...) recognise it and go through the bridge (its
plugins, its reconnection); any other session is used as it is, as the adapters use it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from weakref import WeakKeyDictionary

from mcp import ClientSession
from mcp.types import PaginatedRequestParams

from mcpbridge_adapters.convert import field

if TYPE_CHECKING:
    from mcpbridge_adapters.client import MultiServerMCPClient

SESSIONS: WeakKeyDictionary[ClientSession, ClientServer] = WeakKeyDictionary()
"""The shared sessions `MultiServerMCPClient.session()` handed out."""


@dataclass(frozen=True)
class ClientServer:
    """One server of a client: what a shared session stands for (never connects by itself)."""

    client: MultiServerMCPClient
    server_name: str


def client_server(session: Any) -> ClientServer | None:
    """The client and server behind `session`, when it is one of a client's shared sessions."""
    if isinstance(session, ClientServer):
        return session
    try:
        return SESSIONS.get(session)
    except TypeError:  # not weakly referenceable: not one of ours
        return None


class BridgeSession:
    """The requests the drop-in's loaders send, through the bridge's shared session (from
    any loop or thread; an error answer raises mcpbridge's `ServerRequestError`)."""

    def __init__(self, where: ClientServer) -> None:
        self.bridge, self.server = where.client.bridge, where.server_name

    async def list_tools(self, *, params: PaginatedRequestParams | None = None) -> Any:
        return await self.bridge.request(self.server, "tools/list", lambda s: s.list_tools(params=params))

    async def list_resources(self, *, params: PaginatedRequestParams | None = None) -> Any:
        return await self.bridge.request(self.server, "resources/list", lambda s: s.list_resources(params=params))

    async def read_resource(self, uri: str) -> Any:
        return await self.bridge.request(self.server, f"resources/read of {uri!r}", lambda s: s.read_resource(uri))

    async def call_tool(self, name: str, arguments: dict[str, Any] | None = None, **options: Any) -> Any:
        return await self.bridge.request(
            self.server, f"tools/call of {name!r}", lambda s: s.call_tool(name, arguments, **options)
        )

    async def get_prompt(self, name: str, arguments: dict[str, Any] | None = None) -> Any:
        return await self.bridge.request(
            self.server, f"prompts/get of {name!r}", lambda s: s.get_prompt(name, arguments)
        )


def requests_to(session: Any) -> Any:
    """Where to send a loader's requests: the bridge for a client's shared session, else
    `session` itself."""
    where = client_server(session)
    return BridgeSession(where) if where is not None else session


async def list_pages(session: Any, method: str, items: str) -> list[Any]:
    """Every page of a list request (`list_tools`, `list_resources`), following cursors; the
    first page is asked for without arguments, as any session-like object accepts."""
    found: list[Any] = []
    page = await getattr(session, method)()
    for _ in range(1000):
        found.extend(getattr(page, items) or [])
        cursor = field(page, "next_cursor", "nextCursor")
        if not cursor:
            return found
        page = await getattr(session, method)(params=PaginatedRequestParams(cursor=cursor))
    raise RuntimeError(f"Reached max of 1000 iterations while listing ({method}).")
