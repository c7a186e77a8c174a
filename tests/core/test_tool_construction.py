"""A listing builds each tool without re-validating its fields (`MCPTool.create`), relists
unchanged definitions without comparing them, resolves names in one pass and shares what
tools alike share; a call's ToolMessage is built the same way. None of that may show: a
listed tool is the tool LangChain's constructor builds from the same fields, a result's
message the message it builds, and the work counted here is per tool, not per pair of tools."""

from __future__ import annotations

from typing import Any

import mcp.types as types
import pytest
from langchain_core.load import dumpd
from langchain_core.messages import ToolMessage
from mcp.server.lowlevel import Server
from pydantic import Field

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest, hookimpl
from mcpbridge._facade.tool_names import ToolNames
from mcpbridge._tools.tool import MCPTool, fields
from mcpbridge.testing import make_tool_call

ICON = types.Icon(src="https://example.com/i.png", mime_type="image/png", sizes=["48x48"])
DEFINITIONS = [
    types.Tool(name="plain", input_schema={"type": "object", "properties": {"x": {"type": "string"}}}),
    types.Tool(
        name="rich",
        title="Rich tool",
        description="Does it all.",
        input_schema={
            "type": "object",
            "properties": {"n": {"type": "integer", "default": 3}, "far": {"$ref": "#/$defs/nowhere"}},
            "required": ["n"],
        },
        output_schema={"type": "object", "properties": {"y": {"type": "string"}}},
        icons=[ICON],
        annotations=types.ToolAnnotations(title="Annotated title", read_only_hint=True),
        _meta={"vendor/key": [1, 2]},
    ),
    types.Tool(
        name="titled",
        annotations=types.ToolAnnotations(title="Only here"),
        input_schema={"type": "object", "properties": {}},
    ),
]


def serving(definitions: list[types.Tool]) -> dict[str, Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=definitions)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = f"{params.name}:{sorted((params.arguments or {}).items())}"
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content={"y": text})

    return {"server": Server("defs", on_list_tools=list_tools, on_call_tool=call_tool)}


def constructed(tool: MCPTool, handle_tool_error: bool) -> MCPTool:
    """The same tool built by pydantic's constructor, as `create` built it before."""
    slow = MCPTool(**fields(tool.binding, name=tool.name, handle_tool_error=handle_tool_error))
    slow._binding = tool.binding
    return slow


@pytest.mark.parametrize("handle_tool_errors", [True, False])
async def test_a_listed_tool_is_the_tool_its_constructor_builds(handle_tool_errors: bool) -> None:
    servers = {"s": serving(DEFINITIONS)}
    async with MCPBridge(servers, plugins=[], handle_tool_errors=handle_tool_errors) as bridge:
        tools = await bridge.list_tools()
        assert [tool.name for tool in tools] == ["plain", "rich", "titled"]
        for tool in tools:
            slow = constructed(tool, handle_tool_errors)
            assert list(tool.__dict__.items()) == list(slow.__dict__.items())
            assert tool.__pydantic_fields_set__ == slow.__pydantic_fields_set__
            assert tool.__pydantic_private__ == slow.__pydantic_private__
            assert tool.__pydantic_extra__ == slow.__pydantic_extra__
            assert tool == slow
            assert tool.model_dump() == slow.model_dump()
            assert tool.model_dump(exclude_unset=True) == slow.model_dump(exclude_unset=True)
            assert tool.args == slow.args
            assert tool.tool_call_schema == slow.tool_call_schema
            assert tool.binding is slow.binding
            assert tool.chain == slow.chain
        rich = tools[1]
        assert rich.metadata is not None
        assert rich.metadata["title"] == "Rich tool"
        assert tools[2].metadata is not None
        assert tools[2].metadata["title"] == "Only here"
        assert "$ref" not in rich.args["far"]  # LangChain cannot inline it: the model is not given it
        message = await rich.ainvoke(make_tool_call(rich, {}))
        assert message.content[0]["text"] == "rich:[('n', 3)]"


