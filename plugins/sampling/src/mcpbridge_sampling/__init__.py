"""mcpbridge-sampling: servers ask the client's model (`sampling/createMessage`); a
LangChain chat model answers, within limits, optionally after a person's review.

Modern-protocol servers ask through `InputRequiredResult` rounds, answered by
`SamplingInterceptor` (inside the plugin that answers elicitation); legacy servers ask
mid-call, answered by the client's `sampling_callback`. Review pauses the agent with an
`{"type": "mcp_sampling", ...}` interrupt; answer it with
`Command(resume=create_sampling_resume(interrupt, {"type": "approve"}))`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mcpbridge import BridgeContext, ModernOnly, Plugin, StashKey, ToolCallInterceptor, hookimpl
from mcpbridge_sampling.interceptor import ARTIFACT_TYPE, SamplingInterceptor
from mcpbridge_sampling.legacy import sampling_callback
from mcpbridge_sampling.review import PAYLOAD_TYPE, SAMPLING_REVIEW, create_sampling_resume
from mcpbridge_sampling.sampler import Sampler
from mcpbridge_sampling.settings import Settings

__all__ = [
    "ARTIFACT_TYPE",
    "PAYLOAD_TYPE",
    "SAMPLING_REVIEW",
    "SamplingInterceptor",
    "Settings",
    "create_sampling_resume",
]

ADVICE = (
    "set `model` and list the server in `servers` of [plugins.sampling] "
    '(with `review = "always"`, legacy-protocol servers are not offered sampling)'
)

mcpbridge_plugin = Plugin(
    settings=Settings,
    position=55,
    after=("elicitation",),
    answers=("sampling",),
    advice=ADVICE,
    artifacts=(ARTIFACT_TYPE,),
)
"""Inside elicitation: that plugin asks the person, this one answers the model's part of a round."""

SAMPLER = StashKey[Sampler]()
"""The bridge's one sampler, shared by the interceptor and the callbacks, so string models
are built once per bridge."""


@hookimpl
def mcpbridge_interceptors(settings: Settings, config: BridgeContext) -> list[ToolCallInterceptor]:
    return [SamplingInterceptor(_sampler(settings, config))]


@hookimpl
def mcpbridge_client_options(server_name: str, settings: Settings, config: BridgeContext) -> Mapping[str, Any] | None:
    if not settings.allows(server_name):
        return None  # a server that may not ask is never told the client can answer
    callback = sampling_callback(server_name, _sampler(settings, config))
    # With review on, only modern servers can be answered (the agent pauses between rounds).
    return {"sampling_callback": callback if settings.review == "never" else ModernOnly(callback)}


@hookimpl
def mcpbridge_status(settings: Settings) -> str:
    if settings.model is None:
        return "answers no sampling request: set `model` in [plugins.sampling]"
    servers = "every server" if settings.all_servers else ", ".join(settings.servers) or "no server"
    return f"answers sampling for {servers} (max_tokens {settings.max_tokens}, review {settings.review})"


def _sampler(settings: Settings, config: BridgeContext) -> Sampler:
    if SAMPLER not in config.stash:
        config.stash[SAMPLER] = Sampler(settings)
    return config.stash[SAMPLER]
