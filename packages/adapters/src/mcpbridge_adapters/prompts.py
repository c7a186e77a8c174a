"""Prompts as LangChain messages (user → HumanMessage, assistant → AIMessage), as
langchain-mcp-adapters converts them: text only, anything else a ValueError."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage
from mcp.types import PromptMessage

from mcpbridge_adapters.shared import Session, requests_to

__all__ = ["convert_mcp_prompt_message_to_langchain_message", "load_mcp_prompt"]


def convert_mcp_prompt_message_to_langchain_message(message: PromptMessage) -> HumanMessage | AIMessage:
    """One prompt message as a LangChain message."""
    if message.content.type != "text":
        raise ValueError(f"Unsupported prompt message content type: {message.content.type}")
    if message.role == "user":
        return HumanMessage(content=message.content.text)
    if message.role == "assistant":
        return AIMessage(content=message.content.text)
    raise ValueError(f"Unsupported prompt message role: {message.role}")


async def load_mcp_prompt(
    session: Session, name: str, *, arguments: dict[str, Any] | None = None
) -> list[HumanMessage | AIMessage]:
    """The prompt `name` of the server behind `session` (any session; a client's shared
    one is reached through its bridge)."""
    response = await requests_to(session).get_prompt(name, arguments)
    return [convert_mcp_prompt_message_to_langchain_message(message) for message in response.messages]
