"""The names the model is given: valid for every provider, unique, the same whichever
servers were up at the first listing; a call always reaches the server its tool object was
built for, with the MCP name."""

from __future__ import annotations

import logging
import re
import textwrap
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.utils.function_calling import convert_to_openai_tool
from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

from mcpbridge import MCPBridge, MCPTool
from mcpbridge.testing import ScriptedChatModel, make_agent, make_tool_call, stdio_config

PROVIDERS_ACCEPT = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


def searching(server: str, tool: str) -> MCPServer:
    """A server whose tool `tool` answers with the server's name and the query."""
    app = MCPServer(server)

    @app.tool(name=tool)
    def search(query: str) -> str:
        return f"{server} searched {query}"

    return app


def odd_names(names: Sequence[str]) -> dict[str, Any]:
    """A server listing tools named `names`, whose calls answer with the name they were sent."""

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name=name, input_schema={"type": "object"}) for name in names])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"called {params.name!r}")])

    return {"server": Server("odd", on_list_tools=list_tools, on_call_tool=call_tool)}


class StrictModel(ScriptedChatModel):
    """A scripted model that refuses tools as providers do: one bad name fails the call."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> StrictModel:
        names = [convert_to_openai_tool(tool)["function"]["name"] for tool in tools]
        bad = [name for name in names if not PROVIDERS_ACCEPT.match(name)]
        if bad or len(set(names)) != len(names):
            raise ValueError(f"invalid or repeated tool names: {bad or names}")
        return self


def warnings_of(caplog: pytest.LogCaptureFixture, *needles: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and all(needle in r.getMessage() for needle in needles)
    ]


def said(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(block["text"] for block in content)  # type: ignore[index]


async def named(bridge: MCPBridge) -> dict[str, MCPTool]:
    return {tool.name: tool for tool in await bridge.list_tools()}


HASHED = r"_[0-9a-f]{8}"


async def test_servers_whose_prefixes_overlap_get_distinct_names_and_one_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`gh` + `ent_search` and `gh_ent` + `search` would both be `gh_ent_search`: the name is
    `gh_ent`'s, `gh`'s tool gets a hashed one, nothing raises, and the warning says so once."""
    caplog.set_level(logging.WARNING)
    servers = {"gh": {"server": searching("gh", "ent_search")}, "gh_ent": {"server": searching("gh_ent", "search")}}
    async with MCPBridge(servers, plugins=[], tool_name_prefix=True, on_server_error="skip") as bridge:
        tools = await named(bridge)
        assert tools["gh_ent_search"].binding.server_name == "gh_ent"
        [ours] = [tool for tool in tools.values() if tool.binding.server_name == "gh"]
        assert re.fullmatch(f"gh{HASHED}_ent_search", ours.name)
        for name, server in (("gh_ent_search", "gh_ent"), (ours.name, "gh")):
            message = await tools[name].ainvoke(make_tool_call(tools[name], {"query": "q"}))
            assert said(message) == f"{server} searched q"
        assert await named(bridge) == tools
    [warning] = warnings_of(caplog, "'gh'", "'gh_ent'")
    assert "Rename one server" in warning
    assert "offered by servers" not in caplog.text


STARTING_LATE = """
    from mcp.server.mcpserver import MCPServer

    app = MCPServer("gh_ent")

    @app.tool()
    def search(query: str) -> str:
        return f"gh_ent searched {query}"

    app.run()
"""


async def test_a_server_down_at_the_first_listing_leaves_its_names_to_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """With `gh_ent` (stdio) not starting at the first listing, `gh`'s tool is not given
    `gh_ent_search`; once `gh_ent` is up, the model's call of `gh_ent_search` reaches
    `gh_ent`, and the tool object built first still reaches `gh`."""
    caplog.set_level(logging.WARNING)
    script = tmp_path / "gh_ent.py"
    servers = {"gh": {"server": searching("gh", "ent_search")}, "gh_ent": stdio_config(script)}
    async with MCPBridge(servers, plugins=[], tool_name_prefix=True, on_server_error="skip") as bridge:
        [early] = await bridge.list_tools()  # gh_ent's command fails: only gh's tool
        assert warnings_of(caplog, "leaving out the tools of server 'gh_ent'")
        assert re.fullmatch(f"gh{HASHED}_ent_search", early.name)
        script.write_text(textwrap.dedent(STARTING_LATE))
        tools = await named(bridge)
        assert set(tools) == {early.name, "gh_ent_search"}
        assert tools[early.name] is early
        model = StrictModel(
            turns=[
                AIMessage("", tool_calls=[{"name": "gh_ent_search", "args": {"query": "q"}, "id": "c1"}]),
                AIMessage("", tool_calls=[{"name": early.name, "args": {"query": "r"}, "id": "c2"}]),
            ]
        )
        agent = make_agent(model, list(tools.values()))
        result = await agent.ainvoke({"messages": [("user", "search")]}, {"configurable": {"thread_id": "t"}})
        answers = [said(m) for m in result["messages"] if isinstance(m, ToolMessage)]
        assert answers == ["gh_ent searched q", "gh searched r"]
        assert said(await bridge.call_tool("gh", "ent_search", {"query": "s"})) == "gh searched s"
        assert said(await bridge.call_tool("gh_ent", "search", {"query": "s"})) == "gh_ent searched s"


