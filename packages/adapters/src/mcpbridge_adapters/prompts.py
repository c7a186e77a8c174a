"""Prompts as LangChain messages (user → HumanMessage, assistant → AIMessage)."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from mcp import ClientSession

from mcpbridge_adapters.tools import client_of

__all__ = ["load_mcp_prompt"]


async def load_mcp_prompt(
    session: ClientSession, name: str, *, arguments: dict[str, Any] | None = None
) -> list[HumanMessage | AIMessage]:
    """The prompt `name` of the server whose session (from `MultiServerMCPClient.session`) this is."""
    client, server_name = client_of(session)
    return await client.get_prompt(server_name, name, arguments=arguments)
