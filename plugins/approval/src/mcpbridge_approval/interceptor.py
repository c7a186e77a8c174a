"""Which calls need approval, and the interceptor that pauses them for a decision, then
runs, edits or answers them."""

from __future__ import annotations

import functools
import itertools
from typing import Any

from langchain_core.messages import ToolMessage
from mcp.types import CallToolResult, TextContent, Tool

from mcpbridge import ToolCallHandler, ToolCallRequest, definition_fingerprint, selected, thread_id, tool_hints
from mcpbridge_approval import ARTIFACT_TYPE
from mcpbridge_approval.decisions import APPROVAL, FINGERPRINT, decision_schema
from mcpbridge_approval.settings import ApprovalSettings

SHOWN_KEPT = 10_000
"""Pauses whose shown definition a process remembers (the oldest are forgotten first)."""


def needs_approval(settings: ApprovalSettings, request: ToolCallRequest) -> bool:
    """True when a person must approve `request` before it reaches the server: the predicate
    decides first, then the first rule that selects the call, then what the tool declares
    (gated when destructive; a tool that declares neither `readOnlyHint` nor
    `destructiveHint` only with `require_unannotated`).

    Rules select by `(request.server_name, request.name)`, the server's own tool name, so a
    display-name prefix can never bypass them.
    """
    if settings.predicate is not None:
        verdict = settings.predicate(request)
        if verdict is not None:
            return bool(verdict)
    for rule in selected(settings.rules, request.server_name, request.name):
        decided = rule.decide(request.args)
        if decided is not None:
            return decided == "require"
    hints = tool_hints(request.tool)
    return hints.destructive if hints.annotated else settings.require_unannotated


def may_need_approval(settings: ApprovalSettings, server_name: str, tool: Tool) -> bool:
    """False when no call of `tool` can need approval (`needs_approval` is False whatever
    the arguments): no predicate, no rule selects it, and its hints do not gate it."""
    if settings.predicate is not None or next(selected(settings.rules, server_name, tool.name), None):
        return True
    hints = tool_hints(tool)
    return hints.destructive if hints.annotated else settings.require_unannotated


class ApprovalInterceptor:
    """Asks a person before a gated call reaches the server; never calls it unapproved."""

    def __init__(self, settings: ApprovalSettings) -> None:
        self.settings = settings
        self._shown: dict[tuple[Any, ...], str | None] = {}
        """The definition each pause of this process showed (the fingerprint), per thread, tool
        call and pause: at most `SHOWN_KEPT`, the oldest forgotten first."""

    def applies_to(self, server_name: str, tool: Tool) -> bool:
        """Only tools that may be gated carry this interceptor on their chain."""
        return may_need_approval(self.settings, server_name, tool)

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        if not needs_approval(self.settings, request):
            return await handler(request)
        decision = self._decision(request)
        call = {"server_name": request.server_name, "name": request.name}
        kind = decision["type"]
        request.notify("approval.decided", decision=kind, **call)
        note: dict[str, Any] = {"type": ARTIFACT_TYPE, "decision": kind}
        if kind == "approve":
            request.artifact.append(note)
            return await handler(request)
        if kind == "edit":
            edited = dict(decision["edited_action"]["args"])
            request.artifact.append({**note, "original_arguments": dict(request.args), "arguments": edited})
            return self._with_notice(await handler(request.override(args=edited)))
        request.artifact.append({**note, **({"message": decision["message"]} if decision.get("message") else {})})
        return self._answer(request, decision)

    def _decision(self, request: ToolCallRequest) -> dict[str, Any]:
        """The person's decision on `request`, given for the tool's definition as the call has
        it now: a decision given for another definition (the server changed the tool after
        the person saw it) is not used; the person is asked again, about this one."""
        tool = request.tool
        allowed = list(self.settings.allowed_decisions)
        input_schema = dict(tool.input_schema) if tool is not None else {"type": "object"}
        details: dict[str, Any] = {
            "arguments": dict(request.args),
            "annotations": tool.annotations.model_dump(by_alias=True, exclude_none=True)
            if tool and tool.annotations
            else {},
            "description": (tool.description or "") if tool is not None else "",
            "allowed_decisions": allowed,
            "input_schema": input_schema,
            "fingerprint": definition_fingerprint(tool) if tool is not None else None,
        }
        asked = (thread_id(request), request.tool_call_id, request.server_name, request.name)
        for attempt in itertools.count():  # each pauses anew: LangGraph gives resume values to pauses in order
            shown = (*asked, attempt)
            decision = APPROVAL.ask(
                request,
                details,
                schema=decision_schema(allowed, input_schema),
                on_pause=functools.partial(self._paused, request, shown, details[FINGERPRINT]),
            )
            # A decision names the definition it was given for when built by `create_approval_resume`;
            # one written by hand is tied to it by what this process showed (kept, not popped: a
            # later pause in the same call, an elicitation say, replays every decision before it).
            given_for = {decision[FINGERPRINT], self._shown.get(shown, details[FINGERPRINT])}
            if given_for == {details[FINGERPRINT]}:
                break
            details = {**details, "definition_changed": True}
        return decision

    def _paused(self, request: ToolCallRequest, shown: tuple[Any, ...], fingerprint: str | None) -> None:
        self._shown[shown] = fingerprint
        while len(self._shown) > SHOWN_KEPT:
            del self._shown[next(iter(self._shown))]
        request.notify(
            "approval.requested", arguments=dict(request.args), server_name=request.server_name, name=request.name
        )

    def _with_notice(self, result: Any) -> Any:
        if self.settings.edit_notice and isinstance(result, CallToolResult):
            notice = TextContent(type="text", text=self.settings.edit_notice)
            return result.model_copy(update={"content": [notice, *result.content]})
        return result

    @staticmethod
    def _answer(request: ToolCallRequest, decision: dict[str, Any]) -> ToolMessage:
        """The message the model gets instead of a result (the tool did not run)."""
        display = request.display_name or request.name
        if decision["type"] == "respond":
            content = decision["message"]
        elif decision.get("message"):
            content = f"A person rejected the call to `{display}`, so it was not run. Reason: {decision['message']}"
        else:
            content = (
                f"A person rejected the call to `{display}`, so it was not run. "
                "Do not retry it unless the user asks for it."
            )
        status = "success" if decision["type"] == "respond" else "error"
        return ToolMessage(
            content, name=display, tool_call_id=request.tool_call_id or "", status=status, artifact=request.artifact
        )
