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
    from mcpbridge._base.config import (
        ServerConfig as ServerConfig,
        Settings as Settings,
        load_settings as load_settings,
    )
    from mcpbridge._base.errors import (
        AuthenticationError as AuthenticationError,
        CannotPauseError as CannotPauseError,
        ClaimStoreError as ClaimStoreError,
        ConfigError as ConfigError,
        InvalidHeader as InvalidHeader,
        InvalidToolArguments as InvalidToolArguments,
        MCPBridgeError as MCPBridgeError,
        MCPToolError as MCPToolError,
        PluginError as PluginError,
        ResumeConflictError as ResumeConflictError,
        ServerConnectionError as ServerConnectionError,
        ServerRequestError as ServerRequestError,
        ToolCallError as ToolCallError,
        ToolTimeoutError as ToolTimeoutError,
        describe as describe,
        validation_problems as validation_problems,
    )
    from mcpbridge._base.fromtext import TextPattern as TextPattern
    from mcpbridge._base.httpfields import check_headers as check_headers, header_problem as header_problem
    from mcpbridge._base.lazy import lazy_exports as lazy_exports
    from mcpbridge._base.pipeline import (
        RequestChanges as RequestChanges,
        Resumed as Resumed,
        TaskHandle as TaskHandle,
        ToolCallHandler as ToolCallHandler,
        ToolCallInterceptor as ToolCallInterceptor,
        ToolCallRequest as ToolCallRequest,
        ToolCallResult as ToolCallResult,
        compose as compose,
        error_result as error_result,
    )
    from mcpbridge._base.redaction import (
        RedactingFilter as RedactingFilter,
        install_log_redaction as install_log_redaction,
        redact_text as redact_text,
        redact_url as redact_url,
    )
    from mcpbridge._base.terminal import terminal_text as terminal_text
    from mcpbridge._facade.bridge import MCPBridge as MCPBridge
    from mcpbridge._facade.moved import to_mcp_server as to_mcp_server
    from mcpbridge._platform.claims import ClaimStore as ClaimStore, LocalClaims as LocalClaims
    from mcpbridge._platform.context import (
        BridgeContext as BridgeContext,
        BridgeContext as PluginConfig,  # noqa: F401  (deprecated)
        Stash as Stash,
        StashKey as StashKey,
    )
    from mcpbridge._platform.declaration import Capability as Capability, Plugin as Plugin
    from mcpbridge._platform.hints import ToolHints as ToolHints, tool_hints as tool_hints
    from mcpbridge._platform.hookspecs import (
        AddCommand as AddCommand,
        BridgeObserver as BridgeObserver,
        ToolReview as ToolReview,
        hookimpl as hookimpl,
    )
    from mcpbridge._platform.installed import (
        InstalledPlugins as InstalledPlugins,
        installed_plugins as installed_plugins,
    )
    from mcpbridge._platform.interrupts import InterruptLike as InterruptLike, Question as Question, pause as pause
    from mcpbridge._platform.plugins import PluginInfo as PluginInfo
    from mcpbridge._platform.rounds import (
        RoundAnswerer as RoundAnswerer,
        call_of as call_of,
        capability_of as capability_of,
        split_round as split_round,
    )
    from mcpbridge._platform.selectors import (
        ServerName as ServerName,
        ToolSelector as ToolSelector,
        selected as selected,
    )
    from mcpbridge._platform.sources import ValueSource as ValueSource, thread_id as thread_id
    from mcpbridge._session.connections import ModernOnly as ModernOnly
    from mcpbridge._session.loops import on_caller_loop as on_caller_loop
    from mcpbridge._session.server_info import ServerInfo as ServerInfo
    from mcpbridge._tools.outputs import call_tool_checked as call_tool_checked
    from mcpbridge._tools.results import (
        STRUCTURED_CONTENT as STRUCTURED_CONTENT,
        content_block as content_block,
        result_text as result_text,
    )
    from mcpbridge._tools.schemas import schema_problems as schema_problems
    from mcpbridge._tools.tool import MCPTool as MCPTool

_HOMES = {
    name: home
    for home, names in {
        "_base.config": "load_settings ServerConfig Settings",
        "_base.errors": (
            "AuthenticationError CannotPauseError ClaimStoreError ConfigError describe InvalidHeader "
            "InvalidToolArguments MCPBridgeError MCPToolError PluginError ResumeConflictError ServerConnectionError "
            "ServerRequestError ToolCallError ToolTimeoutError validation_problems"
        ),
        "_base.fromtext": "TextPattern",
        "_base.httpfields": "check_headers header_problem",
        "_base.lazy": "lazy_exports",
        "_base.pipeline": (
            "compose error_result RequestChanges Resumed TaskHandle ToolCallHandler ToolCallInterceptor "
            "ToolCallRequest ToolCallResult"
        ),
        "_base.redaction": "install_log_redaction redact_text redact_url RedactingFilter",
        "_base.terminal": "terminal_text",
        "_facade.bridge": "MCPBridge",
        "_facade.moved": "to_mcp_server",
        "_platform.claims": "ClaimStore LocalClaims",
        "_platform.context": "BridgeContext PluginConfig Stash StashKey",
        "_platform.declaration": "Capability Plugin",
        "_platform.hints": "tool_hints ToolHints",
        "_platform.hookspecs": "AddCommand BridgeObserver hookimpl ToolReview",
        "_platform.interrupts": "InterruptLike pause Question",
        "_platform.installed": "installed_plugins InstalledPlugins",
        "_platform.plugins": "PluginInfo",
        "_platform.rounds": "call_of capability_of RoundAnswerer split_round",
        "_platform.selectors": "selected ServerName ToolSelector",
        "_platform.sources": "thread_id ValueSource",
        "_session.connections": "ModernOnly",
        "_session.loops": "on_caller_loop",
        "_session.server_info": "ServerInfo",
        "_tools.outputs": "call_tool_checked",
        "_tools.results": "content_block result_text STRUCTURED_CONTENT",
        "_tools.schemas": "schema_problems",
        "_tools.tool": "MCPTool",
    }.items()
    for name in names.split()
}
"""Where each public name lives (imported on first use, by `__getattr__`)."""

__all__ = sorted(_HOMES)

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
