"""Server-side mcp 1.x names for langchain-mcp-adapters' test suite, on mcp 2.x (loaded
only by the upstream tier's processes, through PYTHONPATH).

Their test servers are written with `mcp.server.fastmcp.FastMCP` (`from mcp.server import
FastMCP` too), which mcp 2.x renamed `mcp.server.mcpserver.MCPServer`; `tests/utils.py`
imports `mcp.server.websocket` (gone: its WebSocket tests fail, as they must); the
elicitation tests annotate with `mcp.shared.context.RequestContext`. Nothing on the client
side changes: the names are added, none is replaced.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Any

_NEW = {"mcp.server.fastmcp": "_mcp1_fastmcp", "mcp.server.websocket": "_mcp1_websocket"}
_ADDED = {
    "mcp.server": ("FastMCP", "_mcp1_fastmcp", "FastMCP"),
    "mcp.shared.context": ("RequestContext", "mcp.client.session", "ClientRequestContext"),
}


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:
        pass


class _Adding(importlib.abc.Loader):
    """The real module, with one name more (looked up lazily: importing it may be slow)."""

    def __init__(self, real: importlib.abc.Loader, name: str, home: str, attribute: str) -> None:
        self.real, self.name, self.home, self.attribute = real, name, home, attribute

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self.real.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self.real.exec_module(module)
        name, home, attribute = self.name, self.home, self.attribute

        def __getattr__(missing: str) -> Any:
            if missing == name:
                return getattr(importlib.import_module(home), attribute)
            raise AttributeError(f"module {module.__name__!r} has no attribute {missing!r}")

        module.__getattr__ = __getattr__  # type: ignore[method-assign]


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname in _NEW:
            return importlib.machinery.ModuleSpec(fullname, _Alias(_NEW[fullname]))
        if fullname in _ADDED:
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None:
                spec.loader = _Adding(spec.loader, *_ADDED[fullname])
            return spec
        return None


sys.meta_path.insert(0, _Finder())
