"""Tool calls as an agent makes them: a scripted chat model, an agent with a checkpointer,
the ToolRuntime that ToolNode injects and model-style ToolCall dicts."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool
from langgraph.prebuilt import ToolRuntime
from pydantic import Field

from mcpbridge import MCPTool

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

Turn = AIMessage | Callable[[list[BaseMessage]], AIMessage]
"""One scripted reply: a message, or a function of the messages so far that returns one."""

_ids = itertools.count(1)


class ScriptedChatModel(BaseChatModel):
    """A chat model that replies with `turns` one after another, so an agent runs without an
    LLM: a turn may be a function of the messages so far (to answer with what a tool
    returned). After the last turn it replies "Done.". Its `_llm_type` is "scripted"."""

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


def make_agent(
    model: BaseChatModel | str | Sequence[Turn], tools: Sequence[BaseTool], **options: Any
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """`langchain.agents.create_agent(model, tools, checkpointer=InMemorySaver(), **options)`:
    an agent whose pauses (approval, elicitation) can be resumed on the same thread. `model`
    is a chat model, a model name for `init_chat_model`, or the turns of a
    `ScriptedChatModel`. Needs `langchain` installed."""
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    if not isinstance(model, BaseChatModel | str):
        model = ScriptedChatModel(turns=list(model))
    options.setdefault("checkpointer", InMemorySaver())
    return create_agent(model, list(tools), **options)


def make_runtime(
    context: Any = None, *, tool_call_id: str | None = None, state: Any = None, config: Mapping[str, Any] | None = None
) -> ToolRuntime[Any, Any]:
    """A LangGraph `ToolRuntime` as ToolNode would inject it, with the given context."""
    return ToolRuntime(
        state=state if state is not None else {},
        context=context,
        config=cast(RunnableConfig, dict(config or {})),
        stream_writer=lambda chunk: None,
        tool_call_id=tool_call_id or f"call-{next(_ids)}",
        store=None,
    )


def make_tool_call(
    tool: MCPTool, args: Mapping[str, Any], *, id: str | None = None, runtime: Any = None
) -> dict[str, Any]:
    """A model-style ToolCall for `tool` (pass it to `tool.ainvoke`); `runtime` is injected
    the way ToolNode does it."""
    call_args = dict(args)
    if runtime is not None:
        call_args["runtime"] = runtime
    return {"type": "tool_call", "name": tool.name, "args": call_args, "id": id or f"call-{next(_ids)}"}
