"""MCP answers as LangChain values: every page of a `*/list`, a `resources/read` result as
`Blob`s, a `prompts/get` result as messages."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from langchain_core.documents.base import Blob
from langchain_core.messages import AIMessage, HumanMessage
from mcp.client.session import ClientSession
from mcp.types import (
    BlobResourceContents,
    GetPromptResult,
    PaginatedRequestParams,
    Prompt,
    PromptMessage,
    ReadResourceResult,
    Resource,
    ResourceTemplate,
    TextContent,
    TextResourceContents,
)

from mcpbridge import ServerRequestError, content_block

T = TypeVar("T")
MAX_PAGES = 1000


async def all_resources(session: ClientSession) -> list[Resource]:
    """Every page of `resources/list`."""
    return await _every_page(lambda params: session.list_resources(params=params), lambda page: page.resources)


async def all_resource_templates(session: ClientSession) -> list[ResourceTemplate]:
    """Every page of `resources/templates/list`."""
    return await _every_page(
        lambda params: session.list_resource_templates(params=params), lambda page: page.resource_templates
    )


async def all_prompts(session: ClientSession) -> list[Prompt]:
    """Every page of `prompts/list`."""
    return await _every_page(lambda params: session.list_prompts(params=params), lambda page: page.prompts)


class _Page(Protocol):
    @property
    def next_cursor(self) -> str | None: ...


P = TypeVar("P", bound=_Page)


async def _every_page(
    fetch: Callable[[PaginatedRequestParams | None], Awaitable[P]], items: Callable[[P], list[T]]
) -> list[T]:
    """The items of every page of a `*/list` request; a cursor that never ends is an error."""
    found: list[T] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await fetch(PaginatedRequestParams(cursor=cursor) if cursor else None)
        found.extend(items(page))
        cursor = page.next_cursor
        if not cursor:
            return found
    raise RuntimeError(f"the list has more than {MAX_PAGES} pages; is its cursor stuck?")


def to_blobs(server_name: str, result: ReadResourceResult) -> list[Blob]:
    """Each content of a `resources/read` result as a Blob: text as it is, binary decoded;
    metadata `uri` (of that content) and `server_name`."""
    blobs: list[Blob] = []
    for contents in result.contents:
        data: str | bytes
        if isinstance(contents, TextResourceContents):
            data = contents.text
        elif isinstance(contents, BlobResourceContents):
            try:
                data = base64.b64decode(contents.blob, validate=True)
            except binascii.Error as exc:
                raise ServerRequestError(
                    server_name, f"resources/read of {str(contents.uri)!r}", f"the blob is not base64 ({exc})"
                ) from None
        else:  # pragma: no cover - the SDK parses only these two
            continue
        metadata = {"uri": str(contents.uri), "server_name": server_name}
        blobs.append(Blob.from_data(data, mime_type=contents.mime_type, metadata=metadata))
    return blobs


def to_messages(result: GetPromptResult) -> list[HumanMessage | AIMessage]:
    """Each prompt message as a HumanMessage (role user) or AIMessage (role assistant): text as
    a plain string, images, audio and embedded resources as standard content blocks."""
    return [_message(message) for message in result.messages]


def _message(message: PromptMessage) -> HumanMessage | AIMessage:
    item = message.content
    content: Any = item.text if isinstance(item, TextContent) else [content_block(item)]
    return HumanMessage(content=content) if message.role == "user" else AIMessage(content=content)
