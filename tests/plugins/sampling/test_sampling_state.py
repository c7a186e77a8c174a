"""The sampler lives in the bridge's stash: one per bridge, shared by the interceptor and the
legacy callbacks, gone with the bridge (no module-global map keyed by the settings)."""

from __future__ import annotations

import gc
import weakref

import mcpbridge_sampling
from mcpbridge_sampling import SamplingInterceptor

from mcpbridge import MCPBridge
from tests.servers import basic

from .recording import RecordingChatModel


def build() -> MCPBridge:
    settings = {"sampling": {"model": RecordingChatModel(), "servers": ["basic"]}}
    return MCPBridge({"basic": basic.build()}, plugins=[mcpbridge_sampling], plugin_settings=settings)


def test_each_bridge_has_one_sampler_that_dies_with_it() -> None:
    first, second = build(), build()
    samplers = [bridge.context.stash[mcpbridge_sampling.SAMPLER] for bridge in (first, second)]
    assert samplers[0] is not samplers[1]
    for bridge, sampler in zip((first, second), samplers, strict=True):
        [interceptor] = [i for i in bridge.interceptors if isinstance(i, SamplingInterceptor)]
        assert interceptor.sampler is sampler
    kept = weakref.ref(samplers[0])
    del first, samplers, bridge, sampler, interceptor
    gc.collect()
    assert kept() is None
