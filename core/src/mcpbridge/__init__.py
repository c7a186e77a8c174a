"""mcpbridge: MCP server tools in LangChain / LangGraph agents, through an interceptor
pipeline that plugins extend.

Everything public is here, for users and plugin authors alike (docs/api.md); the
underscore modules are internal and may change in any release. `mcpbridge.testing` holds
the pytest fixtures.

The names are listed once, in `__init__.pyi`, and imported on first use (`lazy_loader`), so
`mcpbridge --help` does not pay for importing mcp and LangGraph (docs/performance.md)."""

from __future__ import annotations

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
