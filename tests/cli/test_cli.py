"""The `mcpbridge` command line against a real stdio server named in a config file."""

from __future__ import annotations

import json
import os
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


def test_call_prints_status_and_content_and_the_artifact_when_asked(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["call", "basic", "get_forecast", '{"city": "Oslo"}']) == 0
    out = capsys.readouterr().out
    assert out.startswith("status: success\ncontent:\n")
    assert '"temperature_c": 4.5' in out
    assert "artifact" not in out
    assert cli(["call", "basic", "get_forecast", "city=Oslo", "--artifact"]) == 0
    assert '"type": "mcp_structured_content"' in capsys.readouterr().out.split("artifact:\n", 1)[1]
    assert cli(["call", "basic", "get_forecast", "city=Oslo", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["status"] == "success"
    assert shown["artifact"][0]["data"] == {"city": "Oslo", "temperature_c": 4.5}
    assert cli(["call", "basic", "divide", '{"a": 1, "b": 0}']) == 1
    assert "status: error" in capsys.readouterr().out


def test_call_takes_key_value_pairs_and_prints_lines_as_a_block(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli(["call", "basic", "divide", "a=1", "b=4"]) == 0  # values that parse as JSON are JSON
    assert capsys.readouterr().out.endswith("content:\n  0.25\n")
    assert cli(["call", "basic", "echo", "text=Oslo, first line\nsecond line=x"]) == 0  # else strings
    assert capsys.readouterr().out.endswith("content:\n  Oslo, first line\n  second line=x\n")
    assert cli(["call", "basic", "echo", "Oslo"]) == 1
    assert "or key=value pairs (city=Oslo count=3); 'Oslo' is neither" in capsys.readouterr().err


def test_bad_input_is_a_clear_error(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli(["call", "basic", "echo", "{not json"]) == 1
    assert "arguments must be a JSON object" in capsys.readouterr().err
    assert cli(["call", "basic", "echo", "[1]"]) == 1
    assert "or key=value pairs" in capsys.readouterr().err
    assert cli(["call", "basic", "nope"]) == 1
    assert "server 'basic' has no tool 'nope'; its tools: " in capsys.readouterr().err
    assert cli(["tools", "--config", "missing.toml"]) == 1
    assert "config file 'missing.toml' not found" in capsys.readouterr().err


def test_plugin_sub_commands_and_fast_help() -> None:
    help_text = subprocess.run(
        [sys.executable, "-m", "mcpbridge_cli", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "plugins" in help_text
    assert "    demo      run the demo: sample servers and an agent" in help_text  # what it does
    assert "from mcpbridge-" not in help_text
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


@pytest.fixture
def crm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The demo's CRM server over stdio, its delete_contact gated by the approval plugin."""
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        f"""
[servers.crm]
command = {json.dumps(sys.executable)}
args = ["-m", "mcpbridge_demo.servers", "crm"]
[plugins]
autoload = false
enabled = ["approval"]
"""
    )
    monkeypatch.chdir(tmp_path)
    return config


def typed(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    """`text` is what the user types on stdin."""
    read, write = os.pipe()
    os.write(write, text.encode())
    os.close(write)
    monkeypatch.setattr(sys, "stdin", open(read))  # noqa: SIM115 (closed by the test's end)


@pytest.mark.parametrize(("answer", "status", "said"), [("y\n", 0, "deleted Alan Turing"), ("\n", 1, "declined")])
def test_call_asks_before_an_approval_gated_tool(
    answer: str, status: int, said: str, crm: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typed(monkeypatch, answer)
    assert cli(["call", "crm", "delete_contact", "contact_id=c2"]) == status
    out, err = capsys.readouterr()
    assert 'crm/delete_contact({"contact_id": "c2"}) needs approval: allow? [y/N] ' in err
    assert said in out


def test_call_yes_approves_for_scripts(
    crm: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    typed(monkeypatch, "")
    assert cli(["call", "crm", "delete_contact", "contact_id=c2", "--yes"]) == 0
    out, err = capsys.readouterr()
    assert "deleted Alan Turing" in out
    assert "approved crm/delete_contact" in err
    assert "allow?" not in err
