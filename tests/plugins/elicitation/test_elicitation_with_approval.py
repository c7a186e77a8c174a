"""Both plugins on one agent: the interrupt `type` tells them apart, one Command answers
both, and a run paused here finishes in another process (SQLite checkpointer)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import mcpbridge_approval
import mcpbridge_elicitation
import pytest
from langchain.agents import create_agent
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.types import Command, Interrupt
from mcpbridge_approval import create_approval_resume
from mcpbridge_elicitation import create_elicitation_resume

from mcpbridge import MCPBridge
from mcpbridge.testing import ScriptedChatModel, tool_call_turn
from tests.helpers import ROOT

from . import elicit_servers
from .elicit_servers import EFFECTS

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

WORKER = Path(__file__).with_name("resume_worker.py")
CONFIG = {"configurable": {"thread_id": "both"}}


def by_type(interrupts: list[Interrupt]) -> dict[str, Interrupt]:
    return {f"{i.value['type']}:{i.value['name']}": i for i in interrupts}


def deleted() -> list[Any]:
    return [detail for what, detail in EFFECTS if what == "deleted"]


async def test_approval_then_elicitation_resumed_in_another_process(shop_url: str, tmp_path: Path) -> None:
    EFFECTS.clear()
    db = str(tmp_path / "checkpoints.sqlite")
    async with (
        AsyncSqliteSaver.from_conn_string(db) as saver,
        MCPBridge(
            {"shop": {"url": shop_url, "mode": "modern"}}, plugins=[mcpbridge_approval, mcpbridge_elicitation]
        ) as bridge,
    ):
        model = ScriptedChatModel(
            turns=[tool_call_turn(("delete_account", {"user": "bob"}), ("book", {"room": "red"}))]
        )
        run = create_agent(model, await bridge.list_tools(), checkpointer=saver)
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        pending = by_type(result["__interrupt__"])
        assert sorted(pending) == ["mcp_approval:delete_account", "mcp_elicitation:book"]
        assert EFFECTS == []  # approval comes first: the server has not been called

        [date_key] = pending["mcp_elicitation:book"].value["requests"]
        resume = create_approval_resume(result["__interrupt__"]) | create_elicitation_resume(
            pending["mcp_elicitation:book"], {date_key: {"action": "accept", "content": {"date": "2030-03-03"}}}
        )
        result = await run.ainvoke(Command(resume=resume), CONFIG)
        [confirm] = result["__interrupt__"]
        assert (confirm.value["type"], confirm.value["name"]) == ("mcp_elicitation", "delete_account")
        assert [d for what, d in EFFECTS if what == "booked"] == ["red@2030-03-03"]
        assert deleted() == []
        answer = create_elicitation_resume(confirm, {"confirm": {"action": "accept", "content": {"sure": True}}})

    worker = await asyncio.create_subprocess_exec(
        sys.executable, str(WORKER), db, shop_url, "both", json.dumps(answer),
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(worker.communicate(), timeout=60)
    assert worker.returncode == 0, err.decode()
    report = json.loads(out.decode().splitlines()[-1])
    assert report["interrupts"] == []
    assert "deleted bob" in report["texts"]
    assert deleted() == ["bob"]


async def test_rejected_call_never_reaches_the_elicitation_or_the_server() -> None:
    EFFECTS.clear()
    async with MCPBridge(
        {"shop": elicit_servers.build()}, plugins=[mcpbridge_approval, mcpbridge_elicitation]
    ) as bridge:
        model = ScriptedChatModel(turns=[tool_call_turn(("delete_account", {"user": "bob"}))])
        run = create_agent(model, await bridge.list_tools(), checkpointer=InMemorySaver())
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        decision = {"type": "reject", "message": "no"}
        result = await run.ainvoke(Command(resume=create_approval_resume(result["__interrupt__"], decision)), CONFIG)
    assert "__interrupt__" not in result
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.status == "error"
    assert "rejected" in message.content
    assert EFFECTS == []
