"""The sampling interceptor (modern protocol): answer the sampling requests of a server's
`InputRequiredResult` with the model, and re-call the tool with the answers.

It sits inside the plugin that answers elicitation: a round that also asks something else (a
question for the person) goes outward without the sampling requests, and their answers are
merged back in when that plugin re-calls with the person's (the toolkit's `RoundAnswerer`)."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Coroutine
from typing import Any

from mcp.types import CreateMessageRequest, CreateMessageResult, TextContent, Tool

from mcpbridge import RoundAnswerer, ToolCallError, ToolCallHandler, ToolCallRequest, call_of
from mcpbridge_sampling import ARTIFACT_TYPE
from mcpbridge_sampling.review import DECISION_SCHEMA, SAMPLING_REVIEW, review_details
from mcpbridge_sampling.sampler import Draft, Refused, Sampler

_KEPT = 256
"""Rounds (and drafts) kept waiting for a re-call or a resume; the oldest are dropped."""


class SamplingInterceptor(RoundAnswerer):
    """Answers sampling requests for the servers the settings allow."""

    def __init__(self, sampler: Sampler) -> None:
        fix = "raise `max_requests` in [plugins.sampling] if the server legitimately needs more"
        super().__init__(
            "sampling", self._answer_round, max_requests=sampler.settings.max_requests, fix=fix, kept=_KEPT
        )
        self.sampler = sampler
        self._drafts: OrderedDict[tuple[str | None, ...], Draft] = OrderedDict()
        """Drafts shown to a person, by call and request (the oldest dropped)."""

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        """Only the tools of servers allowed to sample (a model set, the server listed): no other
        tool's call passes through this layer, and none at all while no model is set."""
        return self.sampler.settings.allows(server_name)

    def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Coroutine[Any, Any, Any]:
        """The rounds answered, with the budget of what the server may ask during the call on
        the legacy protocol. No frame of this method."""
        return self.sampler.budgets.during(request.server_name, super().__call__(request, handler))

    async def _answer_round(self, request: ToolCallRequest, asked: dict[str, Any]) -> dict[str, Any]:
        answers = {key: await self._answer(request, key, asked_for) for key, asked_for in asked.items()}
        request.artifact.append({"type": ARTIFACT_TYPE, "answered": sorted(answers)})
        return answers

    async def _answer(self, request: ToolCallRequest, key: str, asked: CreateMessageRequest) -> CreateMessageResult:
        if self.sampler.settings.review == "never":
            return (await self._draft(request, key, asked)).result
        # On every resume LangGraph re-runs the tool and the server asks again (a later pause
        # in the same call, e.g. elicitation, resumes it once more): the draft the person was
        # shown stays here, so this process never drafts anew for that call (another does).
        held = (*call_of(request), key, hashlib.sha256(asked.model_dump_json().encode()).hexdigest())
        draft = self._drafts.get(held) or await self._draft(request, key, asked)
        self._drafts[held] = draft
        self._drafts.move_to_end(held)
        while len(self._drafts) > _KEPT:
            self._drafts.popitem(last=False)
        return _reviewed(request, key, asked, draft)  # pauses the run (raises) the first time

    async def _draft(self, request: ToolCallRequest, key: str, asked: CreateMessageRequest) -> Draft:
        try:
            draft = await self.sampler.draft(request.server_name, asked.params)
        except Refused as refused:
            raise ToolCallError.about(request, str(refused)) from None
        request.notify("sampling", server_name=request.server_name, name=request.name, key=key, **draft.report())
        return draft


def _reviewed(request: ToolCallRequest, key: str, asked: CreateMessageRequest, draft: Draft) -> CreateMessageResult:
    """The draft as the person decided: approved, edited, or rejected (the call fails)."""
    decision = SAMPLING_REVIEW.ask(request, review_details(key, asked.params, draft), schema=DECISION_SCHEMA)
    request.notify(
        "sampling.review", server_name=request.server_name, name=request.name, key=key, decision=decision["type"]
    )
    if decision["type"] == "reject":
        reason = f": {decision['message']}" if decision.get("message") else ""
        raise ToolCallError.about(request, f"asked for sampling, and the reviewer rejected the answer{reason}")
    return draft.result.model_copy(update={"content": TextContent(text=decision["text"])})
