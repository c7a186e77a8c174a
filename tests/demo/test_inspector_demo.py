"""The inspector's demo agent (`mcpbridge inspect`) runs on shipped code only: one run shows
every kind of card, and `mcpbridge.testing` (test support) is never imported."""

from __future__ import annotations

import json
import subprocess
import sys

ONE_RUN = """
import asyncio, json, sys
import mcpbridge_events, mcpbridge_tasks
from mcpbridge import MCPBridge
from mcpbridge_demo.inspector import serve
from mcpbridge_demo.inspector_demo import build_demo_server, build_research_server, run_demo_agent

async def main():
    servers = {"demo": build_demo_server(0), "research": {"server": build_research_server(0), "mode": "legacy"}}
    with serve(port=0) as inspector:
        async with MCPBridge(servers, plugins=[mcpbridge_events, mcpbridge_tasks]) as bridge:
            await run_demo_agent(list(await bridge.list_tools()), inspector, run=7)
        calls = {call["callId"]: call["status"] for call in inspector.board.snapshot()}
    print(json.dumps({"calls": calls, "testing": "mcpbridge.testing" in sys.modules}))

asyncio.run(main())
"""


def test_one_demo_run_shows_every_card_without_the_testing_package() -> None:
    done = subprocess.run([sys.executable, "-c", ONE_RUN], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert seen["calls"] == {
        "run7-call-1": "finished",
        "run7-call-2": "finished",
        "run7-call-3": "error",
        "run7-call-4": "finished",
        "run7-call-5": "finished",
    }
    assert seen["testing"] is False, "the demo imported mcpbridge.testing"
