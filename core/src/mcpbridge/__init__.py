"""mcpbridge: MCP server tools in LangChain / LangGraph agents, through an interceptor
pipeline that plugins extend.

Names are imported on first use, so `mcpbridge --help` does not pay for importing mcp and
LangGraph (seconds)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpbridge._bridge import MCPBridge
    from mcpbridge._config import ServerConfig, Settings, load_settings
    from mcpbridge._connections import ModernOnly
    from mcpbridge._errors import (
        ConfigError,
        InvalidHeader,
        InvalidToolArguments,
        MCPBridgeError,
        MCPToolError,
        PluginError,
        ServerConnectionError,
        ToolTimeoutError,
    )
    from mcpbridge._hookspecs import hookimpl
    from mcpbridge._httpfields import check_headers, header_problem
    from mcpbridge._interrupts import CannotPauseError, pause
    from mcpbridge._pipeline import (
        ToolCallHandler,
        ToolCallInterceptor,
        ToolCallRequest,
        ToolCallResult,
        compose,
        runtime_value,
    )
    from mcpbridge._plugins import PluginConfig
    from mcpbridge._redaction import RedactingFilter, install_log_redaction, redact_text, redact_url
    from mcpbridge._tools import MCPTool

_HOMES = {
    "MCPBridge": "_bridge",
    "ServerConfig": "_config",
    "Settings": "_config",
    "load_settings": "_config",
    "ModernOnly": "_connections",
    "ConfigError": "_errors",
    "InvalidHeader": "_errors",
    "InvalidToolArguments": "_errors",
    "MCPBridgeError": "_errors",
    "MCPToolError": "_errors",
    "PluginError": "_errors",
    "ServerConnectionError": "_errors",
    "ToolTimeoutError": "_errors",
    "hookimpl": "_hookspecs",
    "check_headers": "_httpfields",
    "header_problem": "_httpfields",
    "CannotPauseError": "_interrupts",
    "pause": "_interrupts",
    "ToolCallHandler": "_pipeline",
    "ToolCallInterceptor": "_pipeline",
    "ToolCallRequest": "_pipeline",
    "ToolCallResult": "_pipeline",
    "compose": "_pipeline",
    "runtime_value": "_pipeline",
    "PluginConfig": "_plugins",
    "RedactingFilter": "_redaction",
    "install_log_redaction": "_redaction",
    "redact_text": "_redaction",
    "redact_url": "_redaction",
    "MCPTool": "_tools",
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
