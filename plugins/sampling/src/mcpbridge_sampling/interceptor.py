"""The sampling interceptor (modern protocol): answer the sampling requests of a server's
`InputRequiredResult` with the model, and re-call the tool with the answers.

It sits inside the plugin that answers elicitation. A round that also asks something else
(a question for the person) goes outward without the sampling requests; when that plugin
re-calls with its answers, the sampling answers kept for that round's `request_state` are
merged back in."""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Any

from mcp.types import CreateMessageRequest, CreateMessageResult, InputRequiredResult, TextContent

from mcpbridge import ToolCallError, ToolCallHandler, ToolCallRequest
from mcpbridge_sampling.review import DECISION_SCHEMA, SAMPLING_REVIEW, review_details
from mcpbridge_sampling.sampler import Draft, Refused, Sampler

ARTIFACT_TYPE = "mcpbridge_sampling"
_KEPT = 256
"""Rounds (and drafts) kept waiting for a re-call or a resume; the oldest are dropped."""

_Round = tuple[str, str, str, str | None, str | None]


class SamplingInterceptor:
    """Answers sampling requests for the servers the settings allow."""

    def __init__(self, sampler: Sampler) -> None:
        self.sampler = sampler
        self._kept: OrderedDict[_Round, tuple[dict[str, Any], int]] = OrderedDict()
        self._drafts: OrderedDict[tuple[str | None, ...], Draft] = OrderedDict()
        """Drafts shown to a person, by call and request (the oldest dropped)."""

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        current, answered = self._merged(request)
        result = await handler(current)
        while isinstance(result, InputRequiredResult):
            asked = {key: r for key, r in (result.input_requests or {}).items() if isinstance(r, CreateMessageRequest)}
            if not asked:
                break
            answered += len(asked)
            if answered > self.sampler.settings.max_requests:
                raise ToolCallError.about(
                    request,
                    f"made more than {self.sampler.settings.max_requests} sampling requests in one call; stopped "
                    "(raise `max_requests` in [plugins.sampling] if the server legitimately needs more)",
                )
            answers = {key: await self._answer(request, key, asked_for) for key, asked_for in asked.items()}
            request.artifact.append({"type": ARTIFACT_TYPE, "answered": sorted(answers)})
            rest = {key: r for key, r in (result.input_requests or {}).items() if key not in asked}
            if rest:  # the outer plugin asks the person; it re-calls with their answers
                self._keep(request, result.request_state, answers, answered)
                return result.model_copy(update={"input_requests": rest})
            current = current.override(input_responses=answers, request_state=result.request_state)
            result = await handler(current)
        return result

    async def _answer(self, request: ToolCallRequest, key: str, asked: CreateMessageRequest) -> CreateMessageResult:
        if self.sampler.settings.review == "never":
            return (await self._draft(request, key, asked)).result
        # On every resume LangGraph re-runs the tool and the server asks again (a later pause
        # in the same call, e.g. elicitation, resumes it once more): the draft the person was
        # shown stays here, so this process never drafts anew for that call (another does).
        held = (*_round(request, key), hashlib.sha256(asked.model_dump_json().encode()).hexdigest())
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

    def _merged(self, request: ToolCallRequest) -> tuple[ToolCallRequest, int]:
        """`request` with the sampling answers kept for its round, if any, and how many
        requests the call has made so far."""
        kept = self._kept.pop(_round(request, request.request_state), None)
        if kept is None:
            return request, 0
        answers, answered = kept
        return request.override(input_responses={**answers, **(request.input_responses or {})}), answered

    def _keep(self, request: ToolCallRequest, state: str | None, answers: dict[str, Any], answered: int) -> None:
        self._kept[_round(request, state)] = (answers, answered)
        while len(self._kept) > _KEPT:
            self._kept.popitem(last=False)


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


def _round(request: ToolCallRequest, state: str | None) -> _Round:
    """What a kept answer belongs to: the run's thread too, since tool-call ids are the
    model's and some models number them the same way in every thread (`call_0`)."""
    return (_thread(request), request.server_name, request.name, request.tool_call_id, state)


def _thread(request: ToolCallRequest) -> str:
    config = getattr(request.runtime, "config", None) or {}
    return str((config.get("configurable") or {}).get("thread_id", ""))
