"""`mcpbridge_serve.to_mcp_server`: LangChain tools served by an MCPServer, reached by MCPBridge
in-process and over streamable HTTP, called the way an agent calls them."""

from __future__ import annotations

from typing import Annotated, Any

import pytest
from langchain_core.tools import BaseTool, InjectedToolArg, StructuredTool, ToolException, tool
from mcp import Client
from mcpbridge_serve import to_mcp_server
from pydantic import BaseModel, Field

from mcpbridge import MCPBridge
from mcpbridge.testing import make_tool_call, serving


@tool
def add(a: int, b: Annotated[int, Field(description="the second term")] = 2) -> int:
    """Add two integers."""
    return a + b


@tool
def lookup(city: str) -> dict[str, Any]:
    """Weather of a city."""
    return {"city": city, "temperature": 21}


@tool
def broken(reason: str) -> str:
    """Always fails."""
    raise ToolException(f"cannot: {reason}")


class Query(BaseModel):
    text: str = Field(description="what to shout")


async def _shout(text: str) -> str:
    return text.upper()


shout = StructuredTool.from_function(coroutine=_shout, name="shout", description="Shout.", args_schema=Query)


def _server() -> Any:
    return to_mcp_server([add, lookup, broken, shout], name="langchain-tools", instructions="Be kind.")


async def _call(bridge: MCPBridge, name: str, args: dict[str, Any]) -> Any:
    tools = {t.name: t for t in await bridge.list_tools()}
    return await tools[name].ainvoke(make_tool_call(tools[name], args))


async def _check(bridge: MCPBridge) -> None:
    tools = {t.name: t for t in await bridge.list_tools()}
    assert set(tools) == {"add", "lookup", "broken", "shout"}
    schema = tools["add"].binding.tool.input_schema
    assert schema["required"] == ["a"]
    assert schema["properties"]["b"] == {
        "default": 2,
        "description": "the second term",
        "title": "B",
        "type": "integer",
    }
    assert tools["add"].description == "Add two integers."

    message = await _call(bridge, "add", {"a": 40})
    assert message.status == "success"
    assert message.content == [{"type": "text", "text": "42"}]

    message = await _call(bridge, "lookup", {"city": "Oslo"})
    assert [entry["data"] for entry in message.artifact if entry["type"] == "mcp_structured_content"] == [
        {"city": "Oslo", "temperature": 21}
    ]
    assert '"temperature": 21' in message.content[0]["text"]

    message = await _call(bridge, "broken", {"reason": "no fuel"})
    assert message.status == "error"
    assert message.content[0]["text"] == "cannot: no fuel"

    message = await _call(bridge, "shout", {"text": "hi"})
    assert message.content == [{"type": "text", "text": "HI"}]

    message = await _call(bridge, "add", {"a": "not a number"})
    assert message.status == "error"


async def test_served_in_process() -> None:
    async with MCPBridge({"lc": _server()}, plugins=[]) as bridge:
        await _check(bridge)


async def test_served_over_streamable_http() -> None:
    with serving(_server()) as url:
        async with MCPBridge({"lc": {"url": url}}, plugins=[]) as bridge:
            await _check(bridge)


async def test_a_served_error_is_made_safe_like_the_bridges_own() -> None:
    """A tool's error goes to any MCP client as an error result, cut and without URL credentials."""
    async with Client(_server()) as client:
        quoted = await client.call_tool("broken", {"reason": "see https://bob:hunter2@example.test/"})
        long = await client.call_tool("broken", {"reason": "x" * 100_000})
    assert quoted.is_error
    assert long.is_error
    assert quoted.content[0].text.startswith("cannot: see https://")
    assert "hunter2" not in quoted.content[0].text
    assert len(long.content[0].text) < 10_000  # cut like every error the bridge writes


def test_refuses_what_a_client_cannot_call() -> None:
    @tool
    def needs_context(x: int, user: Annotated[str, InjectedToolArg()]) -> str:
        """Needs an injected user."""
        return user

    with pytest.raises(TypeError, match="injected arguments"):
        to_mcp_server([needs_context])

    raw: BaseTool = StructuredTool(
        name="raw",
        description="raw schema",
        args_schema={"type": "object", "properties": {"x": {"type": "integer"}}},
        coroutine=_shout,
    )
    with pytest.raises(TypeError, match="pydantic args_schema"):
        to_mcp_server([raw])
