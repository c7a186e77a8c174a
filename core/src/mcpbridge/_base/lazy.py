"""What keeps importing cheap: names a package gives but imports on first use (a plugin's
package is imported to read its declaration and hooks, `mcpbridge plugins`, and its
interceptors import mcp and LangChain, which are slow to import), and the switches read from the
environment, apart from the call pipeline so that the plugin host reads them without
importing mcp or LangChain."""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name of `homes` (name → module) is imported
    from its module when first read, then kept in the package. Use it as
    `__getattr__ = lazy_exports(__name__, {...})` and import the same names under
    `TYPE_CHECKING` for type checkers."""

    def __getattr__(name: str) -> Any:
        if (home := homes.get(name)) is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def env_flag(name: str) -> bool:
    """Whether the environment variable `name` is on (1, true, yes or on)."""
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def tracing() -> bool:
    """Whether `MCPBRIDGE_TRACE_HOOKS` asks to print hook calls and interceptor layers."""
    return env_flag("MCPBRIDGE_TRACE_HOOKS")
