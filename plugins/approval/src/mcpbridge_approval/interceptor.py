"""The approval interceptor: pause gated calls for a decision, then run, edit or answer them."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import ToolMessage
from mcp.types import CallToolResult, TextContent

from mcpbridge import ToolCallHandler, ToolCallRequest
from mcpbridge._interrupts import pause
from mcpbridge_approval.decisions import PAYLOAD_TYPE, decision_checker, decision_schema
from mcpbridge_approval.policy import needs_approval
from mcpbridge_approval.settings import Settings

ARTIFACT_TYPE = "mcpbridge_approval"


class ApprovalInterceptor:
    """Asks a person before a gated call reaches the server; never calls it unapproved."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        if not needs_approval(self.settings, request):
            return await handler(request)
        display = request.display_name or request.name
        tool = request.tool
        input_schema = dict(tool.input_schema) if tool is not None else {"type": "object"}
        allowed = list(self.settings.allowed_decisions)
        payload = {
            "type": PAYLOAD_TYPE,
            "server": request.server_name,
            "tool": request.name,
            "name": display,
            "tool_call_id": request.tool_call_id,
            "arguments": dict(request.args),
            "annotations": tool.annotations.model_dump(by_alias=True, exclude_none=True)
            if tool and tool.annotations
            else {},
            "description": (tool.description or "") if tool is not None else "",
            "allowed_decisions": allowed,
        }
        where = {"server": request.server_name, "tool": request.name}
        decision = pause(
            payload,
            purpose=f"approval of tool {request.name!r} on server {request.server_name!r}",
            check=decision_checker(
                server=request.server_name,
                tool=request.name,
                names=(display, request.name),
                allowed=allowed,
                input_schema=input_schema,
            ),
            schema=decision_schema(allowed, input_schema),
            on_pause=lambda: request.notify("approval.requested", arguments=dict(request.args), **where),
        )
        kind = decision["type"]
        request.notify("approval.decided", decision=kind, **where)
        note: dict[str, Any] = {"type": ARTIFACT_TYPE, "decision": kind}
        if kind == "approve":
            request.artifact.append(note)
            return await handler(request)
        if kind == "edit":
            edited = dict(decision["edited_action"]["args"])
            request.artifact.append({**note, "original_arguments": dict(request.args), "arguments": edited})
            return self._with_notice(await handler(request.override(args=edited)))
        request.artifact.append({**note, **({"message": decision["message"]} if decision.get("message") else {})})
        return self._answer(request, display, decision)

    def _with_notice(self, result: Any) -> Any:
        if self.settings.edit_notice and isinstance(result, CallToolResult):
            notice = TextContent(type="text", text=self.settings.edit_notice)
            return result.model_copy(update={"content": [notice, *result.content]})
        return result

    @staticmethod
    def _answer(request: ToolCallRequest, display: str, decision: dict[str, Any]) -> ToolMessage:
        """The message the model gets instead of a result (the tool did not run)."""
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
