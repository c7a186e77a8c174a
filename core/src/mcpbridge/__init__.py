"""mcpbridge: MCP server tools in LangChain / LangGraph agents, through an interceptor
pipeline that plugins extend."""

from mcpbridge.bridge import MCPBridge
from mcpbridge.config import ServerConfig, Settings, load_settings
from mcpbridge.errors import (
    ConfigError,
    InvalidToolArguments,
    MCPBridgeError,
    MCPToolError,
    PluginError,
    ServerConnectionError,
    ToolTimeoutError,
)
from mcpbridge.hookspecs import hookimpl
from mcpbridge.interrupts import CannotPauseError, pause
from mcpbridge.pipeline import ToolCallHandler, ToolCallInterceptor, ToolCallRequest, ToolCallResult, compose
from mcpbridge.plugins import PluginConfig
from mcpbridge.tools import MCPTool

__all__ = [
    "ConfigError",
    "InvalidToolArguments",
    "MCPBridge",
    "MCPBridgeError",
    "MCPTool",
    "MCPToolError",
    "CannotPauseError",
    "PluginConfig",
    "PluginError",
    "ServerConfig",
    "ServerConnectionError",
    "Settings",
    "ToolCallHandler",
    "ToolCallInterceptor",
    "ToolCallRequest",
    "ToolCallResult",
    "ToolTimeoutError",
    "compose",
    "hookimpl",
    "load_settings",
    "pause",
]
