"""A stand-in chat model, so the cards run without an LLM or an API key.

Each line of the user's message is one tool call, `name {json arguments}`: two lines ask for
two calls at once. Once the tools have answered, the model streams a sentence per result,
token by token, as a real model's text streams between the cards.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult

USAGE = 'Write one tool call a line: a tool name and its JSON arguments, e.g. add {"a": 2, "b": 3}.'


class OfflineModel(BaseChatModel):
    """Asks for the calls the user wrote, then says what each tool answered."""

    @property
    def _llm_type(self) -> str:
        return "offline"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> OfflineModel:
        return self

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=reply(messages))])

    def _stream(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        message = reply(messages)
        if message.tool_calls:
            chunks = [
                {"name": c["name"], "args": json.dumps(c["args"]), "id": c["id"], "index": i}
                for i, c in enumerate(message.tool_calls)
            ]
            yield ChatGenerationChunk(message=AIMessageChunk(content=message.text, tool_call_chunks=chunks))
            return
        words = message.text.split(" ")
        for i, word in enumerate(words):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word if i == 0 else f" {word}"))


def reply(messages: list[BaseMessage]) -> AIMessage:
    """Tool calls for a new request; a sentence per result once the tools have answered."""
    results: list[ToolMessage] = []
    for message in reversed(messages):
        if not isinstance(message, ToolMessage):
            break
        results.insert(0, message)
    if results:
        return AIMessage(" ".join(_sentence(m) for m in results))
    last = messages[-1]
    if not isinstance(last, HumanMessage):
        return AIMessage("Done.")
    calls = []
    for line in filter(None, (line.strip() for line in last.text.splitlines())):
        name, _, args = line.partition(" ")
        try:
            calls.append({"name": name, "args": json.loads(args or "{}"), "id": f"call-{uuid.uuid4().hex[:12]}"})
        except json.JSONDecodeError:
            return AIMessage(USAGE)
    text = "Let me ask the tool." if len(calls) == 1 else f"Let me ask {len(calls)} tools at once."
    return AIMessage(text, tool_calls=[{**call, "type": "tool_call"} for call in calls])


def _sentence(message: ToolMessage) -> str:
    verb = "failed" if message.status == "error" else "answered"
    return f"{message.name} {verb}: {message.text}."
