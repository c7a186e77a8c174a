"""A scripted chat model: answers with the AIMessages it was given, in order. It stands in
for a real model in the demo and in tests (it is labelled as scripted wherever it runs)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

Turn = AIMessage | Callable[[list[BaseMessage]], AIMessage]


class ScriptedChatModel(BaseChatModel):
    """Replies with `turns` one after another; a turn may be a function of the messages so
    far (to answer with what a tool returned). After the last turn it repeats "Done."."""

    turns: list[Any] = Field(default_factory=list)
    position: int = 0

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        if self.position < len(self.turns):
            turn = self.turns[self.position]
            self.position += 1
            message = turn(messages) if callable(turn) else turn
        else:
            message = AIMessage("Done.")
        return ChatResult(generations=[ChatGeneration(message=message)])


def tool_call_turn(*calls: tuple[str, dict[str, Any]], text: str = "") -> AIMessage:
    """An AIMessage asking for the given `(tool name, args)` calls (ids call-1, call-2, ...)."""
    return AIMessage(
        text,
        tool_calls=[
            {"name": name, "args": args, "id": f"call-{i}", "type": "tool_call"}
            for i, (name, args) in enumerate(calls, 1)
        ],
    )
