"""`mcpbridge demo` (the mcpbridge-demo distribution) end to end, with every plugin and with
the core alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import pytest
from mcpbridge_demo.answers import answer

MCPBRIDGE = shutil.which("mcpbridge", path=str(Path(sys.executable).parent))


def demo(*args: str, **env: str) -> str:
    assert MCPBRIDGE is not None, "the mcpbridge command is installed with mcpbridge: run `make install`"
    result = subprocess.run(
        [MCPBRIDGE, "demo", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def row(output: str, tool: str, nth: int = 0) -> list[str]:
    table = output.split("== Tool calls", 1)[1]
    return [line.split() for line in table.splitlines() if line.strip().startswith(tool + " ")][nth]


def test_demo_shows_every_plugin_at_work() -> None:
    out = demo("--yes")
    assert "SCRIPTED model" in out
    assert "contacts of user ada" in out  # headers: the context's user id reached the CRM over HTTP
    assert row(out, "get_forecast", 0)[1:4] == ["success", "1", "miss"]
    assert row(out, "get_forecast", 1)[1:4] == ["success", "1", "hit"]  # cache
    assert row(out, "service_status")[1:3] == ["success", "3"]  # retry: two failures, then success
    assert "date = 2026-12-24 (--yes)" in out  # elicitation asked mid-call
    assert "table for 2 booked on 2026-12-24" in out
    assert "approve crm/delete_contact({'contact_id': 'c2'})  → yes (--yes)" in out  # approval
    assert "deleted Alan Turing" in out
    assert row(out, "divide")[1] == "error"
    assert "lifecycle events" in out  # events
    assert "runs long tools as MCP tasks" in out  # tasks: its live card is in `mcpbridge demo --ui`
    chain = out.split("== Plugins in the chain", 1)[1].split("\n==", 1)[0]
    assert "each person signs in to MCP servers with OAuth" in chain  # a plugin says its own role
    assert "(a plugin whose distribution says nothing of itself)" not in chain
    trace = out.split("== Trace", 1)[1]
    assert "execute_tool list_contacts" in trace
    assert "MCP send tools/call list_contacts" in trace  # the SDK's span is a child of ours


def test_the_demo_and_resources_declare_commands_and_no_plugin() -> None:
    """mcpbridge-demo and mcpbridge-resources put nothing in a chain: `mcpbridge plugins` and
    every bridge's chain leave them out, and their commands are still found."""
    plugins = {ep.dist.name for ep in entry_points(group="mcpbridge") if ep.dist is not None}
    assert not {"mcpbridge-demo", "mcpbridge-resources"} & plugins
    commands = {ep.name: ep.dist.name for ep in entry_points(group="mcpbridge.commands") if ep.dist is not None}
    assert {name: commands.get(name) for name in ("demo", "inspect", "resources", "prompts")} == {
        "demo": "mcpbridge-demo",
        "inspect": "mcpbridge-demo",
        "resources": "mcpbridge-resources",
        "prompts": "mcpbridge-resources",
    }


def test_demo_with_the_core_alone_says_what_plugins_would_add() -> None:
    out = demo("--yes", MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD="1")  # no plugin in the chain
    assert "Not installed or disabled" in out
    assert "mcpbridge-approval" in out
    assert "contacts of user anonymous" in out
    assert "elicitation capability" in out
    assert row(out, "book_table")[1] == "error"
    assert row(out, "service_status")[1] == "error"
    assert "== Trace" not in out


@pytest.mark.parametrize(("typed", "decision"), [("y", {"type": "approve"}), ("n", {"type": "reject"})])
async def test_terminal_answers(typed: str, decision: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    payload = {
        "type": "mcp_approval",
        "server_name": "crm",
        "name": "delete_contact",
        "display_name": "delete_contact",
        "arguments": {"contact_id": "c2"},
    }

    async def type_(text: str) -> str:
        return text

    assert (await answer(payload, yes=False, ask=lambda prompt: type_(typed))).items() >= decision.items()
    form = {
        "type": "mcp_elicitation",
        "requests": {
            "when": {
                "mode": "form",
                "message": "Date?",
                "requested_schema": {"properties": {"date": {"type": "string"}}},
            }
        },
    }
    assert await answer(form, yes=False, ask=lambda prompt: type_("2027-01-02")) == {
        "when": {"action": "accept", "content": {"date": "2027-01-02"}}
    }
