"""`LocalClaims` at scale: a claim costs the same with 16,000 claims held as with 1,000,
expired claims give their memory back, and at most `max_claims` unexpired claims are held:
past the cap a resume is refused (nothing is sent, it can be resumed later), never run
twice by forgetting a live claim."""

from __future__ import annotations

import asyncio
import gc
import inspect
import time
import tracemalloc

import mcpbridge_approval
import pytest

from mcpbridge import ClaimStoreError, LocalClaims, MCPBridge
from mcpbridge.testing import make_agent, tool_call_turn
from tests.servers import counting
from tests.workers.test_claims_inprocess import Providing, paused

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

OWNER = "host:4242:0123456789ab"


def key(i: int, round: str = "r") -> str:
    """Shaped like a real claim key: thread, checkpoint namespace, tool call id, answers."""
    return "\x1f".join(("mcpbridge-resume", f"thread-{round}-{i}", f"tools:{i:032x}", f"call_{i:024d}", "1"))


async def fill(store: LocalClaims, count: int, round: str = "r") -> None:
    for i in range(count):
        assert await store.claim(key(i, round), OWNER) == OWNER


async def per_claim_seconds(store: LocalClaims, round: str) -> float:
    """The best of five batches of 200 new claims, per claim."""
    best = float("inf")
    for batch in range(5):
        start = time.perf_counter()
        for i in range(200):
            await store.claim(key(i, f"{round}-{batch}"), OWNER)
        best = min(best, (time.perf_counter() - start) / 200)
    return best


async def test_a_claim_costs_the_same_with_16000_held_as_with_1000() -> None:
    costs = {}
    for held in (1_000, 16_000):
        store = LocalClaims()
        await fill(store, held)
        costs[held] = await per_claim_seconds(store, f"timed-{held}")
    assert costs[16_000] < 100e-6, f"{costs[16_000] * 1e6:.0f} µs per claim with 16,000 held"
    assert costs[16_000] < 4 * costs[1_000] + 20e-6, {n: f"{c * 1e6:.1f} µs" for n, c in costs.items()}


async def test_unexpired_claims_are_capped_and_the_cap_refuses_only_new_keys() -> None:
    assert LocalClaims().max_claims == 100_000  # as docs/api.md and docs/security.md say
    store = LocalClaims(max_claims=3)
    await fill(store, 3)
    with pytest.raises(ClaimStoreError, match=r"3 unexpired claims.*max_claims.*mcpbridge_claim_store"):
        await store.claim(key(99), OWNER)
    # The claims already held still decide: never forgotten to make room.
    assert await store.claim(key(0), "someone-else") == OWNER
    assert await store.claim(key(1), OWNER) == OWNER
    await store.release(key(2), OWNER)
    assert await store.claim(key(99), "someone-else") == "someone-else"
    with pytest.raises(ValueError, match="max_claims"):
        LocalClaims(max_claims=0)


def held_bytes() -> int:
    """What is still allocated by the claims store and by this file (the claims' keys): not
    what other threads of the test process allocate meanwhile, nor garbage not yet collected."""
    gc.collect()
    mine = [tracemalloc.Filter(True, inspect.getfile(LocalClaims)), tracemalloc.Filter(True, __file__)]
    return sum(stat.size for stat in tracemalloc.take_snapshot().filter_traces(mine).statistics("filename"))


async def test_expired_claims_give_their_room_and_memory_back() -> None:
    store = LocalClaims(ttl=0.05, max_claims=4_000)
    tracemalloc.start()
    try:
        await fill(store, 4_000, "first")
        after_one_round = held_bytes()
        for round in range(9):
            await asyncio.sleep(0.06)  # every claim of the last round has expired
            await fill(store, 4_000, f"later-{round}")  # no refusal: expired claims make room
        after_ten_rounds = held_bytes()
    finally:
        tracemalloc.stop()
    # Kept claims would hold 10x. The store's table may settle one size up (a dict keeps its
    # table as entries go and come, and when it grows depends on how the rounds' claims
    # interleave with their expiry, which a loaded machine changes): up to 2x, not more.
    assert after_ten_rounds < 2.5 * after_one_round, (after_one_round, after_ten_rounds)


async def test_a_full_store_refuses_a_resume_sends_nothing_and_it_can_be_resumed_later() -> None:
    server, calls = counting.build()
    store = LocalClaims(max_claims=1)
    await store.claim(key(0), OWNER)  # another call's live claim fills the store
    plugins = [mcpbridge_approval, Providing(store)]
    async with MCPBridge({"files": {"server": server}}, plugins=plugins) as bridge:
        agent, config, resume = await paused(bridge, "full", "delete_file", {"path": "/f"})
        with pytest.raises(ClaimStoreError, match="could not be claimed, so it was not sent.*1 unexpired claims"):
            await agent.ainvoke(resume, config)
        assert calls["delete_file"] == 0
        bystander = make_agent([tool_call_turn(("echo", {"text": "b"}))], await bridge.list_tools())
        answered = await bystander.ainvoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "b"}})
        assert answered["messages"][-2].content[0]["text"] == "b"  # a call that never paused claims nothing
        await store.release(key(0), OWNER)
        result = await agent.ainvoke(resume, config)
    assert result["messages"][-2].content[0]["text"] == "deleted /f"
    assert calls["delete_file"] == 1
