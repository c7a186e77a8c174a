"""The plugin's functions: every request through `MCPBridge.request` on the bridge's own
sessions, converted to LangChain types."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from langchain_core.documents.base import Blob
from langchain_core.messages import AIMessage, HumanMessage
from mcp.client.session import ClientSession
from mcp.types import METHOD_NOT_FOUND, Prompt, ReadResourceResult, Resource, ResourceTemplate

from mcpbridge import MCPBridge, ServerRequestError
from mcpbridge_resources.convert import all_prompts, all_resource_templates, all_resources, to_blobs, to_messages


async def list_resources(bridge: MCPBridge, server: str) -> list[Resource]:
    """The resources `server` lists (every page)."""
    return await bridge.request(server, "resources/list", all_resources)


async def list_resource_templates(bridge: MCPBridge, server: str) -> list[ResourceTemplate]:
    """The resource templates (URI templates) `server` lists (every page); none when it
    answers method-not-found (-32601): servers that list resources often have no templates
    (mcp-server-sqlite, @modelcontextprotocol/server-postgres)."""
    try:
        return await bridge.request(server, "resources/templates/list", all_resource_templates)
    except ServerRequestError as exc:
        if not_offered(exc):
            return []
        raise


def not_offered(error: ServerRequestError) -> bool:
    """Whether `error` is the server's method-not-found (-32601): it offers no such list."""
    return error.code == METHOD_NOT_FOUND


async def get_resources(bridge: MCPBridge, server: str, uris: str | Sequence[str] | None = None) -> list[Blob]:
    """The contents of resources as LangChain Blobs (metadata `uri`, `server_name`): of
    `uris` (one URI or several), or of every listed resource when None (templates are not
    expanded)."""
    wanted = [uris] if isinstance(uris, str) else list(uris) if uris is not None else None
    if wanted is None:
        wanted = [str(resource.uri) for resource in await list_resources(bridge, server)]
    blobs: list[Blob] = []
    for uri in wanted:
        blobs.extend(to_blobs(server, await bridge.request(server, f"resources/read of {uri!r}", _reader(uri))))
    return blobs


async def list_prompts(bridge: MCPBridge, server: str) -> list[Prompt]:
    """The prompts `server` lists (every page)."""
    return await bridge.request(server, "prompts/list", all_prompts)


async def get_prompt(
    bridge: MCPBridge, server: str, name: str, arguments: Mapping[str, Any] | None = None
) -> list[HumanMessage | AIMessage]:
    """The prompt `name` as LangChain messages (role user → HumanMessage, assistant →
    AIMessage); argument values that are not strings are sent as JSON (MCP prompt arguments
    are strings)."""
    sent = {key: value if isinstance(value, str) else json.dumps(value) for key, value in (arguments or {}).items()}
    result = await bridge.request(
        server, f"prompts/get of {name!r}", lambda session: session.get_prompt(name, sent or None)
    )
    return to_messages(result)


def _reader(uri: str) -> Callable[[ClientSession], Awaitable[ReadResourceResult]]:
    def read(session: ClientSession) -> Awaitable[ReadResourceResult]:
        return session.read_resource(uri)

    return read
