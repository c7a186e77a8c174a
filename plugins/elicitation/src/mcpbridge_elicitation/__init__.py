"""mcpbridge-elicitation: a server asks the user mid-call; the agent pauses and resumes.

A server's `InputRequiredResult` becomes a LangGraph interrupt whose value is an
`{"type": "mcp_elicitation", ...}` payload; answer it with
`Command(resume=create_elicitation_resume(interrupt, {key: {"action": "accept", "content": {...}}}))`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpbridge import ModernOnly, Plugin, ToolCallInterceptor, hookimpl
from mcpbridge_elicitation.answers import ELICITATION, PAYLOAD_TYPE, create_elicitation_resume
from mcpbridge_elicitation.interceptor import ARTIFACT_TYPE, ElicitationInterceptor
from mcpbridge_elicitation.legacy import LEGACY_FIX, elicitation_callback
from mcpbridge_elicitation.settings import Settings

__all__ = [
    "ARTIFACT_TYPE",
    "ELICITATION",
    "PAYLOAD_TYPE",
    "ElicitationInterceptor",
    "Settings",
    "create_elicitation_resume",
]

mcpbridge_plugin = Plugin(
    settings=Settings, position=50, answers=("elicitation",), advice=LEGACY_FIX, artifacts=(ARTIFACT_TYPE,)
)


@hookimpl
def mcpbridge_interceptors(settings: Settings) -> list[ToolCallInterceptor]:
    return [ElicitationInterceptor(settings)]


@hookimpl
def mcpbridge_client_options(server_name: str, settings: Settings) -> Mapping[str, Any] | None:
    if server_name in settings.skip_servers:
        return None
    callback = elicitation_callback(server_name, settings.on_elicitation)
    # Without `on_elicitation`, only modern servers can be answered (through an interrupt):
    # a legacy server must not be told this client does elicitation.
    return {"elicitation_callback": callback if settings.on_elicitation else ModernOnly(callback)}