ODD = [
    "web search",
    "files.read",
    "a/b",
    "<b>bold</b>",
    "搜索",
    "café",
    "x" * 100,
    "x" * 100 + "y",
    "files_read",
    "",
    "\u200b",
    " ",
]


@pytest.mark.parametrize("prefix", [False, True])
async def test_every_name_a_provider_is_given_is_valid_unique_and_stable(
    prefix: bool, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with MCPBridge({"odd": odd_names(ODD)}, plugins=[], tool_name_prefix=prefix) as bridge:
        tools = await bridge.list_tools()
        assert len(tools) == len(ODD) - 3  # the three that show nothing are left out
        names = [tool.name for tool in tools]
        assert all(PROVIDERS_ACCEPT.match(name) for name in names), names
        assert len(set(names)) == len(names)
        plain = "odd_files_read" if prefix else "files_read"
        assert plain in names  # a valid name is kept as it is
        assert any(re.fullmatch(f"odd{HASHED}_cafe" if prefix else f"cafe{HASHED}", name) for name in names)
        for tool in tools:
            message = await tool.ainvoke(make_tool_call(tool, {}))
            assert said(message) == f"called {tool.binding.tool.name!r}"  # the MCP name is sent
        agent = make_agent(StrictModel(turns=[AIMessage("hi")]), tools)
        await agent.ainvoke({"messages": [("user", "hi")]}, {"configurable": {"thread_id": "t"}})
        await bridge.list_tools(refresh=True)
    async with MCPBridge({"odd": odd_names(ODD)}, plugins=[], tool_name_prefix=prefix) as again:
        assert [tool.name for tool in await again.list_tools()] == names  # deterministic
    renamed = warnings_of(caplog, "tool(s) of server 'odd' under another name")
    assert len(renamed) == 2  # once per bridge, not per listing
    assert "'files.read' as" in renamed[0]
    assert "and 5 more" in renamed[0]
    nameless = warnings_of(caplog, "leaving out a tool of server 'odd'")
    assert len(nameless) == 2 * 3


FULLWIDTH = "\uff45\uff43\uff48\uff4f"


async def test_names_that_only_look_alike_are_reported(caplog: pytest.LogCaptureFixture) -> None:
    """A server offering `echo` spelled with a Cyrillic e, with a zero-width space or in
    fullwidth letters, beside another server's `echo`: all are kept under distinct valid
    names, and each pair is reported once."""
    caplog.set_level(logging.WARNING)
    servers = {"trusted": odd_names(["echo"]), "other": odd_names(["\u0435cho", "echo\u200b", FULLWIDTH])}
    async with MCPBridge(servers, plugins=[]) as bridge:
        tools = await named(bridge)
        assert tools["echo"].binding.server_name == "trusted"
        assert len(tools) == 4
        await bridge.list_tools()
    for spoof in ("'\u0435cho'", "'echo\\u200b'", f"'{FULLWIDTH}'"):
        assert len(warnings_of(caplog, "look-alike", "'echo' of server 'trusted'", spoof)) == 1, caplog.text


async def test_a_server_renaming_its_tools_at_every_listing_does_not_grow_the_names_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import mcpbridge._facade.tool_names as tool_names

    monkeypatch.setattr(tool_names, "_REMEMBERED", 20)
    listed = iter(range(1_000))

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        n = next(listed)
        return types.ListToolsResult(
            tools=[types.Tool(name=f"t{n}_{i}", input_schema={"type": "object"}) for i in range(5)]
        )

    servers = {"renaming": {"server": Server("renaming", on_list_tools=list_tools)}, "steady": odd_names(["echo"])}
    async with MCPBridge(servers, plugins=[]) as bridge:
        for _ in range(30):
            tools = await bridge.list_tools(refresh=True)
            assert len(tools) == 6
        remembered = bridge._names._first
        assert len(remembered) <= 20 + 5
        assert ("echo", "steady") in remembered  # a name still offered keeps its first sight


async def test_a_server_name_invalid_in_tool_names_is_reported_and_its_tools_stay_apart(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """`my server` and `my_server` both read `my_server_…`: the invalid one is reported when
    the bridge is built, its tools get hashed names, and each call reaches its own server."""
    caplog.set_level(logging.WARNING)
    servers = {
        "my server": {"server": searching("my server", "search")},
        "my_server": {"server": searching("mine", "search")},
    }
    async with MCPBridge(servers, plugins=[], tool_name_prefix=True) as bridge:
        [warning] = warnings_of(caplog, "server name 'my server' is not valid")
        assert "rename the server to 'my_server'" in warning
        tools = await named(bridge)
        assert tools["my_server_search"].binding.server_name == "my_server"
        [spaced] = [tool for tool in tools.values() if tool.binding.server_name == "my server"]
        assert re.fullmatch(f"my_server{HASHED}_search", spaced.name)
        for tool, answer in ((spaced, "my server searched q"), (tools["my_server_search"], "mine searched q")):
            assert said(await tool.ainvoke(make_tool_call(tool, {"query": "q"}))) == answer
