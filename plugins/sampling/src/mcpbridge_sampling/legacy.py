"""The mcp `sampling_callback` for one server: it declares the sampling capability (servers
that use `Resolve(Sample)` require it) and answers legacy-protocol requests, which arrive
mid-call, with the model. A refusal or a failing model becomes an error answer to the
server, never a broken session. A request counts against `max_requests` of a call in flight
(`budgets`), as a modern round's does."""

from __future__ import annotations

import logging
from typing import Any

from mcp.client.session import ClientRequestContext
from mcp.types import INTERNAL_ERROR, INVALID_REQUEST, CreateMessageRequestParams, CreateMessageResult, ErrorData

from mcpbridge import describe
from mcpbridge_sampling.sampler import Refused, Sampler

logger = logging.getLogger(__name__)

REVIEW_FIX = (
    "a legacy-protocol server asks for sampling mid-call, where the agent cannot pause for a review: "
    'set `review = "never"` in [plugins.sampling], or `mode = "modern"` for a server that speaks it'
)


def sampling_callback(server: str, sampler: Sampler) -> Any:
    """A `SamplingFnT` for `server` that answers with the sampler's model."""
    over_budget = (
        f"asked for sampling outside its tool calls, or more than {sampler.settings.max_requests} times in one "
        "call; refused (raise `max_requests` in [plugins.sampling] if the server legitimately needs more)"
    )

    async def answer(
        context: ClientRequestContext, params: CreateMessageRequestParams
    ) -> CreateMessageResult | ErrorData:
        if sampler.settings.review != "never":
            return ErrorData(code=INVALID_REQUEST, message=f"mcpbridge: server {server!r} asked, but {REVIEW_FIX}")
        if not sampler.budgets.charge(server):
            return ErrorData(code=INVALID_REQUEST, message=f"mcpbridge: server {server!r} {over_budget}")
        try:
            return (await sampler.draft(server, params)).result
        except Refused as refused:
            return ErrorData(code=INVALID_REQUEST, message=f"mcpbridge: server {server!r} {refused}")
        except Exception as exc:  # never let the server's request break the session
            logger.warning("mcpbridge-sampling: answering server %r failed: %s", server, describe(exc))
            return ErrorData(code=INTERNAL_ERROR, message=f"mcpbridge: sampling failed ({type(exc).__qualname__})")

    return answer
