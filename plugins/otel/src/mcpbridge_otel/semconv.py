"""Attribute and instrument names, following the OpenTelemetry GenAI semantic conventions
(open-telemetry/semantic-conventions-genai: `execute_tool` span, MCP client conventions,
`gen_ai.execute_tool.duration`). Kept as plain strings so the plugin needs only
opentelemetry-api; a test checks them against opentelemetry-semantic-conventions."""

from __future__ import annotations

from typing import Final

INSTRUMENTATION_NAME: Final = "mcpbridge_otel"

# GenAI tool execution span (kind INTERNAL, name "execute_tool {gen_ai.tool.name}").
GEN_AI_OPERATION_NAME: Final = "gen_ai.operation.name"
EXECUTE_TOOL: Final = "execute_tool"
GEN_AI_TOOL_NAME: Final = "gen_ai.tool.name"
GEN_AI_TOOL_DESCRIPTION: Final = "gen_ai.tool.description"
GEN_AI_TOOL_CALL_ID: Final = "gen_ai.tool.call.id"
GEN_AI_TOOL_CALL_ARGUMENTS: Final = "gen_ai.tool.call.arguments"
GEN_AI_TOOL_CALL_RESULT: Final = "gen_ai.tool.call.result"
ERROR_TYPE: Final = "error.type"
TOOL_ERROR: Final = "tool_error"
"""`error.type` for a `CallToolResult` with `isError: true` (MCP conventions)."""

# MCP client attributes that describe the call as a whole.
MCP_METHOD_NAME: Final = "mcp.method.name"
TOOLS_CALL: Final = "tools/call"
SERVER_ADDRESS: Final = "server.address"
SERVER_PORT: Final = "server.port"
NETWORK_TRANSPORT: Final = "network.transport"
NETWORK_PROTOCOL_NAME: Final = "network.protocol.name"

# Ours: what the conventions have no name for.
MCPBRIDGE_SERVER_NAME: Final = "mcpbridge.server.name"
"""The server's name in the bridge config (`[servers.<name>]`)."""
MCPBRIDGE_ARGUMENTS_SIZE: Final = "mcpbridge.tool.call.arguments.size"
MCPBRIDGE_RESULT_SIZE: Final = "mcpbridge.tool.call.result.size"
MCPBRIDGE_INTERRUPTED: Final = "mcpbridge.interrupted"
MCPBRIDGE_INTERRUPT_IDS: Final = "mcpbridge.interrupt.ids"
MCPBRIDGE_CANCELLED: Final = "mcpbridge.cancelled"
INTERRUPT_EVENT: Final = "mcpbridge.interrupt"
INPUT_REQUIRED_EVENT: Final = "mcpbridge.input_required"

# Metrics.
EXECUTE_TOOL_DURATION: Final = "gen_ai.execute_tool.duration"
EXECUTE_TOOL_DURATION_BUCKETS: Final = (
    0.01,
    0.02,
    0.04,
    0.08,
    0.16,
    0.32,
    0.64,
    1.28,
    2.56,
    5.12,
    10.24,
    20.48,
    40.96,
    81.92,
)
"""The explicit bucket boundaries the conventions advise for `gen_ai.execute_tool.duration`."""
EXECUTE_TOOL_ERRORS: Final = "mcpbridge.execute_tool.errors"
"""The conventions define no error counter (errors are the duration histogram's
`error.type` dimension), so this one lives in our own namespace."""
