"""An MCP `sampling/createMessage` request as LangChain messages and call options, and the
model's reply as the `CreateMessageResult` the server gets."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from mcp.types import (
    AudioContent,
    CreateMessageRequestParams,
    CreateMessageResult,
    ImageContent,
    SamplingMessage,
    TextContent,
)

_STOP_REASONS = {
    "stop": "endTurn",
    "end_turn": "endTurn",
    "STOP": "endTurn",
    "length": "maxTokens",
    "max_tokens": "maxTokens",
    "MAX_TOKENS": "maxTokens",
    "stop_sequence": "stopSequence",
}
"""Providers' finish reasons (OpenAI, Anthropic, Google) in MCP's words."""


class Unsupported(ValueError):
    """The request asks for something this plugin does not do (tool use in sampling)."""


def to_messages(params: CreateMessageRequestParams) -> list[BaseMessage]:
    """The conversation, with the server's system prompt first."""
    if params.tools or params.tool_choice:
        raise Unsupported("it offers the model tools (sampling with tools), which mcpbridge-sampling does not answer")
    messages: list[BaseMessage] = [SystemMessage(params.system_prompt)] if params.system_prompt else []
    messages.extend(_message(message) for message in params.messages)
    return messages


def call_options(params: CreateMessageRequestParams, max_tokens: int) -> dict[str, Any]:
    """Keyword arguments for `model.ainvoke`: `max_tokens` (already capped), and the
    server's temperature and stop sequences when it gave them."""
    options: dict[str, Any] = {"max_tokens": max_tokens}
    if params.temperature is not None:
        options["temperature"] = params.temperature
    if params.stop_sequences:
        options["stop"] = list(params.stop_sequences)
    return options


def to_result(reply: BaseMessage, model_name: str) -> CreateMessageResult:
    """The reply as MCP's single-text-block answer."""
    metadata = reply.response_metadata or {}
    reason = metadata.get("finish_reason") or metadata.get("stop_reason")
    name = metadata.get("model_name") or metadata.get("model") or model_name
    return CreateMessageResult(
        role="assistant",
        content=TextContent(text=reply.text),
        model=str(name),
        stop_reason=_STOP_REASONS.get(str(reason), "endTurn") if reason else "endTurn",
    )


def usage(reply: BaseMessage) -> dict[str, int]:
    """`input_tokens` / `output_tokens` as the model reported them (LangChain `usage_metadata`)."""
    found = reply.usage_metadata if isinstance(reply, AIMessage) else None
    if not found:
        return {}
    return {"input_tokens": found["input_tokens"], "output_tokens": found["output_tokens"]}


def _message(message: SamplingMessage) -> BaseMessage:
    blocks = [_block(block) for block in message.content_as_list]
    content: Any = blocks[0]["text"] if len(blocks) == 1 and blocks[0]["type"] == "text" else blocks
    return HumanMessage(content) if message.role == "user" else AIMessage(content)


def _block(block: Any) -> dict[str, Any]:
    if isinstance(block, TextContent):
        return {"type": "text", "text": block.text}
    if isinstance(block, ImageContent | AudioContent):
        return {"type": block.type, "base64": block.data, "mime_type": block.mime_type}
    raise Unsupported(f"it sends a {getattr(block, 'type', type(block).__name__)!r} block (tool use in sampling)")
