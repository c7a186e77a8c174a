"""Content blocks and error messages a model provider accepts: image resources as `image`
blocks, MCP annotations kept, a placeholder for an error without text, LangChain's
`handle_tool_error` contract with the bridge-wide `handle_tool_errors` switch, and one
`${NAME}` rule for the config file and Python dicts. Against a real server
(`tests.servers.content`, also over stdio)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import ToolException

from mcpbridge import ConfigError, MCPBridge, MCPToolError, ToolCallError, load_settings, testing
from tests.servers.content import PNG, build

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

ROOT = Path(__file__).resolve().parents[2]
SERVER = "tests.servers.content"


@pytest.fixture(params=["inprocess", "stdio", "http"])
def content_server(request: pytest.FixtureRequest) -> Iterator[Any]:
    if request.param == "inprocess":
        yield build()
    elif request.param == "stdio":
        yield testing.stdio_config(SERVER, cwd=str(ROOT))
    else:
        with testing.serving(build()) as url:
            yield {"url": url}


def call(tool: Any, args: dict[str, Any], id: str = "call-1") -> dict[str, Any]:
    return {"type": "tool_call", "name": tool.name, "args": args, "id": id}


def without_ids(blocks: Any) -> list[dict[str, Any]]:
    return [{key: value for key, value in block.items() if key != "id"} for block in blocks]


async def tools_of(bridge: MCPBridge) -> dict[str, Any]:
    return {tool.name: tool for tool in await bridge.list_tools()}


async def test_image_resources_become_image_blocks_and_annotations_stay(content_server: Any) -> None:
    async with MCPBridge({"content": content_server}, plugins=[]) as bridge:
        images = (await tools_of(bridge))["images"]
        message = await images.ainvoke(call(images, {}))
        plain = await images.ainvoke({})
    assert isinstance(message, ToolMessage)
    assert without_ids(message.content) == without_ids(plain)
    link, jpeg, pdf, binary, annotated, text = without_ids(plain)
    assert (link["type"], link["url"], link["mime_type"]) == ("image", "https://cdn.example/cat.png", "image/png")
    assert link["extras"] == {"name": "cat"}
    assert (jpeg["type"], jpeg["base64"], jpeg["mime_type"]) == ("image", PNG, "IMAGE/JPEG")
    assert jpeg["extras"] == {"uri": "memo://jpeg"}
    assert (pdf["type"], pdf["mime_type"]) == ("file", "application/pdf")
    wire = {"audience": ["user"], "priority": 0.25, "lastModified": "2026-11-30T12:00:00Z"}
    assert pdf["extras"] == {"uri": "memo://pdf", "annotations": wire}
    # A link no model integration should open (file:) is described as text, never a `url` block.
    assert binary["type"] == "text"
    assert binary["text"] == "[resource link 'a'; URI 'file:///tmp/a.bin', not opened: not an http(s) or data: URL]"
    assert binary["extras"] == {"annotations": {"priority": 1.0}, "name": "a", "uri": "file:///tmp/a.bin"}
    assert (annotated["text"], annotated["extras"]) == ("for the user", {"annotations": wire})
    assert text == {"type": "text", "text": "plain"}  # no annotations: the lean block, no extras


@pytest.mark.parametrize("tool", ["silent_failure", "blank_failure"])
async def test_an_error_without_text_gets_a_placeholder(content_server: Any, tool: str) -> None:
    placeholder = f"MCP tool '{tool}' on server 'content' failed without a message"
    async with MCPBridge({"content": content_server}, plugins=[]) as bridge:
        failing = (await tools_of(bridge))[tool]
        message = await failing.ainvoke(call(failing, {}))
        with pytest.raises(MCPToolError) as raised:
            await failing.ainvoke({})
    assert message.status == "error"
    assert message.content == placeholder
    assert str(raised.value) == placeholder
    assert raised.value.result.is_error
    if tool == "silent_failure":  # the error keeps its artifact
        assert {"type": "mcp_structured_content", "data": {"code": 7}} in message.artifact


async def test_a_blank_refusal_from_an_interceptor_gets_the_placeholder() -> None:
    async def refuse(request: Any, handler: Any) -> Any:
        raise ToolCallError(" ", server_name=request.server_name, name=request.name)

    async with MCPBridge({"content": build()}, plugins=[], interceptors=[refuse]) as bridge:
        fail = (await tools_of(bridge))["fail"]
        message = await fail.ainvoke(call(fail, {"why": "x"}))
    assert message.status == "error"
    assert message.content == "MCP tool 'fail' on server 'content' failed without a message"


async def test_handle_tool_error_follows_langchains_contract() -> None:
    async with MCPBridge({"content": build()}, plugins=[]) as bridge:
        fail = (await tools_of(bridge))["fail"]
        assert fail.handle_tool_error is True
        message = await fail.ainvoke(call(fail, {"why": "disk full"}))
        assert (message.status, message.content) == ("error", [{"type": "text", "text": "disk full"}])

        fail.handle_tool_error = False
        with pytest.raises(MCPToolError, match="disk full"):
            await fail.ainvoke(call(fail, {"why": "disk full"}))
        fail.handle_tool_error = None
        with pytest.raises(ToolException, match="disk full"):
            await fail.ainvoke(call(fail, {"why": "disk full"}))

        fail.handle_tool_error = "The tool failed; try another way."
        message = await fail.ainvoke(call(fail, {"why": "disk full"}))
        assert (message.status, message.content) == ("error", "The tool failed; try another way.")
        assert message.tool_call_id == "call-1"

        fail.handle_tool_error = lambda error: f"failed: {error}"
        message = await fail.ainvoke(call(fail, {"why": "disk full"}))
        assert (message.status, message.content) == ("error", "failed: disk full")

        fail.handle_tool_error = lambda error: ""  # an empty answer still reaches the model as text
        message = await fail.ainvoke(call(fail, {"why": "disk full"}))
        assert message.content == "MCP tool 'fail' on server 'content' failed without a message"

        with pytest.raises(MCPToolError, match="disk full"):  # plain arguments raise, whatever the flag
            await fail.ainvoke({"why": "disk full"})


async def test_response_format_content_leaves_the_artifact_out() -> None:
    """As on any LangChain tool: "content" gives the content alone, for results and errors."""

    async def note(request: Any, handler: Any) -> Any:
        request.artifact.append({"type": "note"})
        return await handler(request)

    async with MCPBridge({"content": build()}, plugins=[], interceptors=[note]) as bridge:
        tools = await tools_of(bridge)
        images, failing = tools["images"], tools["silent_failure"]
        kept = await images.ainvoke(call(images, {}))
        assert {"type": "note"} in kept.artifact
        images.response_format = failing.response_format = "content"
        message = await images.ainvoke(call(images, {}))
        error = await failing.ainvoke(call(failing, {}))
    assert message.artifact is None
    assert without_ids(message.content) == without_ids(kept.content)
    assert (error.status, error.artifact) == ("error", None)


async def test_bridge_wide_switch_sets_every_tools_default() -> None:
    async with MCPBridge({"content": build()}, plugins=[], handle_tool_errors=False) as bridge:
        assert bridge.settings.handle_tool_errors is False
        tools = await tools_of(bridge)
        assert {tool.handle_tool_error for tool in tools.values()} == {False}
        with pytest.raises(MCPToolError, match="no space"):
            await tools["fail"].ainvoke(call(tools["fail"], {"why": "no space"}))
        tools["fail"].handle_tool_error = True  # one tool opts back in
        message = await tools["fail"].ainvoke(call(tools["fail"], {"why": "no space"}))
        assert message.status == "error"


def test_switch_in_the_config_file(tmp_path: Path) -> None:
    file = tmp_path / "mcpbridge.toml"
    file.write_text("handle_tool_errors = false\n", encoding="utf-8")
    assert load_settings(file).handle_tool_errors is False
    assert MCPBridge.from_config(file, plugins=[]).settings.handle_tool_errors is False
    assert MCPBridge(plugins=[]).settings.handle_tool_errors is True


async def test_an_agent_stops_on_a_tool_error_when_handling_is_off() -> None:
    async with MCPBridge({"content": build()}, plugins=[]) as bridge:
        tools = await tools_of(bridge)
        turns = [testing.tool_call_turn(("fail", {"why": "quota exceeded"}))]
        handled = await testing.make_agent(turns, list(tools.values())).ainvoke(
            {"messages": [("user", "go")]}, {"configurable": {"thread_id": "1"}}
        )
        reply = [m for m in handled["messages"] if isinstance(m, ToolMessage)]
        assert [(m.status, m.content[0]["text"]) for m in reply] == [("error", "quota exceeded")]
        assert isinstance(handled["messages"][-1], AIMessage)

        tools["fail"].handle_tool_error = False
        agent = testing.make_agent(list(turns), list(tools.values()))
        with pytest.raises(MCPToolError, match="quota exceeded"):
            await agent.ainvoke({"messages": [("user", "go")]}, {"configurable": {"thread_id": "2"}})


async def test_tool_node_propagates_with_the_bridge_switch_off() -> None:
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode

    def graph(node: ToolNode) -> Any:
        builder = StateGraph(MessagesState)
        builder.add_node("tools", node)
        builder.add_edge(START, "tools")
        return builder.compile()

    turn = {"messages": [testing.tool_call_turn(("fail", {"why": "locked"}))]}
    async with MCPBridge({"content": build()}, plugins=[], handle_tool_errors=False) as bridge:
        tools = await bridge.list_tools()
        with pytest.raises(MCPToolError, match="locked"):
            await graph(ToolNode(tools)).ainvoke(turn)
        out = await graph(ToolNode(tools, handle_tool_errors=True)).ainvoke(turn)  # ToolNode's own switch
        assert out["messages"][-1].status == "error"
        assert "locked" in out["messages"][-1].content


def test_env_expansion_is_one_rule_for_the_file_and_python(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPB_ROOT", "/srv/files")
    monkeypatch.delenv("MCPB_UNSET", raising=False)
    table = {
        "command": "python",
        "args": ["${MCPB_ROOT}/run.py"],
        "env": {"ROOT": "${MCPB_ROOT}", "LITERAL": "$${MCPB_ROOT}", "FALLBACK": "${MCPB_UNSET:-none}"},
    }
    expected = {"ROOT": "/srv/files", "LITERAL": "${MCPB_ROOT}", "FALLBACK": "none"}
    file = tmp_path / "mcpbridge.toml"
    file.write_text(
        "[servers.files]\n"
        'command = "python"\n'
        'args = ["${MCPB_ROOT}/run.py"]\n'
        'env = { ROOT = "${MCPB_ROOT}", LITERAL = "$${MCPB_ROOT}", FALLBACK = "${MCPB_UNSET:-none}" }\n'
        "[plugins.cache]\n"
        'redis_url = "${MCPB_ROOT}"\n',
        encoding="utf-8",
    )
    from_file = MCPBridge.from_config(file, plugins=[]).settings
    from_python = MCPBridge({"files": table}, plugins=[], plugin_settings={"cache": {"redis_url": "${MCPB_ROOT}"}})
    for settings in (from_file, from_python.settings):
        assert settings.servers["files"].env == expected
        assert settings.servers["files"].args == ["/srv/files/run.py"]
        assert settings.plugins.sections["cache"] == {"redis_url": "/srv/files"}
    # Built settings are not expanded twice: the escape survives keyword overrides.
    again = MCPBridge(settings=from_file.model_copy(), plugins=[], timeout=5).settings
    assert again.servers["files"].env == expected
    with pytest.raises(ConfigError, match=r"files\.env\.X.*MCPB_UNSET"):
        MCPBridge({"files": {"command": "python", "env": {"X": "${MCPB_UNSET}"}}}, plugins=[])


async def test_expanded_env_reaches_a_stdio_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCPB_GREETING", "hello")
    config = testing.stdio_config(SERVER, cwd=str(ROOT), env={"GREETING": "${MCPB_GREETING}", "RAW": "$${X}"})
    async with MCPBridge({"content": config}, plugins=[]) as bridge:
        getenv = (await tools_of(bridge))["getenv"]
        seen = [(await getenv.ainvoke({"name": name}))[0]["text"] for name in ("GREETING", "RAW")]
    assert seen == ["hello", "${X}"]
