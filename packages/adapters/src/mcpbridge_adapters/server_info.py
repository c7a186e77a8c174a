"""What a server says about itself: name, version, title, instructions."""

from __future__ import annotations

from mcp import ClientSession

from mcpbridge import ServerInfo
from mcpbridge_adapters.tools import client_of

__all__ = ["ServerInfo", "load_mcp_server_info"]


async def load_mcp_server_info(session: ClientSession) -> ServerInfo:
    """The server info of the server whose session (from `MultiServerMCPClient.session`) this is."""
    client, server_name = client_of(session)
    return (await client.get_server_info(server_name=server_name))[server_name]
