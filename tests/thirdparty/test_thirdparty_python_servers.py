"""PyPI `mcp-server-time` and `mcp-server-git`, their current (mcp 2.x, modern protocol)
and `2026.8.18` (mcp 1.x, legacy protocol) releases, in the default `auto` mode."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mcpbridge import MCPBridge
from tests.helpers.thirdparty import CURRENT, LEGACY

from .support import invoke, structured, text, tools_of

VERSIONS = pytest.mark.parametrize("version", [CURRENT, LEGACY])


@VERSIONS
async def test_time_everyday_calls(time_server: Callable[[str], dict[str, Any]], version: str) -> None:
    async with MCPBridge({"time": time_server(version)}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        assert {"get_current_time", "convert_time"} <= set(tools)
        assert tools["get_current_time"].metadata["annotations"]["readOnlyHint"] is True
        session = await bridge.session("time")
        assert session.protocol_version == ("2026-07-28" if version == CURRENT else "2025-11-25")

        now = await invoke(bridge, "get_current_time", {"timezone": "Europe/Oslo"})
        assert now.status == "success", text(now)
        assert '"timezone": "Europe/Oslo"' in text(now)
        if version == CURRENT:  # the mcp 1.x release returns text only
            assert structured(now)["timezone"] == "Europe/Oslo"

        converted = await invoke(
            bridge, "convert_time", {"source_timezone": "Etc/UTC", "time": "12:00", "target_timezone": "Asia/Tokyo"}
        )
        assert converted.status == "success", text(converted)
        assert "21:00" in text(converted)

        wrong = await invoke(bridge, "get_current_time", {"timezone": "Mars/Olympus_Mons"})
        assert wrong.status == "error"
        assert "Mars/Olympus_Mons" in text(wrong)


@VERSIONS
async def test_git_everyday_calls(git_server: Callable[[str], dict[str, Any]], git_repo: Path, version: str) -> None:
    async with MCPBridge({"git": git_server(version)}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        assert {"git_status", "git_log", "git_add", "git_show"} <= set(tools)
        repo = str(git_repo)

        log = await invoke(bridge, "git_log", {"repo_path": repo})
        assert log.status == "success", text(log)
        assert "first commit" in text(log)

        clean = await invoke(bridge, "git_status", {"repo_path": repo})
        assert "new.txt" not in text(clean)
        (git_repo / "new.txt").write_text("fresh\n")
        dirty = await invoke(bridge, "git_status", {"repo_path": repo}, id="call-2")
        assert "new.txt" in text(dirty), "a read-only tool answered from before the write"

        missing = await invoke(bridge, "git_show", {"repo_path": repo, "revision": "no-such-revision"})
        assert missing.status == "error"
        assert "no-such-revision" in text(missing)


@pytest.mark.parametrize("server", ["time", "git"])
async def test_mcp1_server_connects_quietly_in_auto_mode(
    server: str,
    time_server: Callable[[str], dict[str, Any]],
    git_server: Callable[[str], dict[str, Any]],
    git_repo: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """Issue 13 point 8: the modern-protocol probe made mcp 1.x servers print a ~60-line
    pydantic warning on the terminal at every connect; connecting to them is quiet."""
    config = time_server(LEGACY) if server == "time" else git_server(LEGACY)
    capfd.readouterr()
    async with MCPBridge({server: config}, plugins=[]) as bridge:
        assert (await bridge.session(server)).protocol_version == "2025-11-25"
        if server == "time":
            answer = await invoke(bridge, "get_current_time", {"timezone": "Etc/UTC"})
        else:
            answer = await invoke(bridge, "git_status", {"repo_path": str(git_repo)})
        assert answer.status == "success", text(answer)
    out, err = capfd.readouterr()
    printed = out + err
    assert "validation error" not in printed.lower(), printed[:2000]
    assert "pydantic" not in printed.lower(), printed[:2000]
    assert printed.strip() == "", printed[:2000]
