"""mcpbridge-pins: notice when a server changes a tool's definition after listing it, never
let a relabel relax a policy, and with `pin_tools` hold a changed tool back until a person
accepts it.

    [plugins.pins]
    pin_tools = true

    mcpbridge_pins.held_tools(bridge)             # the tools left out, with what changed
    await mcpbridge_pins.accept_tools(bridge, ["github/create_issue"])

`mcpbridge pins` lists the held tools with their new definitions, `mcpbridge pins accept`
accepts them from another process (the pins file is shared).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, Plugin, PluginError, StashKey, hookimpl, lazy_exports
from mcpbridge_pins.settings import PinsSettings

if TYPE_CHECKING:
    from mcpbridge import MCPBridge
    from mcpbridge_pins.review import HeldTool, ToolDefinitions

# The review imports mcp: on first use only, so that loading the plugin stays cheap.
__getattr__ = lazy_exports(__name__, dict.fromkeys(("HeldTool", "ToolDefinitions"), "mcpbridge_pins.review"))

__all__ = ["HeldTool", "PinsSettings", "ToolDefinitions", "accept_tools", "held_tools"]

mcpbridge_plugin = Plugin(settings=PinsSettings)
DEFINITIONS = StashKey["ToolDefinitions"]()


@hookimpl
def mcpbridge_tool_review(context: BridgeContext) -> ToolDefinitions:
    if DEFINITIONS not in context.stash:
        from mcpbridge_pins.review import ToolDefinitions

        context.stash[DEFINITIONS] = ToolDefinitions(context.settings_of(PinsSettings), context)
    return context.stash[DEFINITIONS]


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(PinsSettings)
    if not settings.pinning:
        return "pins no tool: changed definitions are logged and read as cautiously as before (set `pin_tools`)"
    servers = "every server" if settings.pin_tools is True else ", ".join(settings.pin_tools or ())
    return f"pins the tools of {servers} in {settings.path(context.source)}"


def held_tools(bridge: MCPBridge) -> tuple[HeldTool, ...]:
    """The tools `pin_tools` leaves out of `bridge`'s listings: their definitions changed
    since they were pinned (as far as the bridge has listed them)."""
    return _definitions(bridge).held


async def accept_tools(bridge: MCPBridge, selection: Sequence[str] = ()) -> list[str]:
    """Pin the new definitions of held tools (`"server"` or `"server/tool"`; all when empty),
    in memory and in the pins file, to offer them from the next listing on; returns them as
    `"server/tool"`. Lists the tools first, so that a change since is seen."""
    definitions = _definitions(bridge)
    await bridge.list_tools()
    return await definitions.accept(selection)


def _definitions(bridge: MCPBridge) -> ToolDefinitions:
    found = bridge.context.stash.get(DEFINITIONS, None)
    if found is None:
        raise PluginError(
            "this bridge has no pins plugin: load it with MCPBridge(..., plugins=['pins']) or enable it "
            "in [plugins] (it may be disabled or missing from `enabled`)"
        )
    return found
