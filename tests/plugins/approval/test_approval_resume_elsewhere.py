"""A run paused in this process (SQLite checkpointer) is approved and resumed by another."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path

import mcpbridge_approval
import pytest
from langchain.agents import create_agent
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel, serving, tool_call_turn
from tests.helpers import ROOT

from . import approval_servers
from .approval_servers import ran

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

WORKER = Path(__file__).with_name("resume_worker.py")


@pytest.fixture
def files_url() -> Iterator[str]:
    with serving(approval_servers.build().streamable_http_app()) as url:
        yield url


async def test_resume_in_another_process(files_url: str, tmp_path: Path) -> None:
    approval_servers.CALLS.clear()
    db = str(tmp_path / "checkpoints.sqlite")
    config = {"configurable": {"thread_id": "cross-process"}}
    async with (
        AsyncSqliteSaver.from_conn_string(db) as saver,
        MCPBridge({"files": {"url": files_url}}, plugins=[mcpbridge_approval]) as bridge,
    ):
        model = ScriptedChatModel(turns=[tool_call_turn(("delete_file", {"path": "/srv/old"}))])
        agent = create_agent(model, await bridge.list_tools(), checkpointer=saver)
        result = await agent.ainvoke({"messages": [("user", "clean up")]}, config)
    assert result["__interrupt__"][0].value["name"] == "delete_file"
    assert ran("delete_file") == []

    worker = await asyncio.create_subprocess_exec(
        sys.executable, str(WORKER), db, files_url, "cross-process", json.dumps({"type": "approve"}),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(worker.communicate(), timeout=60)
    assert worker.returncode == 0, err.decode()
    [message] = [json.loads(line) for line in out.decode().splitlines()]
    assert message["status"] == "success"
    assert message["content"][0]["text"] == "deleted /srv/old"
    assert ran("delete_file") == [{"path": "/srv/old"}]
