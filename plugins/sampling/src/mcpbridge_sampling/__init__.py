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
from typing import TYPE_CHECKING, Any

from mcpbridge import BridgeContext, Plugin, StashKey, hookimpl, lazy_exports
from mcpbridge_sampling.settings import SamplingSettings

if TYPE_CHECKING:
    from mcpbridge import ToolCallInterceptor
    from mcpbridge_sampling.interceptor import SamplingInterceptor
    from mcpbridge_sampling.legacy import sampling_callback as sampling_callback
    from mcpbridge_sampling.review import PAYLOAD_TYPE, SAMPLING_REVIEW, create_sampling_resume
    from mcpbridge_sampling.sampler import Sampler

# The interceptor, the review and the sampler import mcp and LangGraph: on first use only.
__getattr__ = lazy_exports(
    __name__,
    {
        **dict.fromkeys(("PAYLOAD_TYPE", "SAMPLING_REVIEW", "create_sampling_resume"), "mcpbridge_sampling.review"),
        "SamplingInterceptor": "mcpbridge_sampling.interceptor",
        "Sampler": "mcpbridge_sampling.sampler",
        "sampling_callback": "mcpbridge_sampling.legacy",
    },
)

__all__ = [
    "ARTIFACT_TYPE",
    "PAYLOAD_TYPE",
    "SAMPLING_REVIEW",
    "SamplingInterceptor",
    "SamplingSettings",
    "create_sampling_resume",
]

ARTIFACT_TYPE = "mcpbridge_sampling"
"""The `type` of the entry this plugin adds to a call's artifact."""
ADVICE = (
    "set `model` and list the server in `servers` of [plugins.sampling] "
    '(with `review = "always"`, legacy-protocol servers are not offered sampling)'
)

mcpbridge_plugin = Plugin(
    settings=SamplingSettings,
    position=55,
    after=("elicitation",),
    answers=("sampling",),
    advice=ADVICE,
    artifacts=(ARTIFACT_TYPE,),
)
"""Inside elicitation: that plugin asks the person, this one answers the model's part of a round."""

SAMPLER = StashKey["Sampler"]()
"""The bridge's one sampler, shared by the interceptor and the callbacks, so string models
are built once per bridge."""


@hookimpl
def mcpbridge_interceptors(context: BridgeContext) -> list[ToolCallInterceptor]:
    from mcpbridge_sampling.interceptor import SamplingInterceptor

    return [SamplingInterceptor(_sampler(context))]


@hookimpl
def mcpbridge_client_options(server_name: str, context: BridgeContext) -> Mapping[str, Any] | None:
    settings = context.settings_of(SamplingSettings)
    if not settings.allows(server_name):
        return None  # a server that may not ask is never told the client can answer
    from mcpbridge import ModernOnly
    from mcpbridge_sampling.legacy import sampling_callback

    callback = sampling_callback(server_name, _sampler(context))
    # With review on, only modern servers can be answered (the agent pauses between rounds).
    return {"sampling_callback": callback if settings.review == "never" else ModernOnly(callback)}


@hookimpl
def mcpbridge_status(context: BridgeContext) -> str:
    settings = context.settings_of(SamplingSettings)
    if settings.model is None:
        return "answers no sampling request: set `model` in [plugins.sampling]"
    servers = "every server" if settings.all_servers else ", ".join(settings.servers) or "no server"
    return f"answers sampling for {servers} (max_tokens {settings.max_tokens}, review {settings.review})"


def _sampler(context: BridgeContext) -> Sampler:
    if SAMPLER not in context.stash:
        from mcpbridge_sampling.sampler import Sampler

        context.stash[SAMPLER] = Sampler(context.settings_of(SamplingSettings))
    return context.stash[SAMPLER]
