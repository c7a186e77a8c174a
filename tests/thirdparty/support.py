"""Helpers shared by the third-party tier's tests."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge


def call(tool: Any, args: dict[str, Any], id: str = "call-1") -> dict[str, Any]:
    """A ToolCall for `tool` (so `ainvoke` returns a ToolMessage, errors included)."""
    return {"type": "tool_call", "name": tool.name, "args": args, "id": id}


async def tools_of(bridge: MCPBridge, **options: Any) -> dict[str, Any]:
    """The bridge's tools by MCP tool name (servers here are one per bridge)."""
    return {tool.metadata["name"]: tool for tool in await bridge.list_tools(**options)}


async def invoke(bridge: MCPBridge, name: str, args: dict[str, Any], id: str = "call-1") -> ToolMessage:
    tool = (await tools_of(bridge))[name]
    message = await tool.ainvoke(call(tool, args, id))
    assert isinstance(message, ToolMessage)
    return message


def text(message: ToolMessage) -> str:
    """Every text block of a ToolMessage, joined."""
    if isinstance(message.content, str):
        return message.content
    return "\n".join(block["text"] for block in message.content if block.get("type") == "text")


def structured(message: ToolMessage) -> Any:
    """The structured content the bridge put in the artifact."""
    found = [entry["data"] for entry in message.artifact or [] if entry.get("type") == "mcp_structured_content"]
    assert found, f"no structured content in {message.artifact!r}"
    return found[0]
