"""The client's own plugin: `on_elicitation` answers the servers' questions, as the adapters'
session would. It is given to the bridge as an object (next to the installed plugins) and
declares that it answers elicitation, so the bridge takes that capability from any
installed plugin that answers it too (the elicitation plugin's interrupts then never see a
question `on_elicitation` can answer)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mcp.client.session import ClientRequestContext
from mcp.types import INTERNAL_ERROR, ElicitRequestParams, ElicitResult, ErrorData

from mcpbridge import Plugin, RoundAnswerer, ToolCallInterceptor, ToolCallRequest, describe, hookimpl
from mcpbridge_adapters.callbacks import CallbackContext, ElicitationCallback

MAX_REQUESTS = 10
"""Questions one call may ask `on_elicitation` (the mcp SDK's limit) before it fails."""


class Answering:
    """Answers elicitation with `on_elicitation`: the mid-call questions of legacy servers
    (through the mcp `elicitation_callback`) and the rounds of modern ones (a
    `RoundAnswerer` inside the client's `tool_interceptors`, which see the final result)."""

    mcpbridge_name = "adapters"
    mcpbridge_plugin = Plugin(position=100, after=("interceptors",), answers=("elicitation",))

    def __init__(
        self, on_elicitation: ElicitationCallback, in_flight: Callable[[str], Sequence[ToolCallRequest]]
    ) -> None:
        """`in_flight(server_name)`: the calls running there, to name the tool a legacy
        server asks about when there is just one."""
        self.on_elicitation = on_elicitation
        self.in_flight = in_flight

    @hookimpl
    def mcpbridge_interceptors(self) -> list[ToolCallInterceptor]:
        return [RoundAnswerer("elicitation", self._round, max_requests=MAX_REQUESTS)]

    @hookimpl
    def mcpbridge_client_options(self, server_name: str) -> Mapping[str, Any]:
        async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData:
            running = {request.name for request in self.in_flight(server_name)}
            tool_name = running.pop() if len(running) == 1 else None
            try:
                reply = await self.on_elicitation(None, params, CallbackContext(server_name, tool_name))
                return ElicitResult.model_validate(reply)
            except Exception as exc:
                return ErrorData(code=INTERNAL_ERROR, message=f"mcpbridge: on_elicitation failed: {describe(exc)}")

        return {"elicitation_callback": answer}

    async def _round(self, request: ToolCallRequest, asked: dict[str, Any]) -> dict[str, Any]:
        context = CallbackContext(server_name=request.server_name, tool_name=request.name)
        return {key: await self.on_elicitation(None, question.params, context) for key, question in asked.items()}
