"""Deprecated: MCPBridge's resource and prompt methods moved to the `mcpbridge-resources`
plugin (`mcpbridge_resources.get_resources(bridge, server)`): reading what servers offer
beside tools is not the bridge's job. These aliases go in the next release; they import the
package by name, since the core imports no other distribution."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Awaitable, Callable
from typing import Any

HOME = "mcpbridge_resources"


def moved_to_resources(name: str) -> Callable[..., Awaitable[Any]]:
    """The deprecated method `MCPBridge.<name>`: warns, then is `mcpbridge_resources.<name>(bridge, ...)`."""

    def forward(bridge: Any, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        warnings.warn(
            f"MCPBridge.{name} is deprecated and goes in the next release: use "
            f"`mcpbridge_resources.{name}(bridge, ...)` (pip install mcpbridge-resources)",
            DeprecationWarning,
            stacklevel=2,
        )
        try:
            home = importlib.import_module(HOME)
        except ModuleNotFoundError as exc:
            if exc.name != HOME:
                raise
            raise ImportError(
                f"MCPBridge.{name} moved to the mcpbridge-resources plugin: pip install mcpbridge-resources"
            ) from None
        found: Awaitable[Any] = getattr(home, name)(bridge, *args, **kwargs)
        return found

    forward.__name__ = forward.__qualname__ = name
    forward.__doc__ = f"Deprecated: `mcpbridge_resources.{name}(bridge, ...)` (the mcpbridge-resources plugin)."
    return forward