async def test_a_listed_tool_changes_as_a_constructed_one_does() -> None:
    """Setting a field records it, and what LangChain derives from it follows, as for a
    tool pydantic's constructor built."""
    async with MCPBridge({"s": serving(DEFINITIONS)}, plugins=[]) as bridge:
        for tool in await bridge.list_tools():
            slow = constructed(tool, True)
            for built in (tool, slow):
                assert built.tool_call_schema
                built.description = "changed"
                built.tags = ["t"]
            assert tool.tool_call_schema == slow.tool_call_schema
            assert isinstance(tool.tool_call_schema, dict)
            assert tool.tool_call_schema["description"] == "changed"
            assert tool.__pydantic_fields_set__ == slow.__pydantic_fields_set__
            assert tool.__pydantic_private__ == slow.__pydantic_private__
            assert tool == slow


CONTENT: list[types.ContentBlock] = [
    types.TextContent(type="text", text="one", annotations=types.Annotations(priority=0.5)),
    types.ImageContent(type="image", data="aGk=", mime_type="image/png"),
    types.ResourceLink(type="resource_link", name="r", uri="https://example.com/r", mime_type="text/plain"),
]


def answering(structured: bool, meta: bool) -> dict[str, Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[types.Tool(name="t", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(
            content=CONTENT, structured_content={"k": [1]} if structured else None, _meta={"m": 1} if meta else None
        )

    return {"server": Server("answers", on_list_tools=list_tools, on_call_tool=call_tool)}


@pytest.mark.parametrize(("structured", "meta", "response_format"), [(False, False, "content"), (True, True, None)])
async def test_a_results_message_is_the_message_its_constructor_builds(
    structured: bool, meta: bool, response_format: str | None
) -> None:
    async with MCPBridge({"s": answering(structured, meta)}, plugins=[]) as bridge:
        (tool,) = await bridge.list_tools()
        if response_format:
            tool.response_format = "content"
        message = await tool.ainvoke(make_tool_call(tool, {}, id="call-1"))
        slow = ToolMessage(message.content, artifact=message.artifact, tool_call_id="call-1", name=tool.name)
        assert list(message.__dict__.items()) == list(slow.__dict__.items())
        assert message.__pydantic_fields_set__ == slow.__pydantic_fields_set__
        assert message.__pydantic_extra__ == slow.__pydantic_extra__ == {}
        assert message.__pydantic_private__ == slow.__pydantic_private__
        assert message == slow
        assert message.model_dump() == slow.model_dump()
        assert message.content_blocks == slow.content_blocks
        assert dumpd(message) == dumpd(slow)
        assert message.additional_kwargs is not slow.additional_kwargs
        assert len(message.content) == len(CONTENT)
        assert (message.artifact is None) == bool(response_format)


class Listed(MCPTool):
    """A tool class with a default each instance must own."""

    tags: list[str] | None = Field(default_factory=list)


async def test_a_tool_class_with_a_default_of_its_own_is_built_by_its_constructor() -> None:
    async with MCPBridge({"s": serving(DEFINITIONS)}, plugins=[]) as bridge:
        built = [Listed.create(tool.binding, name=tool.name) for tool in await bridge.list_tools()]
        assert all(tool.tags == [] for tool in built)
        assert built[0].tags is not built[1].tags
        assert built[0].binding is not built[1].binding


class Posted(MCPTool):
    """A tool class that finishes each instance itself."""

    def model_post_init(self, context: Any) -> None:
        super().model_post_init(context)
        self.tags = ["posted"]


async def test_a_tool_class_with_a_post_init_of_its_own_is_built_by_its_constructor() -> None:
    async with MCPBridge({"s": serving(DEFINITIONS)}, plugins=[]) as bridge:
        listed = await bridge.list_tools()
        built = [Posted.create(tool.binding, name=tool.name) for tool in listed]
        assert all(tool.tags == ["posted"] for tool in built)
        assert all(tool.binding is other.binding for tool, other in zip(built, listed, strict=True))


class Counting:
    """Counts the definitions the bridge compares (pydantic `==` on an MCP tool)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.compared = 0
        original = types.Tool.__eq__

        def counted(tool: types.Tool, other: object) -> bool:
            self.compared += 1
            return original(tool, other)

        monkeypatch.setattr(types.Tool, "__eq__", counted)


async def test_relisting_the_same_definitions_compares_none(monkeypatch: pytest.MonkeyPatch) -> None:
    many = [types.Tool(name=f"t{i}", input_schema={"type": "object"}) for i in range(50)]
    async with MCPBridge({"s": serving(many)}, plugins=[]) as bridge:
        first = await bridge.list_tools()
        counting = Counting(monkeypatch)
        again = await bridge.list_tools()
        assert counting.compared == 0
        assert all(a is b for a, b in zip(first, again, strict=True))
        refreshed = await bridge.list_tools(refresh=True)  # new objects from the server: compared once each
        assert counting.compared == len(many)
        assert all(a is b for a, b in zip(first, refreshed, strict=True))


class CountedIteration(list[MCPTool]):
    """A listing that counts how often its tools are gone through."""

    passes = 0

    def __iter__(self) -> Any:
        self.passes += 1
        return super().__iter__()


async def test_names_are_resolved_in_one_pass_unless_two_servers_share_one() -> None:
    async with MCPBridge({"a": serving(DEFINITIONS), "b": serving(DEFINITIONS[:1])}, plugins=[]) as bridge:
        tools = await bridge.list_tools(servers=["a"])
        names = ToolNames(["a", "b"], prefix=False)
        listing = CountedIteration(tools)
        assert await names.resolve(listing) == tools
        assert listing.passes == 1
        late = CountedIteration([*tools, *await bridge.list_tools(servers=["b"])])
        assert await names.resolve(late) == tools  # `a` offered `plain` first: `b`'s is left out
        assert late.passes == 2


async def test_a_failed_listing_records_no_first_sight() -> None:
    """Two servers offering a name at once fail the listing; the other names it carried are
    not taken by it either (the next listing decides them as if it were the first)."""
    plain, titled = DEFINITIONS[0], DEFINITIONS[2]
    servers = {"a": serving([plain, titled]), "b": serving([plain]), "c": serving([titled])}
    async with MCPBridge(servers, plugins=[]) as bridge:
        with pytest.raises(Exception, match="'plain' is offered by servers 'a' and 'b'"):
            await bridge.list_tools(servers=["a", "b"])
        with pytest.raises(Exception, match="'titled' is offered by servers 'a' and 'c'"):
            await bridge.list_tools(servers=["a", "c"])


class Alike:
    """A plugin whose interceptor has work for the tools named `t…` only."""

    mcpbridge_name = "alike"

    def __init__(self) -> None:
        self.asked = 0

    def applies_to(self, server_name: str, tool: types.Tool) -> bool:
        self.asked += 1
        return tool.name.startswith("t")

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        return await handler(request)

    @hookimpl
    def mcpbridge_interceptors(self) -> list[Any]:
        return [self]


async def test_tools_whose_layers_answer_alike_share_one_layering_and_handler() -> None:
    many = [types.Tool(name=f"{kind}{i}", input_schema={"type": "object"}) for i in range(20) for kind in "tu"]
    alike = Alike()
    async with MCPBridge({"s": serving(many)}, plugins=[alike]) as bridge:
        tools = await bridge.list_tools()
        await bridge.list_tools()
        assert alike.asked == len(many)  # once per definition
        assert len({id(tool.binding.handler) for tool in tools}) == 2
        assert len({id(tool.chain) for tool in tools}) == 2
        assert {tool.chain for tool in tools} == {("alike", "claiming"), ("claiming",)}
