"""mcpbridge-resources: what MCP servers offer beside tools, on the bridge's own sessions:
resources as LangChain `Blob`s, prompts as LangChain messages, and the commands
`mcpbridge resources` and `mcpbridge prompts`.

    blobs = await mcpbridge_resources.get_resources(bridge, "docs")
    messages = await mcpbridge_resources.get_prompt(bridge, "docs", "review", {"code": "x = 1"})

Every request goes through `MCPBridge.request`: on the bridge's loop (for a bridge opened
with `async with` or `with`), an error answer is a `ServerRequestError`, a server that
forgot the session is asked again on a new one. Nothing runs on a tool call.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpbridge import lazy_exports

if TYPE_CHECKING:
    from mcpbridge_resources.access import (
        get_prompt,
        get_resources,
        list_prompts,
        list_resource_templates,
        list_resources,
    )

__all__ = ["get_prompt", "get_resources", "list_prompts", "list_resource_templates", "list_resources"]

# They import mcp and LangChain: on first use only, so that loading the plugin stays cheap.
__getattr__ = lazy_exports(__name__, dict.fromkeys(__all__, "mcpbridge_resources.access"))
