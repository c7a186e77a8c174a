"""`mcpbridge --help`, `--version` and `plugins` answer at once: they import none of the
heavy dependencies (mcp, LangChain, LangGraph, httpx), which take seconds, nor asyncio and
ssl (~40 ms, which a claim store's module once brought in at plugin load); plugin commands
come from entry-point metadata, and plugins import their heavy modules inside their hooks.
What is imported is pinned here, not how long it takes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("mcp", "langchain_core", "langchain", "langgraph", "httpx", "httpx2", "asyncio", "ssl")

PROBE = """
import json, sys
from mcpbridge_cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(json.dumps(sorted({name.split(".")[0] for name in sys.modules})), file=sys.stderr)
"""


def imported_by(*args: str) -> tuple[set[str], str]:
    """The top-level packages `mcpbridge ARGS` imports, and what it printed."""
    done = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True, check=True)
    return set(json.loads(done.stderr.strip().splitlines()[-1])), done.stdout


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["plugins"]], ids=" ".join)
def test_quick_commands_import_no_heavy_dependency(args: list[str]) -> None:
    modules, out = imported_by(*args)
    assert out.strip()
    assert sorted(modules.intersection(HEAVY)) == []


def test_help_lists_the_declared_plugin_commands_without_importing_plugins() -> None:
    modules, out = imported_by("--help")
    for command in ("plugins", "tools", "call", "demo", "inspect", "cache", "pins", "resources", "prompts"):
        assert f"    {command} " in out or f"    {command}\n" in out
    assert not {name for name in modules if name.startswith("mcpbridge_")} - {"mcpbridge_cli"}


def test_a_declared_command_loads_only_its_own_plugin() -> None:
    modules, out = imported_by("demo", "--help")
    assert "--model" in out
    assert {name for name in modules if name.startswith("mcpbridge_")} == {"mcpbridge_cli", "mcpbridge_demo"}
