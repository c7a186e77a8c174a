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
    from mcpbridge._base.config import ServerConfig, Settings, load_settings
    from mcpbridge._base.errors import (
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
        validation_problems,
    )
    from mcpbridge._base.httpfields import check_headers, header_problem
    from mcpbridge._base.pipeline import (
        RequestChanges,
        Resumed,
        TaskHandle,
        ToolCallHandler,
        ToolCallInterceptor,
        ToolCallRequest,
        ToolCallResult,
        compose,
        error_result,
    )
    from mcpbridge._base.redaction import RedactingFilter, install_log_redaction, redact_text, redact_url
    from mcpbridge._base.terminal import terminal_text
    from mcpbridge._base.textpattern import TextPattern
    from mcpbridge._facade.bridge import MCPBridge
    from mcpbridge._facade.serve import to_mcp_server
    from mcpbridge._platform.claims import ClaimStore, LocalClaims
    from mcpbridge._platform.context import BridgeContext
    from mcpbridge._platform.context import BridgeContext as PluginConfig  # deprecated
    from mcpbridge._platform.declaration import Capability, Plugin
    from mcpbridge._platform.hints import ToolHints, tool_hints
    from mcpbridge._platform.hookspecs import AddCommand, BridgeObserver, ToolReview, hookimpl
    from mcpbridge._platform.interrupts import InterruptLike, Question, pause
    from mcpbridge._platform.rounds import RoundAnswerer, call_of, capability_of, split_round
    from mcpbridge._platform.selectors import ServerName, ToolSelector, selected
    from mcpbridge._platform.sources import ValueSource, thread_id
    from mcpbridge._platform.stash import Stash, StashKey
    from mcpbridge._session.connections import ModernOnly
    from mcpbridge._session.server_info import ServerInfo
    from mcpbridge._tools.results import STRUCTURED_CONTENT, content_block, result_text
    from mcpbridge._tools.schemas import schema_problems
    from mcpbridge._tools.tool import MCPTool

_HOMES = {
    "ServerInfo": "_session.server_info",
    "ServerRequestError": "_base.errors",
    "MCPBridge": "_facade.bridge",
    "ServerConfig": "_base.config",
    "Settings": "_base.config",
    "load_settings": "_base.config",
    "ModernOnly": "_session.connections",
    "Capability": "_platform.declaration",
    "Plugin": "_platform.declaration",
    "CannotPauseError": "_base.errors",
    "ClaimStoreError": "_base.errors",
    "ResumeConflictError": "_base.errors",
    "ClaimStore": "_platform.claims",
    "LocalClaims": "_platform.claims",
    "ConfigError": "_base.errors",
    "InvalidHeader": "_base.errors",
    "InvalidToolArguments": "_base.errors",
    "MCPBridgeError": "_base.errors",
    "MCPToolError": "_base.errors",
    "PluginError": "_base.errors",
    "ServerConnectionError": "_base.errors",
    "ToolCallError": "_base.errors",
    "ToolTimeoutError": "_base.errors",
    "describe": "_base.errors",
    "validation_problems": "_base.errors",
    "ToolHints": "_platform.hints",
    "tool_hints": "_platform.hints",
    "AddCommand": "_platform.hookspecs",
    "BridgeObserver": "_platform.hookspecs",
    "ToolReview": "_platform.hookspecs",
    "hookimpl": "_platform.hookspecs",
    "check_headers": "_base.httpfields",
    "header_problem": "_base.httpfields",
    "InterruptLike": "_platform.interrupts",
    "Question": "_platform.interrupts",
    "pause": "_platform.interrupts",
    "RoundAnswerer": "_platform.rounds",
    "call_of": "_platform.rounds",
    "capability_of": "_platform.rounds",
    "split_round": "_platform.rounds",
    "RequestChanges": "_base.pipeline",
    "Resumed": "_base.pipeline",
    "ToolCallHandler": "_base.pipeline",
    "ToolCallInterceptor": "_base.pipeline",
    "ToolCallRequest": "_base.pipeline",
    "ToolCallResult": "_base.pipeline",
    "TaskHandle": "_base.pipeline",
    "compose": "_base.pipeline",
    "error_result": "_base.pipeline",
    "TextPattern": "_base.textpattern",
    "thread_id": "_platform.sources",
    "BridgeContext": "_platform.context",
    "PluginConfig": "_platform.context",
    "Stash": "_platform.stash",
    "StashKey": "_platform.stash",
    "RedactingFilter": "_base.redaction",
    "install_log_redaction": "_base.redaction",
    "redact_text": "_base.redaction",
    "redact_url": "_base.redaction",
    "terminal_text": "_base.terminal",
    "STRUCTURED_CONTENT": "_tools.results",
    "result_text": "_tools.results",
    "content_block": "_tools.results",
    "schema_problems": "_tools.schemas",
    "ServerName": "_platform.selectors",
    "ToolSelector": "_platform.selectors",
    "selected": "_platform.selectors",
    "to_mcp_server": "_facade.serve",
    "ValueSource": "_platform.sources",
    "MCPTool": "_tools.tool",
}

__all__ = [
    "AddCommand",
    "BridgeObserver",
    "ToolReview",
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
    "BridgeContext",
    "Stash",
    "StashKey",
    "PluginError",
    "InterruptLike",
    "Question",
    "RedactingFilter",
    "RequestChanges",
    "Resumed",
    "RoundAnswerer",
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
    "TextPattern",
    "ValueSource",
    "call_of",
    "capability_of",
    "check_headers",
    "compose",
    "content_block",
    "describe",
    "error_result",
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
    "thread_id",
    "split_round",
    "terminal_text",
    "to_mcp_server",
    "tool_hints",
    "validation_problems",
]

_DEPRECATED = frozenset({"PluginConfig"})
"""Old names kept for one release; their homes warn when they are read."""


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'mcpbridge' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"mcpbridge.{home}"), name)
    if name not in _DEPRECATED:  # a deprecated name warns on every use
        globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_HOMES])
