"""mcpbridge-approval: a person approves risky MCP tool calls before they run.

Gated calls pause the agent with a LangGraph `interrupt()` whose value is an
`{"type": "mcp_approval", ...}` payload; answer with
`Command(resume=create_approval_resume(result["__interrupt__"], decision))`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpbridge import BridgeContext, Plugin, hookimpl, lazy_exports
from mcpbridge_approval.settings import ApprovalSettings, ArgumentCondition, Rule

if TYPE_CHECKING:
    from mcpbridge import ToolCallInterceptor
    from mcpbridge_approval.decisions import APPROVAL, APPROVE, PAYLOAD_TYPE, create_approval_resume
    from mcpbridge_approval.interceptor import ApprovalInterceptor, needs_approval

# The interceptor and the decisions import mcp and LangGraph: on first use only.
__getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(
            ("APPROVAL", "APPROVE", "PAYLOAD_TYPE", "create_approval_resume"), "mcpbridge_approval.decisions"
        ),
        **dict.fromkeys(("ApprovalInterceptor", "needs_approval"), "mcpbridge_approval.interceptor"),
    },
)

__all__ = [
    "APPROVAL",
    "APPROVE",
    "ARTIFACT_TYPE",
    "PAYLOAD_TYPE",
    "ApprovalInterceptor",
    "ArgumentCondition",
    "Rule",
    "ApprovalSettings",
    "create_approval_resume",
    "needs_approval",
]

ARTIFACT_TYPE = "mcpbridge_approval"
"""The `type` of the entry this plugin adds to a call's artifact."""

mcpbridge_plugin = Plugin(settings=ApprovalSettings, position=30, artifacts=(ARTIFACT_TYPE,))


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[ToolCallInterceptor]:
    from mcpbridge_approval.interceptor import ApprovalInterceptor

    return [ApprovalInterceptor(context.settings_of(ApprovalSettings))]
