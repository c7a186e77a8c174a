"""A plugin that still adds its command through the deprecated `mcpbridge_commands` hook:
the command runs (with a DeprecationWarning) but `--help` does not list it. The plugin is a
real installed distribution (its metadata on `sys.path`), found through its entry point."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PLUGIN = """
from mcpbridge import hookimpl


@hookimpl
def mcpbridge_commands(add_command):
    sub = add_command("legacy-hello", lambda options: print(f"hello {options.who}"), "say hello")
    sub.add_argument("who")
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "mcpbridge_legacy.py").write_text(PLUGIN)
    info = tmp_path / "mcpbridge_legacy-0.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mcpbridge-legacy\nVersion: 0.0.1\n")
    (info / "entry_points.txt").write_text("[mcpbridge]\nlegacy = mcpbridge_legacy\n")
    return tmp_path


def mcpbridge(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path]), "MCPBRIDGE_PLUGINS": "legacy"}
    command = [sys.executable, "-W", "always::DeprecationWarning", "-m", "mcpbridge_cli", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env, cwd=site)


def test_a_command_of_the_deprecated_hook_runs_with_a_warning(site: Path) -> None:
    done = mcpbridge(site, "legacy-hello", "Oslo")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "hello Oslo\n"
    assert "the command 'legacy-hello' comes from the deprecated `mcpbridge_commands` hook" in done.stderr


def test_help_does_not_list_it(site: Path) -> None:
    done = mcpbridge(site, "--help")
    assert done.returncode == 0
    assert "legacy-hello" not in done.stdout
