"""MCP tool results as LangChain content, exactly as langchain-mcp-adapters 0.3.2 converts
them (content blocks with `lc_...` ids, audio refused, `isError` raised as a ToolException
carrying the blocks), for results of mcp 2.x and for objects shaped like mcp 1.x ones
(`isError`, `mimeType`), which is what hand-made test doubles are."""

from __future__ import annotations

from typing import Any, TypedDict

from langchain_core.messages import ToolMessage
from langchain_core.messages.content import (
    FileContentBlock,
    ImageContentBlock,
    TextContentBlock,
    create_file_block,
    create_image_block,
    create_text_block,
)
from langchain_core.tools import ToolException
from langgraph.types import Command
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    Tool,
)

from mcpbridge import ToolCallError, content_block

ToolMessageContentBlock = TextContentBlock | ImageContentBlock | FileContentBlock


class MCPToolArtifact(TypedDict):
    """The artifact of a tool call: the result's structured content."""

    structured_content: dict[str, Any]


def field(obj: Any, name: str, legacy: str) -> Any:
    """`obj.<name>` (mcp 2.x), or `obj.<legacy>` on an object shaped like an mcp 1.x one."""
    if legacy in getattr(obj, "__dict__", {}) or not hasattr(obj, name):
        return getattr(obj, legacy, None)
    return getattr(obj, name)


def metadata_of(tool: Tool) -> dict[str, Any] | None:
    """The adapters' tool metadata: annotations flat (camelCase), `_meta` under its name."""
    annotations = tool.annotations.model_dump(by_alias=True) if tool.annotations is not None else {}
    meta = field(tool, "meta", "_meta")
    return {**annotations, **({"_meta": meta} if meta is not None else {})} or None


def _summarize_tool_error(tool_content: list[ToolMessageContentBlock]) -> str:
    texts = [str(block["text"]) for block in tool_content if block["type"] == "text" and "text" in block]
    if texts:
        return "\n".join(texts)
    if tool_content:
        return f"MCP tool returned an error with no text content ({len(tool_content)} non-text content block(s))."
    return "MCP tool returned an error with empty content."


class _MCPToolExecutionError(ToolException):
    """An `isError` result; `tool_content` is what the error ToolMessage carries."""

    def __init__(self, tool_content: list[ToolMessageContentBlock]) -> None:
        super().__init__(_summarize_tool_error(tool_content))
        self.tool_content = tool_content


def refused_call(error: ToolCallError) -> _MCPToolExecutionError:
    """A call mcpbridge refused before it was sent (invalid arguments) or gave up waiting for
    (its time limit ran out), failed as the adapters fail an `isError` result: the model
    reads mcpbridge's message."""
    return _MCPToolExecutionError(with_lc_ids(error.message()))


def _handle_mcp_tool_error(error: ToolException) -> list[ToolMessageContentBlock]:
    """`handle_tool_error` of the tools: an `isError` result becomes the error ToolMessage's
    content (a placeholder text when it had none); any other ToolException propagates."""
    if isinstance(error, _MCPToolExecutionError):
        return error.tool_content or [create_text_block(text=str(error))]
    raise error


def _convert_mcp_content_to_lc_block(content: Any) -> ToolMessageContentBlock:
    """One MCP content item as a LangChain content block (audio: NotImplementedError)."""
    if isinstance(content, TextContent):
        return create_text_block(text=content.text)
    if isinstance(content, ImageContent):
        return create_image_block(base64=content.data, mime_type=field(content, "mime_type", "mimeType"))
    if isinstance(content, AudioContent):
        raise NotImplementedError(
            "AudioContent conversion to LangChain content blocks is not yet supported. "
            f"Received audio with mime type: {field(content, 'mime_type', 'mimeType')}"
        )
    if isinstance(content, ResourceLink):
        if "url" not in (described := content_block(content)):  # file:, javascript:, ...: never handed on
            return with_lc_ids([described])[0]  # type: ignore[no-any-return]
        mime_type = field(content, "mime_type", "mimeType") or None
        if mime_type and mime_type.startswith("image/"):
            return create_image_block(url=str(content.uri), mime_type=mime_type)
        return create_file_block(url=str(content.uri), mime_type=mime_type)
    if isinstance(content, EmbeddedResource):
        resource = content.resource
        if isinstance(resource, TextResourceContents):
            return create_text_block(text=resource.text)
        if isinstance(resource, BlobResourceContents):
            mime_type = field(resource, "mime_type", "mimeType") or None
            if mime_type and mime_type.startswith("image/"):
                return create_image_block(base64=resource.blob, mime_type=mime_type)
            return create_file_block(base64=resource.blob, mime_type=mime_type)
        raise ValueError(f"Unknown embedded resource type: {type(resource).__name__}")
    raise ValueError(f"Unknown MCP content type: {type(content).__name__}")


def _convert_call_tool_result(call_tool_result: Any) -> tuple[Any, MCPToolArtifact | None]:
    """(content, artifact) of a tool's result; a ToolMessage or Command an interceptor
    returned passes as it is; an `isError` result raises `_MCPToolExecutionError`."""
    if isinstance(call_tool_result, ToolMessage | Command):
        return call_tool_result, None
    tool_content = [_convert_mcp_content_to_lc_block(content) for content in call_tool_result.content]
    if field(call_tool_result, "is_error", "isError"):
        raise _MCPToolExecutionError(tool_content)
    structured = field(call_tool_result, "structured_content", "structuredContent")
    return tool_content, (MCPToolArtifact(structured_content=structured) if structured is not None else None)


def with_lc_ids(blocks: Any) -> Any:
    """Content built elsewhere (mcpbridge's own, on a call that never reached the drop-in's
    layer) in the adapters' shape: blocks, each with an `lc_...` id, no `extras`."""
    if isinstance(blocks, str):
        return [create_text_block(text=blocks)]
    if not isinstance(blocks, list):
        return blocks
    shaped = []
    for block in blocks:
        if isinstance(block, dict) and "type" in block:
            block = {key: value for key, value in block.items() if key != "extras"}
            if "id" not in block:
                block["id"] = create_text_block(text="")["id"]
        shaped.append(block)
    return shaped
