"""A fresh process that imports mcpbridge, builds a bridge over a stdio server, lists its tools
and calls one (bench/coldstart.py's child, every installed plugin loaded) imports no more
than that needs: not LangGraph's prebuilt agents and ToolNode (an agent imports them when it
runs the tools), not the graph runtime. Two imports it cannot avoid are its dependencies'
own, checked here so that the day a release drops one the list below gains it: the mcp
client package imports `mcp.server` (for its in-memory transport), and LangChain's
`BaseTool` (its `Runnable` base) imports LangChain's tracers and langsmith's run trees."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT

NOT_IMPORTED = (
    "langgraph.prebuilt",
    "langgraph.graph",
    "langgraph.pregel",
    "langchain_core.language_models.chat_models",  # the sampling plugin's, when a model answers (~40 ms, 2 MB)
    "mcp.client.auth",  # mcp's OAuth client: the auth plugin's sign-in flow, or a session that failed to open
)
"""Modules a cold first call must not import (each costs its import time and memory)."""
THEIRS = {
    "mcp.client.stdio": "mcp.server",
    "langchain_core.tools.base": "langchain_core.tracers.event_stream",
    "langchain_core.runnables.base": "langsmith.run_trees",
}
"""What importing a dependency's module imports on its own, paid by the raw SDK too."""


def imported_by(*command: str) -> set[str]:
    done = subprocess.run([sys.executable, *command], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1])["modules"])


def test_a_cold_first_call_on_a_stdio_server_imports_no_agent_machinery() -> None:
    modules = imported_by("bench/coldstart.py", "--child", "bridge", "--modules")
    assert "mcpbridge" in modules
    assert "mcpbridge._tools.tool" in modules  # it did list and call
    assert sorted(modules & set(NOT_IMPORTED)) == []


@pytest.mark.parametrize(("module", "brings"), sorted(THEIRS.items()))
def test_the_dependencies_still_import_what_we_do_not_pin(module: str, brings: str) -> None:
    script = f"import json, sys, {module}; print(json.dumps({{'modules': sorted(sys.modules)}}))"
    assert brings in imported_by("-c", script), f"{module} no longer imports {brings}: add it to NOT_IMPORTED"
