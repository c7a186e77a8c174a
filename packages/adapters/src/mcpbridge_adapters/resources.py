"""Resources as LangChain Blobs (metadata: `uri`, `server_name`)."""

from __future__ import annotations

from langchain_core.documents.base import Blob
from mcp import ClientSession

from mcpbridge_adapters.tools import client_of

__all__ = ["load_mcp_resources"]


async def load_mcp_resources(session: ClientSession, *, uris: str | list[str] | None = None) -> list[Blob]:
    """Resources of the server whose session (from `MultiServerMCPClient.session`) this is:
    `uris`, or every listed resource."""
    client, server_name = client_of(session)
    return await client.get_resources(server_name, uris=uris)
