"""`mcpbridge pins [accept [SERVER[/TOOL] ...]]`: the tools `pin_tools` holds back, each with
its new definition for review, and accepting them from outside the agent processes (a
running bridge offers an accepted tool at its next listing: the pins file is shared).

Server text is printed as escaped JSON or quoted, so a server cannot drive the terminal."""

from __future__ import annotations

import argparse
import asyncio
import json

import mcpbridge_pins
from mcpbridge import AddCommand, MCPBridge, load_settings
from mcpbridge_pins.review import ACCEPT, HeldTool, definition_of, shown, target


def add(add_command: AddCommand) -> None:
    pins = add_command("pins", run, "list the tools pin_tools holds back, with their new definitions")
    actions = pins.add_subparsers(dest="action")
    accept = actions.add_parser("accept", help="pin the new definitions of held tools (these, or all of them)")
    accept.add_argument("--config", default=argparse.SUPPRESS, help="config file (default: ./mcpbridge.toml)")
    accept.add_argument("selection", nargs="*", metavar="SERVER[/TOOL]")


def run(options: argparse.Namespace) -> int:
    selection = options.selection if options.action == "accept" else None
    accepted, held = asyncio.run(_review(options.config, selection))
    for name in accepted:
        print(f"accepted {name}")
    for tool in held:
        server, name = tool.server_name, tool.tool.name
        accept = target(server, name)
        label = accept if accept != server else f"{server}/{shown(name)}"
        print(
            f"{label}  held back: its {', '.join(tool.changed)} changed since pinned; review, then `{ACCEPT} {accept}`"
        )
        print(f"    {json.dumps(definition_of(tool.tool))}")
    if not held:
        print("no tool is held back")
    return 0


async def _review(config: str | None, selection: list[str] | None) -> tuple[list[str], tuple[HeldTool, ...]]:
    async with MCPBridge(settings=load_settings(config), plugins=[mcpbridge_pins]) as bridge:
        accepted = await mcpbridge_pins.accept_tools(bridge, selection) if selection is not None else []
        await bridge.list_tools()
        return accepted, mcpbridge_pins.held_tools(bridge)
