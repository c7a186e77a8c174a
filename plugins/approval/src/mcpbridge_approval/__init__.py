"""mcpbridge-approval: a person approves risky MCP tool calls before they run.

Gated calls pause the agent with a LangGraph `interrupt()` whose value is an
`{"type": "mcp_approval", ...}` payload; answer with
`Command(resume=create_approval_resume(result["__interrupt__"], decision))`.
"""

from __future__ import annotations

from mcpbridge import PluginConfig, ToolCallInterceptor, hookimpl
from mcpbridge_approval.decisions import APPROVE, PAYLOAD_TYPE, create_approval_resume
from mcpbridge_approval.interceptor import ARTIFACT_TYPE, ApprovalInterceptor
from mcpbridge_approval.policy import declares_destructive, needs_approval
from mcpbridge_approval.settings import ArgumentCondition, Rule, Settings

NAME = "approval"

__all__ = [
    "APPROVE",
    "ARTIFACT_TYPE",
    "PAYLOAD_TYPE",
    "ApprovalInterceptor",
    "ArgumentCondition",
    "Rule",
    "Settings",
    "create_approval_resume",
    "declares_destructive",
    "needs_approval",
]


@hookimpl
def mcpbridge_configure(config: PluginConfig) -> None:
    config.parse(NAME, Settings)


@hookimpl
def mcpbridge_interceptors(config: PluginConfig) -> list[ToolCallInterceptor]:
    settings = config.parse(NAME, Settings)
    return [ApprovalInterceptor(settings)]
