"""mcpbridge: MCP server tools in LangChain / LangGraph agents, through an interceptor
pipeline that plugins extend.

Everything public is here, for users and plugin authors alike (docs/api.md); the
underscore modules are internal and may change in any release. `mcpbridge.testing` holds
the pytest fixtures.

Names are imported on first use, so `mcpbridge --help` does not pay for importing mcp and
LangGraph (seconds)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mcpbridge._beyond_tools import ServerInfo
    from mcpbridge._bridge import MCPBridge
    from mcpbridge._claims import ClaimStore, LocalClaims
    from mcpbridge._config import ServerConfig, Settings, load_settings
    from mcpbridge._connections import ModernOnly
    from mcpbridge._declaration import Capability, Plugin
    from mcpbridge._definitions import HeldTool
    from mcpbridge._errors import (
        CannotPauseError,
        ClaimStoreError,
        ConfigError,
        InvalidHeader,
        InvalidToolArguments,
        MCPBridgeError,
        MCPToolError,
        PluginError,
        ResumeConflictError,
        ServerConnectionError,
        ServerRequestError,
        ToolCallError,
        ToolTimeoutError,
        describe,
    )
    from mcpbridge._hints import ToolHints, tool_hints
    from mcpbridge._hookspecs import AddCommand, BridgeObserver, hookimpl
    from mcpbridge._httpfields import check_headers, header_problem
    from mcpbridge._interrupts import InterruptLike, Question, pause
    from mcpbridge._pipeline import (
        RequestChanges,
        TaskHandle,
        ToolCallHandler,
        ToolCallInterceptor,
        ToolCallRequest,
        ToolCallResult,
        compose,
    )
    from mcpbridge._plugins import PluginConfig
    from mcpbridge._redaction import RedactingFilter, install_log_redaction, redact_text, redact_url
    from mcpbridge._results import STRUCTURED_CONTENT, result_text
    from mcpbridge._schemas import schema_problems
    from mcpbridge._selectors import ServerName, ToolSelector, selected
    from mcpbridge._serve import to_mcp_server
    from mcpbridge._sources import ValueSource
    from mcpbridge._tools import MCPTool

_HOMES = {
    "ServerInfo": "_beyond_tools",
    "ServerRequestError": "_errors",
    "MCPBridge": "_bridge",
    "ServerConfig": "_config",
    "Settings": "_config",
    "load_settings": "_config",
    "ModernOnly": "_connections",
    "Capability": "_declaration",
    "Plugin": "_declaration",
    "CannotPauseError": "_errors",
    "ClaimStoreError": "_errors",
    "ResumeConflictError": "_errors",
    "ClaimStore": "_claims",
    "LocalClaims": "_claims",
    "ConfigError": "_errors",
    "InvalidHeader": "_errors",
    "InvalidToolArguments": "_errors",
    "MCPBridgeError": "_errors",
    "MCPToolError": "_errors",
    "PluginError": "_errors",
    "ServerConnectionError": "_errors",
    "ToolCallError": "_errors",
    "ToolTimeoutError": "_errors",
    "describe": "_errors",
    "ToolHints": "_hints",
    "tool_hints": "_hints",
    "AddCommand": "_hookspecs",
    "BridgeObserver": "_hookspecs",
    "HeldTool": "_definitions",
    "hookimpl": "_hookspecs",
    "check_headers": "_httpfields",
    "header_problem": "_httpfields",
    "InterruptLike": "_interrupts",
    "Question": "_interrupts",
    "pause": "_interrupts",
    "RequestChanges": "_pipeline",
    "ToolCallHandler": "_pipeline",
    "ToolCallInterceptor": "_pipeline",
    "ToolCallRequest": "_pipeline",
    "ToolCallResult": "_pipeline",
    "TaskHandle": "_pipeline",
    "compose": "_pipeline",
    "PluginConfig": "_plugins",
    "RedactingFilter": "_redaction",
    "install_log_redaction": "_redaction",
    "redact_text": "_redaction",
    "redact_url": "_redaction",
    "STRUCTURED_CONTENT": "_results",
    "result_text": "_results",
    "schema_problems": "_schemas",
    "ServerName": "_selectors",
    "ToolSelector": "_selectors",
    "selected": "_selectors",
    "to_mcp_server": "_serve",
    "ValueSource": "_sources",
    "MCPTool": "_tools",
}

__all__ = [
    "AddCommand",
    "BridgeObserver",
    "HeldTool",
    "CannotPauseError",
    "ClaimStore",
    "ClaimStoreError",
    "LocalClaims",
    "ResumeConflictError",
    "Capability",
    "ConfigError",
    "InvalidHeader",
    "InvalidToolArguments",
    "MCPBridge",
    "MCPBridgeError",
    "MCPTool",
    "MCPToolError",
    "ModernOnly",
    "Plugin",
    "PluginConfig",
    "PluginError",
    "InterruptLike",
    "Question",
    "RedactingFilter",
    "RequestChanges",
    "STRUCTURED_CONTENT",
    "ServerConfig",
    "ServerConnectionError",
    "ServerInfo",
    "ServerName",
    "ServerRequestError",
    "Settings",
    "ToolCallError",
    "ToolCallHandler",
    "ToolCallInterceptor",
    "ToolCallRequest",
    "ToolCallResult",
    "TaskHandle",
    "ToolHints",
    "ToolSelector",
    "ToolTimeoutError",
    "ValueSource",
    "check_headers",
    "compose",
    "describe",
    "header_problem",
    "hookimpl",
    "install_log_redaction",
    "load_settings",
    "pause",
    "redact_text",
    "redact_url",
    "result_text",
    "schema_problems",
    "selected",
    "to_mcp_server",
    "tool_hints",
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
