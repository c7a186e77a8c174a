"""Turning requests, results, servers and observer events into span attributes. Runs only
for recording spans, so none of it costs anything without an SDK."""

from __future__ import annotations

import json
import reprlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from langchain_core.messages import ToolMessage
from mcp.types import CallToolResult
from opentelemetry.util.types import AttributeValue

from mcpbridge import ServerConfig, ToolCallRequest
from mcpbridge_otel import semconv

_PRIMITIVES = (str, bool, int, float)
_MAX_ITEMS = 128
_SHORT = reprlib.Repr()
_SHORT.maxlist = _SHORT.maxtuple = _MAX_ITEMS
_SHORT.maxstring = _SHORT.maxother = 256
TEXT_LIMIT = 4096
"""Characters of one text on a span (a tool's description, an event's log data, progress or
status message): servers decide how long they are and a span keeps up to 128 events, each
log message reaching every call in flight on the session (1 MB log lines held 128 MB per span)."""
_DEFAULT_PORTS = {"http": 80, "https": 443}


def server_attributes(config: ServerConfig) -> dict[str, AttributeValue]:
    """Where a server lives, as the MCP conventions describe it (computed once per server)."""
    if config.transport == "stdio":
        return {semconv.NETWORK_TRANSPORT: "pipe"}
    if config.url:
        url = urlsplit(config.url)
        attributes: dict[str, AttributeValue] = {
            semconv.NETWORK_TRANSPORT: "tcp",
            semconv.NETWORK_PROTOCOL_NAME: "http",
        }
        if url.hostname:
            attributes[semconv.SERVER_ADDRESS] = url.hostname
            port = url.port or _DEFAULT_PORTS.get(url.scheme)
            if port:
                attributes[semconv.SERVER_PORT] = port
        return attributes
    return {}


def call_attributes(request: ToolCallRequest) -> dict[str, AttributeValue]:
    """What names the call on both the span and the metrics (low cardinality)."""
    return {
        semconv.GEN_AI_OPERATION_NAME: semconv.EXECUTE_TOOL,
        semconv.GEN_AI_TOOL_NAME: request.name,
        semconv.MCP_METHOD_NAME: semconv.TOOLS_CALL,
        semconv.MCPBRIDGE_SERVER_NAME: request.server_name,
    }


def request_attributes(request: ToolCallRequest) -> dict[str, AttributeValue]:
    """The attributes every execute_tool span carries."""
    attributes = call_attributes(request)
    if request.tool_call_id is not None:
        attributes[semconv.GEN_AI_TOOL_CALL_ID] = request.tool_call_id
    if request.tool is not None and request.tool.description:
        attributes[semconv.GEN_AI_TOOL_DESCRIPTION] = clip(request.tool.description, TEXT_LIMIT)
    return attributes


def to_json(value: Any) -> str:
    """Compact JSON; values JSON cannot hold (datetimes, objects) become their `str`."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, default=str)


def result_json(result: Any) -> str | None:
    """The result as the model sees it: structured content when there is some, else the
    content blocks; None for results that are not a tool's answer (e.g. a `Command`)."""
    if isinstance(result, CallToolResult):
        if result.structured_content is not None:
            return to_json(result.structured_content)
        return to_json([block.model_dump(mode="json", by_alias=True, exclude_none=True) for block in result.content])
    if isinstance(result, ToolMessage):
        return result.content if isinstance(result.content, str) else to_json(result.content)
    return None


def size(text: str) -> int:
    """Bytes on the wire, not characters: what capacity planning needs."""
    return len(text.encode())


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit]


def event_attributes(data: Mapping[str, Any], content_limit: int | None) -> dict[str, AttributeValue]:
    """Observer payloads as span-event attributes: primitives and short lists of one primitive
    type as they are, None dropped, anything else as text; texts cut to `TEXT_LIMIT`.
    Mappings (e.g. the arguments an approval asks about) are content: kept, as JSON cut to
    `content_limit`, only when content is recorded (`content_limit` is not None)."""
    attributes: dict[str, AttributeValue] = {}
    for key, value in data.items():
        if value is None:
            continue
        if isinstance(value, _PRIMITIVES):
            attributes[key] = clip(value, TEXT_LIMIT) if isinstance(value, str) else value
        elif _homogeneous_primitives(value):
            attributes[key] = [clip(item, TEXT_LIMIT) if isinstance(item, str) else item for item in value]
        elif isinstance(value, Mapping):
            if content_limit is not None:
                attributes[key] = clip(to_json(value), content_limit)
        else:  # a long list is shown by its start: writing it all cost every call in flight
            attributes[key] = clip(_SHORT.repr(value) if isinstance(value, list | tuple) else str(value), TEXT_LIMIT)
    return attributes


def _homogeneous_primitives(value: Any) -> bool:
    """OpenTelemetry takes lists only when all items are of one primitive type; only short
    ones are kept as lists (a server's log data of a million numbers held the loop 0.25 s
    for every call in flight on its session)."""
    return (
        isinstance(value, list | tuple)
        and 0 < len(value) <= _MAX_ITEMS
        and isinstance(value[0], _PRIMITIVES)
        and all(type(item) is type(value[0]) for item in value)
    )
