"""Deprecated aliases of what moved out of the core into a distribution of its own: reading
what servers offer beside tools (`mcpbridge-resources`) and serving tools over MCP
(`mcpbridge-serve`) are not the bridge's job. They go in the next release; they import the
distribution by name, since the core imports no other distribution."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Awaitable, Callable, Iterable
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from langchain_core.tools import BaseTool
    from mcp.server.mcpserver import MCPServer


def _moved(old: str, new: str, distribution: str) -> ModuleType:
    """Warns that `old` is deprecated for `new`, and imports `distribution`'s package."""
    warnings.warn(
        f"{old} is deprecated and goes in the next release: use `{new}` (pip install {distribution})",
        DeprecationWarning,
        stacklevel=3,
    )
    package = distribution.replace("-", "_")
    try:
        return importlib.import_module(package)
    except ModuleNotFoundError as exc:
        if exc.name != package:
            raise
        raise ImportError(f"{old} moved to the {distribution} distribution: pip install {distribution}") from None


def moved_to_resources(name: str) -> Callable[..., Awaitable[Any]]:
    """The deprecated method `MCPBridge.<name>`: warns, then is `mcpbridge_resources.<name>(bridge, ...)`."""

    def forward(bridge: Any, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        home = _moved(f"MCPBridge.{name}", f"mcpbridge_resources.{name}(bridge, ...)", "mcpbridge-resources")
        found: Awaitable[Any] = getattr(home, name)(bridge, *args, **kwargs)
        return found

    forward.__name__ = forward.__qualname__ = name
    forward.__doc__ = f"Deprecated: `mcpbridge_resources.{name}(bridge, ...)` (the mcpbridge-resources plugin)."
    return forward


def to_mcp_server(tools: Iterable[BaseTool], *, name: str = "mcpbridge", instructions: str | None = None) -> MCPServer:
    """Deprecated: `mcpbridge_serve.to_mcp_server` (the `mcpbridge-serve` distribution)."""
    home = _moved("mcpbridge.to_mcp_server", "from mcpbridge_serve import to_mcp_server", "mcpbridge-serve")
    server: MCPServer = home.to_mcp_server(tools, name=name, instructions=instructions)
    return server
