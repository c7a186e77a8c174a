"""Span names and attributes of the OpenTelemetry GenAI semantic conventions (inference
`chat` span, kind CLIENT), as plain strings so only opentelemetry-api is needed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mcp.types import CreateMessageResult

INSTRUMENTATION_NAME: Final = "mcpbridge_sampling"

CHAT: Final = "chat"
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
GEN_AI_PROVIDER_NAME: Final = "gen_ai.provider.name"
GEN_AI_REQUEST_MODEL: Final = "gen_ai.request.model"
GEN_AI_REQUEST_MAX_TOKENS: Final = "gen_ai.request.max_tokens"
GEN_AI_REQUEST_TEMPERATURE: Final = "gen_ai.request.temperature"
GEN_AI_RESPONSE_MODEL: Final = "gen_ai.response.model"
GEN_AI_RESPONSE_FINISH_REASONS: Final = "gen_ai.response.finish_reasons"
GEN_AI_USAGE_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
GEN_AI_USAGE_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
ERROR_TYPE: Final = "error.type"
MCP_METHOD_NAME: Final = "mcp.method.name"
SAMPLING_CREATE_MESSAGE: Final = "sampling/createMessage"
MCPBRIDGE_SERVER_NAME: Final = "mcpbridge.server.name"
"""The asking server's name in the bridge config (the otel plugin's attribute)."""


def request_attributes(
    server_name: str, model: str, provider: str | None, options: Mapping[str, Any]
) -> dict[str, Any]:
    """What is known before the model answers."""
    attributes: dict[str, Any] = {
        GEN_AI_OPERATION_NAME: CHAT,
        GEN_AI_REQUEST_MODEL: model,
        GEN_AI_REQUEST_MAX_TOKENS: options["max_tokens"],
        MCP_METHOD_NAME: SAMPLING_CREATE_MESSAGE,
        MCPBRIDGE_SERVER_NAME: server_name,
    }
    if provider:
        attributes[GEN_AI_PROVIDER_NAME] = provider
    if "temperature" in options:
        attributes[GEN_AI_REQUEST_TEMPERATURE] = options["temperature"]
    return attributes


def response_attributes(result: CreateMessageResult, usage: Mapping[str, int]) -> dict[str, Any]:
    """The answering model, why it stopped, and the tokens it reported."""
    attributes: dict[str, Any] = {
        GEN_AI_RESPONSE_MODEL: result.model,
        GEN_AI_RESPONSE_FINISH_REASONS: [str(result.stop_reason)],
    }
    if "input_tokens" in usage:
        attributes[GEN_AI_USAGE_INPUT_TOKENS] = usage["input_tokens"]
        attributes[GEN_AI_USAGE_OUTPUT_TOKENS] = usage["output_tokens"]
    return attributes
