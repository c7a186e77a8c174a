"""A tool object is bound to the definition it was built from: once a listing no longer
offers that definition (the server changed it, or lists it no more), a call through the
object is refused before it is sent; and the bridge keeps only the tools of each server's
latest listing, however often a server renames its tools."""

from __future__ import annotations

import contextlib
import gc
import weakref

import pytest
from mcp.types import Tool

from mcpbridge import MCPBridge, ToolCallError, definition_fingerprint
from mcpbridge.testing import SessionProbe, serving
from tests.helpers.relabel import call, text, tools_of
from tests.helpers.waiting import until
from tests.security import definition_servers
from tests.security.definition_servers import ERASE, Renaming


async def test_a_tool_object_built_before_a_change_is_refused_unsent() -> None:
    server, ran = definition_servers.changing()
    async with MCPBridge({"s": {"server": server}}, plugins=[]) as bridge:
        before = await tools_of(bridge)
        assert (await before["change"].ainvoke(call("change", {}))).status == "success"
        after = await tools_of(bridge, refresh=True)
        assert after["remove"] is not before["remove"]

        refused = await before["remove"].ainvoke(call("remove", {"path": "/a"}))
        assert refused.status == "error"
        assert "tool 'remove' on server 's' is not the tool this object was built from" in text(refused)
        assert "the server changed its definition since" in text(refused)
        assert "list the tools again" in text(refused)
        with pytest.raises(ToolCallError, match="not the tool this object was built from"):
            await before["remove"].ainvoke({"path": "/a"})
        assert not ran  # the erasing tool never ran through the object built for the trashing one

        done = await after["remove"].ainvoke(call("remove", {"path": "/a"}))
        assert done.status == "success"
        assert ran == {ERASE: 1}
        # An unchanged tool keeps its object, which still works.
        assert after["change"] is before["change"]


@pytest.mark.parametrize("transport", ["inprocess", "http", "legacy http"])
async def test_a_change_the_server_announced_is_listed_before_a_call_is_sent(transport: str) -> None:
    server, ran = definition_servers.changing()
    with serving(server) if "http" in transport else contextlib.nullcontext() as url:
        mode = "legacy" if "legacy" in transport else "auto"
        config = {"server": server} if url is None else {"url": url, "mode": mode}
        async with MCPBridge({"s": config}, plugins=[]) as bridge:
            before = await tools_of(bridge)
            await before["change"].ainvoke(call("change", {"announce": True}))
            await until(lambda: SessionProbe(bridge, "s").tools_changed, "the change announced")
            # Nobody listed the tools again: the call itself does, and is refused unsent.
            refused = await before["remove"].ainvoke(call("remove", {"path": "/a"}))
            assert refused.status == "error"
            assert "the server changed its definition since" in text(refused)
            assert not ran
            assert (await tools_of(bridge))["remove"].description == ERASE


async def test_only_the_tools_of_the_latest_listing_are_kept() -> None:
    server = Renaming(500)
    async with MCPBridge({"s": {"server": server}}, plugins=[]) as bridge:
        first = await bridge.list_tools()
        held = first[0]
        built = [weakref.ref(tool) for tool in first[1:]]
        del first
        for _ in range(9):
            built.extend(weakref.ref(tool) for tool in await bridge.list_tools(refresh=True))
        gc.collect()
        kept = [tool for tool in (ref() for ref in built) if tool is not None]
        assert len(kept) == 500  # the latest listing's, not the 5,000 built in ten listings
        assert {tool.name for tool in kept} == {f"t{index}_10" for index in range(500)}

        refused = await held.ainvoke(call(held.name, {"text": "x"}))
        assert refused.status == "error"
        assert "tool 't0_1' on server 's' is not the tool this object was built from" in text(refused)
        assert "the server no longer lists it" in text(refused)


def test_a_fingerprint_tells_definitions_apart_and_is_stable() -> None:
    trash = Tool(name="remove", description=definition_servers.TRASH, input_schema={"type": "object"})
    erase = trash.model_copy(update={"description": ERASE})
    assert definition_fingerprint(trash) == definition_fingerprint(Tool.model_validate(trash.model_dump()))
    assert definition_fingerprint(trash) != definition_fingerprint(erase)
    assert definition_fingerprint(trash).startswith("sha256:")
    lone = trash.model_copy(update={"description": "\ud800"})  # a lone surrogate hashes too
    assert definition_fingerprint(lone) != definition_fingerprint(trash)
