"""mcpbridge-elicitation: a server asks the user mid-call; the agent pauses and resumes.

A server's `InputRequiredResult` becomes a LangGraph interrupt whose value is an
`{"type": "mcp_elicitation", ...}` payload; answer it with
`Command(resume=create_elicitation_resume(interrupt, {key: {"action": "accept", "content": {...}}}))`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from mcpbridge import BridgeContext, Plugin, StashKey, hookimpl, lazy_exports
from mcpbridge_elicitation.settings import ElicitationSettings

if TYPE_CHECKING:
    from mcpbridge import CallBudgets, ToolCallInterceptor
    from mcpbridge_elicitation.answers import ELICITATION, PAYLOAD_TYPE, create_elicitation_resume
    from mcpbridge_elicitation.interceptor import ElicitationInterceptor
    from mcpbridge_elicitation.legacy import elicitation_callback as elicitation_callback

# The interceptor and the answers import mcp and LangGraph: on first use only.
__getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(("ELICITATION", "PAYLOAD_TYPE", "create_elicitation_resume"), "mcpbridge_elicitation.answers"),
        "ElicitationInterceptor": "mcpbridge_elicitation.interceptor",
        "elicitation_callback": "mcpbridge_elicitation.legacy",
    },
)

__all__ = [
    "ARTIFACT_TYPE",
    "ELICITATION",
    "PAYLOAD_TYPE",
    "ElicitationInterceptor",
    "ElicitationSettings",
    "create_elicitation_resume",
]

ARTIFACT_TYPE = "mcpbridge_elicitation"
"""The `type` of the entry this plugin adds to a call's artifact."""
LEGACY_FIX = (
    "a legacy-protocol server asks for user input mid-call, where the agent cannot pause: "
    "set `on_elicitation` in [plugins.elicitation] to answer its questions"
)
"""What a person is told to do when a legacy-protocol server asks and nothing can answer."""

mcpbridge_plugin = Plugin(
    settings=ElicitationSettings, position=50, answers=("elicitation",), advice=LEGACY_FIX, artifacts=(ARTIFACT_TYPE,)
)


BUDGETS = StashKey["CallBudgets"]()
"""The legacy questions each call in flight may still have answered (`max_rounds`), shared by
the interceptor, which keeps each call's budget, and the callbacks, which charge it."""


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[ToolCallInterceptor]:
    from mcpbridge_elicitation.interceptor import ElicitationInterceptor

    return [ElicitationInterceptor(context.settings_of(ElicitationSettings), _budgets(context))]


@hookimpl
def mcpbridge_client_options(server_name: str, context: BridgeContext) -> Mapping[str, Any] | None:
    settings = context.settings_of(ElicitationSettings)
    if server_name in settings.skip_servers:
        return None
    from mcpbridge import ModernOnly
    from mcpbridge_elicitation.legacy import elicitation_callback

    callback = elicitation_callback(server_name, settings.on_elicitation, _budgets(context))
    # Without `on_elicitation`, only modern servers can be answered (through an interrupt):
    # a legacy server must not be told this client does elicitation.
    return {"elicitation_callback": callback if settings.on_elicitation else ModernOnly(callback)}


def _budgets(context: BridgeContext) -> CallBudgets:
    if BUDGETS not in context.stash:
        from mcpbridge import CallBudgets

        context.stash[BUDGETS] = CallBudgets(context.settings_of(ElicitationSettings).max_rounds)
    return context.stash[BUDGETS]
