"""In a LangGraph agent with a checkpointer: a person reviews the model's draft (approve,
edit, reject) through an interrupt, and a round that asks the model and the person at once
is answered by the sampling and elicitation plugins together."""

from __future__ import annotations

from typing import Any

import mcpbridge_elicitation
import mcpbridge_sampling
import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from mcpbridge_elicitation import create_elicitation_resume
from mcpbridge_sampling import create_sampling_resume

from mcpbridge import MCPBridge
from mcpbridge.testing import make_agent, tool_call_turn
from tests.servers import sampling_server

from .recording import RecordingChatModel

CONFIG = {"configurable": {"thread_id": "t1"}}


def bridge(model: RecordingChatModel, plugins: list[object], mode: str = "modern", **settings: Any) -> MCPBridge:
    return MCPBridge(
        {"notes": {"server": sampling_server.build(), "mode": mode}},
        plugins=plugins,
        plugin_settings={"sampling": {"model": model, "all_servers": True, **settings}},
    )


def tool_message(result: dict[str, Any]) -> ToolMessage:
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    return message


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(block["text"] for block in content)


@pytest.mark.parametrize(
    ("decision", "expected"),
    [
        ({"type": "approve"}, "summary by recorder-1: draft one"),
        ({"type": "edit", "text": "a better summary"}, "summary by recorder-1: a better summary"),
    ],
)
async def test_review_approves_or_edits_the_draft(decision: dict[str, Any], expected: str) -> None:
    model = RecordingChatModel(replies=["draft one", "draft two"])
    async with bridge(model, [mcpbridge_sampling], review="always") as mcp:
        run = make_agent([tool_call_turn(("summarize", {"text": "a long text"}))], await mcp.list_tools())
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
        [pending] = result["__interrupt__"]
        shown = pending.value
        assert shown["type"] == mcpbridge_sampling.PAYLOAD_TYPE
        assert (shown["server_name"], shown["name"]) == ("notes", "summarize")
        assert shown["request"]["messages"] == [{"role": "user", "text": "Summarize: a long text"}]
        assert shown["draft"]["text"] == "draft one"
        assert shown["draft"]["max_tokens"] == 1024
        result = await run.ainvoke(Command(resume=create_sampling_resume(pending, decision)), CONFIG)
    assert text(tool_message(result)) == expected
    # The tool re-runs from the top on resume and the server asks again: the draft shown
    # waited in this process, so the model was not asked twice.
    assert len(model.calls) == 1


async def test_a_plain_approve_sends_the_draft_that_was_shown() -> None:
    model = RecordingChatModel(replies=["draft one", "draft two"])
    async with bridge(model, [mcpbridge_sampling], review="always") as mcp:
        run = make_agent([tool_call_turn(("summarize", {"text": "t"}))], await mcp.list_tools())
        assert (await run.ainvoke({"messages": [("user", "go")]}, CONFIG))["__interrupt__"]
        result = await run.ainvoke(Command(resume={"type": "approve"}), CONFIG)
    assert text(tool_message(result)) == "summary by recorder-1: draft one"


async def test_resumed_by_another_worker_the_approved_text_is_sent() -> None:
    """Another process (here: another bridge on the same checkpointer) drafts anew on resume;
    `create_sampling_resume` pinned the text the person approved."""
    saver = InMemorySaver()
    first = RecordingChatModel(replies=["draft one"])
    async with bridge(first, [mcpbridge_sampling], review="always") as mcp:
        run = make_agent([tool_call_turn(("summarize", {"text": "t"}))], await mcp.list_tools(), checkpointer=saver)
        [pending] = (await run.ainvoke({"messages": [("user", "go")]}, CONFIG))["__interrupt__"]
    second = RecordingChatModel(replies=["draft two"])
    async with bridge(second, [mcpbridge_sampling], review="always") as mcp:
        run = make_agent([], await mcp.list_tools(), checkpointer=saver)
        result = await run.ainvoke(Command(resume=create_sampling_resume(pending)), CONFIG)
    assert text(tool_message(result)) == "summary by recorder-1: draft one"
    assert len(second.calls) == 1


async def test_review_rejects_the_draft() -> None:
    model = RecordingChatModel(replies=["draft one"])
    async with bridge(model, [mcpbridge_sampling], review="always") as mcp:
        run = make_agent([tool_call_turn(("summarize", {"text": "t"}))], await mcp.list_tools())
        [pending] = (await run.ainvoke({"messages": [("user", "go")]}, CONFIG))["__interrupt__"]
        resume = create_sampling_resume(pending, {"type": "reject", "message": "not about this"})
        result = await run.ainvoke(Command(resume=resume), CONFIG)
    message = tool_message(result)
    assert message.status == "error"
    assert "the reviewer rejected the answer: not about this" in text(message)


