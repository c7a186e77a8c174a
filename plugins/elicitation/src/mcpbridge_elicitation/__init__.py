"""mcpbridge-elicitation: a server asks the user mid-call; the agent pauses and resumes.

A server's `InputRequiredResult` becomes a LangGraph interrupt whose value is an
`{"type": "mcp_elicitation", ...}` payload; answer it with
`Command(resume=create_elicitation_resume(interrupt, {key: {"action": "accept", "content": {...}}}))`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpbridge import ConfigError, ModernOnly, PluginConfig, ServerConfig, ToolCallInterceptor, hookimpl
from mcpbridge_elicitation.answers import PAYLOAD_TYPE, create_elicitation_resume
from mcpbridge_elicitation.interceptor import ARTIFACT_TYPE, ElicitationInterceptor
from mcpbridge_elicitation.legacy import elicitation_callback
from mcpbridge_elicitation.settings import ServerSettings, Settings

NAME = "elicitation"

__all__ = [
    "ARTIFACT_TYPE",
    "PAYLOAD_TYPE",
    "ElicitationInterceptor",
    "ServerSettings",
    "Settings",
    "create_elicitation_resume",
]


@hookimpl
def mcpbridge_configure(config: PluginConfig) -> None:
    settings = config.parse(NAME, Settings)
    unknown = sorted(set(settings.servers) - set(config.settings.servers))
    if unknown:
        raise ConfigError(
            f"[plugins.elicitation.servers] names unknown server(s) {unknown}; "
            f"configured servers: {sorted(config.settings.servers)}"
        )


@hookimpl
def mcpbridge_interceptors(config: PluginConfig) -> list[ToolCallInterceptor]:
    return [ElicitationInterceptor(config.parse(NAME, Settings))]


@hookimpl
def mcpbridge_client_options(server_name: str, server: ServerConfig, config: PluginConfig) -> Mapping[str, Any] | None:
    settings = config.parse(NAME, Settings)
    if not settings.enabled_for(server_name):
        return None
    callback = elicitation_callback(server_name, settings.on_elicitation)
    # Without `on_elicitation`, only modern servers can be answered (through an interrupt):
    # a legacy server must not be told this client does elicitation.
    return {"elicitation_callback": callback if settings.on_elicitation else ModernOnly(callback)}
