"""mcpbridge-approval: a person approves risky MCP tool calls before they run.

Gated calls pause the agent with a LangGraph `interrupt()` whose value is an
`{"type": "mcp_approval", ...}` payload; answer with
`Command(resume=create_approval_resume(result["__interrupt__"], decision))`.
"""

from __future__ import annotations

from mcpbridge import Plugin, ToolCallInterceptor, hookimpl
from mcpbridge_approval.decisions import APPROVAL, APPROVE, PAYLOAD_TYPE, create_approval_resume
from mcpbridge_approval.interceptor import ARTIFACT_TYPE, ApprovalInterceptor, needs_approval
from mcpbridge_approval.settings import ArgumentCondition, Rule, Settings

__all__ = [
    "APPROVAL",
    "APPROVE",
    "ARTIFACT_TYPE",
    "PAYLOAD_TYPE",
    "ApprovalInterceptor",
    "ArgumentCondition",
    "Rule",
    "Settings",
    "create_approval_resume",
    "needs_approval",
]

mcpbridge_plugin = Plugin(settings=Settings, position=30, artifacts=(ARTIFACT_TYPE,))


@hookimpl
def mcpbridge_interceptors(settings: Settings) -> list[ToolCallInterceptor]:
    return [ApprovalInterceptor(settings)]
