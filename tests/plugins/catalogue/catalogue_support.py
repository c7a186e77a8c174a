"""What the catalogue's tests share: an agent with the live catalogue whose every model
request is recorded, and that waits, before a model call, for the change a test announced."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.runtime import Runtime
from mcpbridge_catalogue import LiveCatalogue

from mcpbridge import MCPBridge
from mcpbridge.testing import make_agent
from tests.helpers.waiting import until, until_sync

CONFIG = {"configurable": {"thread_id": "t"}}


class Recorder(AgentMiddleware[AgentState[Any], Any, Any]):
    """Inside the catalogue: keeps each model request's tools; before a model call that
    follows a tool call named in `waits`, waits for that tool's `waits[name]()` (the
    announced change reaching the bridge)."""

    def __init__(self, waits: dict[str, Callable[[], bool]] | None = None) -> None:
        super().__init__()
        self.requests: list[list[BaseTool | dict[str, Any]]] = []
        self.waits = waits or {}

    def _awaited(self, state: AgentState[Any]) -> tuple[Callable[[], bool], str] | None:
        last = state["messages"][-1]
        if isinstance(last, ToolMessage) and (check := self.waits.get(last.name or "")) is not None:
            return check, f"the change announced by {last.name!r} reaching the bridge"
        return None

    async def abefore_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> None:
        if (awaited := self._awaited(state)) is not None:
            await until(*awaited)

    def before_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> None:
        if (awaited := self._awaited(state)) is not None:
            until_sync(*awaited)

    async def awrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]
    ) -> Any:
        self.requests.append(list(request.tools))
        return await handler(request)

    def wrap_model_call(self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], Any]) -> Any:
        self.requests.append(list(request.tools))
        return handler(request)

    def names(self, n: int) -> list[str]:
        """The names of the tools of the `n`th model request."""
        return list(self.by_name(n))

    def by_name(self, n: int) -> dict[str, BaseTool | dict[str, Any]]:
        """The tools of the `n`th model request, as given (objects, or dicts fitted to a provider), by name."""
        return {tool["function"]["name"] if isinstance(tool, dict) else tool.name: tool for tool in self.requests[n]}


def live_agent(bridge: MCPBridge, turns: Sequence[Any], recorder: Recorder, **catalogue: Any) -> Any:
    """`create_agent(model, tools=[], middleware=[LiveCatalogue(bridge, **catalogue), recorder])`."""
    return make_agent(list(turns), [], middleware=[LiveCatalogue(bridge, **catalogue), recorder])


def tool_messages(result: dict[str, Any]) -> dict[str, ToolMessage]:
    """The run's tool messages by tool name (the last of each)."""
    return {m.name or "": m for m in result["messages"] if isinstance(m, ToolMessage)}


def text(message: BaseMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(str(part.get("text", part)) for part in content)  # type: ignore[union-attr]


def answer(messages: list[BaseMessage]) -> AIMessage:
    return AIMessage("Done.")
