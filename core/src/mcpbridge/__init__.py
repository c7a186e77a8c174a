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
    from mcpbridge.connections import ModernOnly
    from mcpbridge.errors import (
        ConfigError,
        InvalidHeader,
        InvalidToolArguments,
        MCPBridgeError,
        MCPToolError,
        PluginError,
        ServerConnectionError,
        ToolTimeoutError,
    )
    from mcpbridge.hookspecs import hookimpl
    from mcpbridge.httpfields import check_headers, header_problem
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
    from mcpbridge.redaction import RedactingFilter, install_log_redaction, redact_text, redact_url
    from mcpbridge.tools import MCPTool

_HOMES = {
    "MCPBridge": "bridge",
    "ServerConfig": "config",
    "Settings": "config",
    "load_settings": "config",
    "ModernOnly": "connections",
    "ConfigError": "errors",
    "InvalidHeader": "errors",
    "InvalidToolArguments": "errors",
    "MCPBridgeError": "errors",
    "MCPToolError": "errors",
    "PluginError": "errors",
    "ServerConnectionError": "errors",
    "ToolTimeoutError": "errors",
    "hookimpl": "hookspecs",
    "check_headers": "httpfields",
    "header_problem": "httpfields",
    "CannotPauseError": "interrupts",
    "pause": "interrupts",
    "ToolCallHandler": "pipeline",
    "ToolCallInterceptor": "pipeline",
    "ToolCallRequest": "pipeline",
    "ToolCallResult": "pipeline",
    "compose": "pipeline",
    "runtime_value": "pipeline",
    "PluginConfig": "plugins",
    "RedactingFilter": "redaction",
    "install_log_redaction": "redaction",
    "redact_text": "redaction",
    "redact_url": "redaction",
    "MCPTool": "tools",
}

__all__ = [
    "CannotPauseError",
    "ConfigError",
    "InvalidHeader",
    "InvalidToolArguments",
    "MCPBridge",
    "MCPBridgeError",
    "MCPTool",
    "MCPToolError",
    "ModernOnly",
    "PluginConfig",
    "PluginError",
    "RedactingFilter",
    "ServerConfig",
    "ServerConnectionError",
    "Settings",
    "ToolCallHandler",
    "ToolCallInterceptor",
    "ToolCallRequest",
    "ToolCallResult",
    "ToolTimeoutError",
    "check_headers",
    "compose",
    "header_problem",
    "hookimpl",
    "install_log_redaction",
    "load_settings",
    "pause",
    "redact_text",
    "redact_url",
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
