"""Resources as LangChain Blobs (metadata: `uri`), as langchain-mcp-adapters loads them."""

from __future__ import annotations

import base64
from typing import Any

from langchain_core.documents.base import Blob
from mcp.types import BlobResourceContents, ResourceContents, TextResourceContents

from mcpbridge_adapters.convert import field
from mcpbridge_adapters.shared import Session, list_pages, requests_to

__all__ = ["convert_mcp_resource_to_langchain_blob", "get_mcp_resource", "load_mcp_resources"]


def convert_mcp_resource_to_langchain_blob(resource_uri: str, contents: ResourceContents) -> Blob:
    """One resource content as a Blob (text as it is, a blob decoded from base64)."""
    data: str | bytes
    if isinstance(contents, TextResourceContents):
        data = contents.text
    elif isinstance(contents, BlobResourceContents):
        data = base64.b64decode(contents.blob)
    else:
        raise TypeError(f"Unsupported content type for URI {resource_uri}")
    return Blob.from_data(data=data, mime_type=field(contents, "mime_type", "mimeType"), metadata={"uri": resource_uri})


async def get_mcp_resource(session: Session, uri: str) -> list[Blob]:
    """The contents of one resource as Blobs."""
    result = await requests_to(session).read_resource(uri)
    return [convert_mcp_resource_to_langchain_blob(uri, content) for content in result.contents or []]


async def load_mcp_resources(session: Session, *, uris: str | list[str] | None = None) -> list[Blob]:
    """`uris` (every listed resource when None; templates are not listed) as Blobs; a
    resource that cannot be read raises RuntimeError naming it."""
    if uris is None:
        listed: list[Any] = await list_pages(requests_to(session), "list_resources", "resources")
        uri_list = [str(resource.uri) for resource in listed]
    else:
        uri_list = [uris] if isinstance(uris, str) else list(uris)
    blobs: list[Blob] = []
    for uri in uri_list:
        try:
            blobs.extend(await get_mcp_resource(session, uri))
        except Exception as exc:
            raise RuntimeError(f"Error fetching resource {uri}") from exc
    return blobs
