"""The demo MCP servers the cards show, over stdio: `python servers.py NAME`.

`demo` and `research` are the inspector's demo servers (mcpbridge_demo.inspector_demo: a forecast
that reports progress, a calculator whose divide fails on 0, a research tool that runs only
as an MCP task); `crm` and `booking` are mcpbridge-demo's (a destructive delete that needs
approval, a booking that asks the user for a date). CARDS_DELAY sets how long each demo
tool takes (seconds, default 1.5), so the running cards stay visible.
"""

from __future__ import annotations

import logging
import os
import sys

from mcp.server.mcpserver import MCPServer
from mcpbridge_demo import servers as demo_servers
from mcpbridge_demo.inspector_demo import build_demo_server, build_research_server


def build(name: str) -> MCPServer:
    delay = float(os.environ.get("CARDS_DELAY", "1.5"))
    if name == "demo":
        return build_demo_server(delay)
    if name == "research":
        return build_research_server(delay)
    return demo_servers.SERVERS[name]()


if __name__ == "__main__":
    logging.disable(logging.ERROR)  # tool errors reach the client as results; keep stderr quiet
    build(sys.argv[1]).run("stdio")