def test_a_bad_decision_is_refused_when_the_resume_is_built() -> None:
    payload = {"type": "mcp_sampling", "name": "summarize", "server_name": "notes", "draft": {"text": "d"}}
    with pytest.raises(ValueError, match="'edit' decision .* needs `text`"):
        mcpbridge_sampling.SAMPLING_REVIEW.check(payload, {"type": "edit"})
    with pytest.raises(ValueError, match="one of \\['approve', 'edit', 'reject'\\]"):
        mcpbridge_sampling.SAMPLING_REVIEW.check(payload, {"type": "respond"})


async def test_with_review_a_legacy_server_is_not_offered_sampling() -> None:
    model = RecordingChatModel()
    async with bridge(model, [mcpbridge_sampling], mode="legacy", review="always") as mcp:
        message = await mcp.call_tool("notes", "summarize", {"text": "t"})
    assert message.status == "error"
    assert "did not declare the sampling capability" in text(message)
    assert 'with `review = "always"`, legacy-protocol servers are not offered sampling' in text(message)
    assert model.calls == []


async def test_one_round_asks_the_model_and_the_person() -> None:
    model = RecordingChatModel(replies=["short"])
    async with bridge(model, [mcpbridge_elicitation, mcpbridge_sampling]) as mcp:
        run = make_agent([tool_call_turn(("summarize_and_confirm", {"text": "t"}))], await mcp.list_tools())
        [pending] = (await run.ainvoke({"messages": [("user", "go")]}, CONFIG))["__interrupt__"]
        # The person is asked only their part; the model's answer waits for the re-call.
        assert sorted(pending.value["requests"]) == ["confirm"]
        resume = create_elicitation_resume(pending, {"confirm": {"action": "accept", "content": {"ok": True}}})
        result = await run.ainvoke(Command(resume=resume), CONFIG)
    assert text(tool_message(result)) == "published: short"


async def test_each_thread_reviews_its_own_draft_though_tool_call_ids_repeat() -> None:
    """Two users' runs on one bridge, the same request, and tool-call ids numbered alike in
    both threads (`call-1`, as some models do): each person reviews a draft made for their
    own run, never the other thread's."""
    model = RecordingChatModel(replies=["draft for a", "draft for b"])
    async with bridge(model, [mcpbridge_elicitation, mcpbridge_sampling], review="always") as mcp:
        tools = await mcp.list_tools()
        shown = {}
        for user in "ab":
            run = make_agent([tool_call_turn(("summarize_and_confirm", {"text": "t"}))], tools)
            config = {"configurable": {"thread_id": f"thread-{user}"}}
            [review] = (await run.ainvoke({"messages": [("user", "go")]}, config))["__interrupt__"]
            assert review.value["tool_call_id"] == "call-1"
            shown[user] = review.value["draft"]["text"]
    assert shown == {"a": "draft for a", "b": "draft for b"}
    assert len(model.calls) == 2


async def test_without_the_sampling_plugin_the_round_fails_naming_sampling() -> None:
    async with bridge(RecordingChatModel(), [mcpbridge_elicitation]) as mcp:
        run = make_agent([tool_call_turn(("summarize_and_confirm", {"text": "t"}))], await mcp.list_tools())
        result = await run.ainvoke({"messages": [("user", "go")]}, CONFIG)
    assert "__interrupt__" not in result
    message = tool_message(result)
    assert message.status == "error"
    assert "asked for sampling (['summary']), which no enabled plugin answered" in text(message)
    assert "`Plugin(answers=('sampling',))`" in text(message)


async def test_a_reviewed_draft_survives_a_later_pause_in_the_same_call() -> None:
    """Review, then the person's own question: two pauses, two resumes, each re-running the
    tool; the server gets the draft that was reviewed, drafted once."""
    model = RecordingChatModel(replies=["draft one", "draft two"])
    async with bridge(model, [mcpbridge_elicitation, mcpbridge_sampling], review="always") as mcp:
        run = make_agent([tool_call_turn(("summarize_and_confirm", {"text": "t"}))], await mcp.list_tools())
        [review] = (await run.ainvoke({"messages": [("user", "go")]}, CONFIG))["__interrupt__"]
        assert review.value["type"] == "mcp_sampling"
        [question] = (await run.ainvoke(Command(resume={"type": "approve"}), CONFIG))["__interrupt__"]
        assert question.value["type"] == "mcp_elicitation"
        resume = create_elicitation_resume(question, {"confirm": {"action": "accept", "content": {"ok": True}}})
        result = await run.ainvoke(Command(resume=resume), CONFIG)
    assert text(tool_message(result)) == "published: draft one"
    assert len(model.calls) == 1
