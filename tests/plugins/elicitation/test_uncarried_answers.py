"""Answers an MCP elicitation result cannot hold (keys that are not text, nested values)
are refused when the run resumes, as every other bad answer is: the resuming `invoke`
raises, nothing is saved, the same question stays open, and a correct answer afterwards
completes the call."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import mcpbridge_elicitation
import pytest
from langgraph.types import Command
from mcpbridge_elicitation import create_elicitation_resume
from pydantic import ValidationError

from mcpbridge import MCPBridge, MCPTool

from . import elicit_servers
from .elicit_servers import EFFECTS
from .test_elicitation_agent import CONFIG, agent, start, texts


@pytest.fixture
async def tools() -> AsyncIterator[list[MCPTool]]:
    EFFECTS.clear()
    async with MCPBridge({"shop": elicit_servers.build()}, plugins=[mcpbridge_elicitation]) as bridge:
        yield await bridge.list_tools()


def accepting(content: dict[Any, Any]) -> dict[Any, Any]:
    return {"confirm": {"action": "accept", "content": content}}


UNCARRIED = {
    "a nested object": (accepting({"sure": True, "note": {"why": "asked"}}), "field 'note' holds {'why': 'asked'}"),
    "a list of other than text": (accepting({"sure": True, "tags": ["a", 2]}), "field 'tags' holds a list with 2"),
    "a key that is not text": (accepting({"sure": True, 1: "x"}), "field names, which are text, not 1 \\(int\\)"),
    "keys both an int and a text": (accepting({"sure": True, 1: "x", "1": "y"}), "which are text, not 1 \\(int\\)"),
    "question keys both an int and a text": (
        {"confirm": {"action": "decline"}, 1: {"action": "decline"}, "other": {"action": "decline"}},
        "keyed by the questions' keys \\(\\['confirm'\\]\\), which are text, not 1 \\(int\\)",
    ),
    "a question key None": ({"confirm": {"action": "decline"}, None: {}}, "which are text, not None \\(NoneType\\)"),
}


@pytest.mark.parametrize("case", UNCARRIED)
async def test_an_answer_mcp_cannot_carry_is_refused_and_the_question_stays_open(
    tools: list[MCPTool], case: str
) -> None:
    answers, expected = UNCARRIED[case]
    run = agent(tools, ("delete_account", {"user": "bob"}))
    pending = await start(run)
    with pytest.raises(ValidationError, match=expected):
        await run.ainvoke(Command(resume={pending.id: answers}), CONFIG)
    state = await run.aget_state(CONFIG)
    assert [i.id for i in state.interrupts] == [pending.id]
    assert state.interrupts[0].value == pending.value  # the same question, still answerable
    assert ("deleted", "bob") not in EFFECTS
    with pytest.raises(ValueError, match=expected):
        create_elicitation_resume(pending, answers)
    good = create_elicitation_resume(pending, accepting({"sure": True}))
    result = await run.ainvoke(Command(resume=good), CONFIG)
    assert texts(result) == ["deleted bob"]
    assert ("deleted", "bob") in EFFECTS
