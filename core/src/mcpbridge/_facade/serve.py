"""Deprecated: `mcpbridge.to_mcp_server` moved to its own distribution, `mcpbridge-serve`
(`from mcpbridge_serve import to_mcp_server`): serving tools is not the bridge's job. This
alias goes in the next release; it imports the package by name, since the core imports no
other distribution."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool
    from mcp.server.mcpserver import MCPServer

HOME = "mcpbridge_serve"


def to_mcp_server(tools: Iterable[BaseTool], *, name: str = "mcpbridge", instructions: str | None = None) -> MCPServer:
    """Deprecated: `mcpbridge_serve.to_mcp_server` (the `mcpbridge-serve` distribution)."""
    warnings.warn(
        "mcpbridge.to_mcp_server is deprecated and goes in the next release: "
        "use `from mcpbridge_serve import to_mcp_server` (pip install mcpbridge-serve)",
        DeprecationWarning,
        stacklevel=2,
    )
    try:
        home = importlib.import_module(HOME)
    except ModuleNotFoundError as exc:
        if exc.name != HOME:
            raise
        raise ImportError(
            "mcpbridge.to_mcp_server moved to the mcpbridge-serve distribution: pip install mcpbridge-serve"
        ) from None
    server: MCPServer = home.to_mcp_server(tools, name=name, instructions=instructions)
    return server
