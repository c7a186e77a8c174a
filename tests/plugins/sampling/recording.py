"""A chat model that records what it was asked (messages and call options) and answers with
scripted text, token usage and a finish reason, as a provider's model does."""

from __future__ import annotations

from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field


class RecordingChatModel(BaseChatModel):
    """Answers `replies` in turn (the last one again when they run out); `calls` holds the
    messages and options of every call. `fail` makes every call raise it."""

    model_name: str = "recorder-1"
    replies: list[str] = Field(default_factory=lambda: ["a one-line summary"])
    calls: list[tuple[list[BaseMessage], dict[str, Any]]] = Field(default_factory=list)
    fail: str | None = None

    @property
    def _llm_type(self) -> str:
        return "recording"

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.calls.append((messages, {**kwargs, **({"stop": stop} if stop else {})}))
        if self.fail:
            raise RuntimeError(self.fail)
        text = self.replies[min(len(self.calls), len(self.replies)) - 1]
        message = AIMessage(
            text,
            usage_metadata={"input_tokens": 11, "output_tokens": 7, "total_tokens": 18},
            response_metadata={"model_name": self.model_name, "finish_reason": "stop"},
        )
        return ChatResult(generations=[ChatGeneration(message=message)])
