"""The client's own plugin: `on_elicitation` answers the servers' questions, as the adapters'
session would. It is given to the bridge as an object (next to the installed plugins) and
declares that it answers elicitation, so the bridge takes that capability from any
installed plugin that answers it too (the elicitation plugin's interrupts then never see a
question `on_elicitation` can answer).

A legacy server's question is charged to the tool call of the client it came with (or else
to the `client.session(...)` block it came in, where the user may call the session
directly): at most `MAX_REQUESTS` each, none outside them. Where the transport ties no call
to it (stdio, SSE) it goes to the oldest call, or block, in flight on its server
(`CallBudgets`). A server cannot keep `on_elicitation` (a person, a model) busy without end."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from mcp.client.session import ClientRequestContext
from mcp.types import INTERNAL_ERROR, INVALID_REQUEST, ElicitRequestParams, ElicitResult, ErrorData

from mcpbridge import (
    DIRECT,
    CallBudgets,
    Plugin,
    RoundAnswerer,
    ToolCallHandler,
    ToolCallInterceptor,
    ToolCallRequest,
    describe,
    hookimpl,
)
from mcpbridge_adapters.callbacks import CallbackContext, ElicitationCallback

MAX_REQUESTS = 10
"""Questions one call may ask `on_elicitation` (the mcp SDK's limit) before it fails: in
rounds (modern servers) or mid-call (legacy ones, whose further questions are refused)."""


_OVER = (
    f"asked more than {MAX_REQUESTS} questions in one tool call or `client.session()` block, or outside them; "
    "refused (call the tool through the client's tools, each call has its own)"
)


class Answering:
    """Answers elicitation with `on_elicitation`: the mid-call questions of legacy servers
    (through the mcp `elicitation_callback`) and the rounds of modern ones (a
    `RoundAnswerer` inside the client's `tool_interceptors`, which see the final result)."""

    mcpbridge_name = "adapters"
    mcpbridge_plugin = Plugin(position=100, after=(DIRECT,), answers=("elicitation",))

    def __init__(
        self, on_elicitation: ElicitationCallback, in_flight: Callable[[str], Sequence[ToolCallRequest]]
    ) -> None:
        """`in_flight(server_name)`: the calls running there, to name the tool a legacy
        server asks about when there is just one."""
        self.on_elicitation = on_elicitation
        self.in_flight = in_flight
        self.budgets = CallBudgets(MAX_REQUESTS)
        """The questions each tool call of the client may still have answered."""
        self.blocks = CallBudgets(MAX_REQUESTS)
        """The questions each `client.session(...)` block may still have answered, for the
        requests the user sends on the session directly (`blocks.scope(server)`)."""

    @hookimpl
    def mcpbridge_interceptors(self) -> list[ToolCallInterceptor]:
        return [self._budgeted, RoundAnswerer("elicitation", self._round, max_requests=MAX_REQUESTS)]

    @hookimpl
    def mcpbridge_client_options(self, server_name: str) -> Mapping[str, Any]:
        async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData:
            running = {request.name for request in self.in_flight(server_name)}
            tool_name = running.pop() if len(running) == 1 else None
            if not (self.budgets.charge(server_name) or self.blocks.charge(server_name)):
                return ErrorData(code=INVALID_REQUEST, message=f"mcpbridge: server {server_name!r} {_OVER}")
            try:
                reply = await self.on_elicitation(None, params, CallbackContext(server_name, tool_name))
                return ElicitResult.model_validate(reply)
            except Exception as exc:
                return ErrorData(code=INTERNAL_ERROR, message=f"mcpbridge: on_elicitation failed: {describe(exc)}")

        return {"elicitation_callback": answer}

    def _budgeted(self, request: ToolCallRequest, handler: ToolCallHandler) -> Awaitable[Any]:
        """The call, with the budget of the questions a legacy server may ask during it."""
        return self.budgets.during(request.server_name, handler(request))

    async def _round(self, request: ToolCallRequest, asked: dict[str, Any]) -> dict[str, Any]:
        context = CallbackContext(server_name=request.server_name, tool_name=request.name)
        return {key: await self.on_elicitation(None, question.params, context) for key, question in asked.items()}
