"""The `mcpbridge` command line against a real stdio server named in a config file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from mcpbridge_cli import main as cli

from tests.helpers import ROOT


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        f"""
[servers.basic]
command = {json.dumps(sys.executable)}
args = ["-m", "tests.servers.basic"]
cwd = {json.dumps(str(ROOT))}
[plugins]
autoload = false
"""
    )
    monkeypatch.chdir(tmp_path)
    return config


def test_tools_lists_annotations(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["tools"]) == 0
    out = capsys.readouterr().out
    assert "basic/get_forecast  as 'get_forecast'  (readOnlyHint=True)" in out
    assert "basic/die  as 'die'  (destructiveHint=True)" in out
    assert cli(["tools", "--json", "--config", str(project)]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert rows["echo"]["annotations"] == {"readOnlyHint": True}


def test_call_prints_content_artifact_and_status(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["call", "basic", "get_forecast", '{"city": "Oslo"}']) == 0
    out = capsys.readouterr().out
    assert out.startswith("status: success\ncontent:\n")
    assert '"temperature_c": 4.5' in out
    assert '"type": "mcp_structured_content"' in out
    assert cli(["call", "basic", "divide", '{"a": 1, "b": 0}']) == 1
    assert "status: error" in capsys.readouterr().out


def test_bad_input_is_a_clear_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["call", "basic", "echo", "{not json"]) == 1
    assert "arguments must be a JSON object" in capsys.readouterr().err
    assert cli(["call", "basic", "nope"]) == 1
    assert "server 'basic' has no tool 'nope'; its tools: " in capsys.readouterr().err
    assert cli(["tools", "--config", "missing.toml"]) == 1
    assert "config file 'missing.toml' not found" in capsys.readouterr().err


def test_plugin_sub_commands_and_fast_help() -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "mcpbridge_cli", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "plugins" in help_text
    assert "demo" in help_text
    imported = subprocess.run(
        [sys.executable, "-c", "import sys, mcpbridge_cli; print('mcp' in sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert imported.strip() == "False"
    inspect_help = subprocess.run(
        [sys.executable, "-m", "mcpbridge_cli", "inspect", "--help"], capture_output=True, text=True
    )
    assert inspect_help.returncode == 0
    assert "--no-run" in inspect_help.stdout


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exited:
        cli(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == f"mcpbridge {version('mcpbridge')}\n"
