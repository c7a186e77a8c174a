"""pluggy's entry of `mcpbridge._compat` (which gives it too), apart because the plugin host
needs it and `mcpbridge --help` / `mcpbridge plugins` must load without the mcp, LangChain and
LangGraph modules `_compat` checks when it is imported."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pluggy import HookImpl


def rebind_hookimpl(impl: HookImpl, function: Callable[..., Any]) -> None:
    """Makes pluggy call `function` for `impl`. pluggy passes every implementation of a hook
    the same arguments, and ours differ per plugin (its own `settings`); `HookImpl.function`
    is a plain slot that pluggy annotates `Final` for its own code, so it is set past that."""
    object.__setattr__(impl, "function", function)
