"""mcpbridge: MCP server tools in LangChain / LangGraph agents, through an interceptor
pipeline that plugins extend.

Names are imported on first use, so `mcpbridge --help` does not pay for importing mcp and
LangGraph (seconds)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
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
    from mcpbridge.pipeline import (
        ToolCallHandler,
        ToolCallInterceptor,
        ToolCallRequest,
        ToolCallResult,
        compose,
        runtime_value,
    )
    from mcpbridge.plugins import PluginConfig
    from mcpbridge.tools import MCPTool

_HOMES = {
    "MCPBridge": "bridge",
    "ServerConfig": "config",
    "Settings": "config",
    "load_settings": "config",
    "ConfigError": "errors",
    "InvalidToolArguments": "errors",
    "MCPBridgeError": "errors",
    "MCPToolError": "errors",
    "PluginError": "errors",
    "ServerConnectionError": "errors",
    "ToolTimeoutError": "errors",
    "hookimpl": "hookspecs",
    "CannotPauseError": "interrupts",
    "pause": "interrupts",
    "ToolCallHandler": "pipeline",
    "ToolCallInterceptor": "pipeline",
    "ToolCallRequest": "pipeline",
    "ToolCallResult": "pipeline",
    "compose": "pipeline",
    "runtime_value": "pipeline",
    "PluginConfig": "plugins",
    "MCPTool": "tools",
}

__all__ = [
    "CannotPauseError",
    "ConfigError",
    "InvalidToolArguments",
    "MCPBridge",
    "MCPBridgeError",
    "MCPTool",
    "MCPToolError",
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
    "runtime_value",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'mcpbridge' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"mcpbridge.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
