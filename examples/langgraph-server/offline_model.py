"""A chat model for running the example without an LLM (`AGENT_MODEL=offline`).

The user's message names the tool call: `delete_note {"title": "todo"}` asks for
`delete_note(title="todo")`; once the tool has answered, the model says what it answered.
It keeps no state between runs, unlike `mcpbridge.testing.ScriptedChatModel`, whose turns
are used up one after another: the server runs every thread on this one model object.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from mcpbridge.testing import ScriptedChatModel, tool_call_turn


class OfflineModel(ScriptedChatModel):
    """Asks for the tool call the user wrote, then reports the tool's answer."""

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=reply(messages))])


def reply(messages: list[BaseMessage]) -> AIMessage:
    """The next message: a tool call for a new request, the answer after a tool result."""
    last = messages[-1]
    if isinstance(last, ToolMessage):
        return AIMessage(f"{last.name} answered: {last.text}")
    if isinstance(last, HumanMessage):
        name, _, args = last.text.strip().partition(" ")
        try:
            call = tool_call_turn((name, json.loads(args or "{}")))
        except json.JSONDecodeError:
            return AIMessage('Write a tool name and its JSON arguments, e.g. read_note {"title": "todo"}.')
        call.tool_calls[0]["id"] = f"call-{uuid.uuid4().hex[:12]}"  # unique across runs and threads
        return call
    return AIMessage("Done.")
