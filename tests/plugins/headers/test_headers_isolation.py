"""Each call carries its own run's header over one persistent HTTP session, and only to the
servers configured for it."""

from __future__ import annotations

import asyncio
import time

import mcpbridge_headers
import pytest

from mcpbridge import MCPBridge
from mcpbridge.testing import make_runtime, make_tool_call
from tests.helpers.headers import RecordingServer

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

CALLS = 200


@pytest.mark.parametrize("mode", ["legacy", "modern"])
async def test_200_concurrent_calls_each_carry_their_own_user_id(
    mode: str, crm: RecordingServer, other: RecordingServer
) -> None:
    bridge = MCPBridge(
        {"crm": {"url": crm.url, "mode": mode}, "other": {"url": other.url, "mode": mode}},
        plugins=[mcpbridge_headers],
        tool_name_prefix=True,
        plugin_settings={"headers": {"servers": {"crm": {"x-user-id": "context.user_id"}}}},
    )
    async with bridge:
        tools = {tool.name: tool for tool in await bridge.list_tools()}
        connects = len(crm.requests)

        async def call(tool: str, user: str) -> str:
            runtime = make_runtime({"user_id": user})
            message = await tools[tool].ainvoke(make_tool_call(tools[tool], {}, runtime=runtime))
            assert message.status == "success", message.content
            return str(message.content[0]["text"])

        users = [f"user-{i}" for i in range(CALLS)]
        started = time.perf_counter()
        answers = await asyncio.gather(*(call("crm_whoami", user) for user in users))
        elapsed = time.perf_counter() - started
        others = await asyncio.gather(*(call("other_whoami", user) for user in users[:20]))

    mismatches = sum(answer != user for answer, user in zip(answers, users, strict=True))
    assert mismatches == 0
    assert crm.tool_calls == CALLS
    # One session: the calls added only their own POSTs, no reconnects.
    assert len(crm.requests) - connects <= CALLS + 1
    # Exactly one request per call carried an id, its own: the transport's own requests
    # (initialize, tools/list, GET stream, DELETE) carried none.
    assert sorted(r["x-user-id"] for r in crm.requests if "x-user-id" in r) == sorted(users)
    assert others == ["anonymous"] * 20
    assert all("x-user-id" not in r for r in other.requests)
    print(f"\n{mode}: {CALLS} concurrent calls with distinct user ids in {elapsed:.2f} s, 0 mismatches")


async def test_found_through_its_entry_point(crm: RecordingServer) -> None:
    bridge = MCPBridge(
        {"crm": {"url": crm.url}},
        plugins=["headers"],
        plugin_settings={"headers": {"servers": {"crm": {"x-user-id": "context.user_id"}}}},
    )
    assert bridge.chain == ("headers", "claiming")
    async with bridge:
        [whoami] = [t for t in await bridge.list_tools() if t.name == "whoami"]
        message = await whoami.ainvoke(make_tool_call(whoami, {}, runtime=make_runtime({"user_id": "ep"})))
    assert message.content[0]["text"] == "ep"
