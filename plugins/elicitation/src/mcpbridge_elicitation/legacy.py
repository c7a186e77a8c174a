"""The mcp `elicitation_callback` for one server: it declares the elicitation capability
(servers that use `Resolve(Elicit)` require it) and answers legacy-protocol questions,
which arrive mid-call and cannot pause a LangGraph agent, with `on_elicitation`: at most
`max_rounds` questions per call in flight, each charged to the call it came with (`CallBudgets`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from mcp.client.session import ClientRequestContext
from mcp.types import INTERNAL_ERROR, INVALID_REQUEST, ElicitRequestParams, ElicitResult, ErrorData

from mcpbridge import CallBudgets, describe
from mcpbridge_elicitation import LEGACY_FIX


def elicitation_callback(
    server: str, on_elicitation: Callable[..., Any] | None, budgets: CallBudgets | None = None
) -> Any:
    """An `ElicitationFnT` for `server` that delegates to `on_elicitation(server, params)`;
    with `budgets`, only within what a call in flight on `server` may still ask."""
    over_budget = (
        "asked for user input outside its tool calls, or more than `max_rounds` times in one call; refused "
        "(raise `max_rounds` in [plugins.elicitation] if the server legitimately needs more)"
    )

    async def answer(context: ClientRequestContext, params: ElicitRequestParams) -> ElicitResult | ErrorData:
        if on_elicitation is None:
            return ErrorData(code=INVALID_REQUEST, message=f"mcpbridge: server {server!r} asked, but {LEGACY_FIX}")
        if budgets is not None and not budgets.charge(server):
            return ErrorData(code=INVALID_REQUEST, message=f"mcpbridge: server {server!r} {over_budget}")
        try:
            reply = on_elicitation(server, params)
            if inspect.isawaitable(reply):
                reply = await reply
            return reply if isinstance(reply, ElicitResult) else ElicitResult.model_validate(reply)
        except Exception as exc:
            return ErrorData(code=INTERNAL_ERROR, message=f"mcpbridge: on_elicitation failed: {describe(exc)}")

    return answer
