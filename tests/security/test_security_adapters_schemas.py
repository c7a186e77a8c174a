"""The drop-in's tools give the model mcpbridge's schemas, not the server's: with the
server's own input schema, one tool's `"$ref": "#/$defs/missing"` (or a remote or `file:`
`$ref`) made `convert_to_openai_tool` raise, so `bind_tools` failed for every tool of every
server an agent was given. Nothing is fetched either way."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool
from mcpbridge_adapters.client import MultiServerMCPClient

from tests.security import hostile_servers
from tests.security.listeners import Listener, listening


@pytest.fixture
def recorder() -> Iterator[Listener]:
    with listening(answer=True) as listener:
        yield listener


async def test_one_servers_refs_cannot_break_every_model_call(recorder: Listener) -> None:
    server = hostile_servers.build(recorder.port, recorder.port)
    async with MultiServerMCPClient({"hostile": {"transport": "in_process", "server": server}}, plugins=[]) as client:
        tools = await client.get_tools()
        assert {"remote_ref", "local_ref", "file_ref", "echo"} <= {tool.name for tool in tools}
        described = {tool.name: convert_to_openai_tool(tool)["function"] for tool in tools}  # what bind_tools does
        assert "n" in described["local_ref"]["parameters"]["properties"]
        echo = next(tool for tool in tools if tool.name == "echo")
        assert (await echo.ainvoke({"text": "hi"}))[0]["text"]  # the session still answers
    assert recorder.connections == []
