"""The elicitation capability is declared only where it will be answered: a legacy server
is not offered it unless `on_elicitation` can answer its questions."""

from __future__ import annotations

import sys
from typing import Any

import mcp.types as types
import pytest

from mcpbridge import MCPBridge
from tests.helpers import ROOT

LEGACY_ONLY = {"command": sys.executable, "args": ["-m", "tests.servers.raw_jsonrpc"], "cwd": str(ROOT)}


async def answer(server: str, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="decline")


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(("on_elicitation", "offered"), [(None, False), (answer, True)])
async def test_a_legacy_server_is_offered_elicitation_only_when_it_is_answered(
    mode: str, on_elicitation: Any, offered: bool
) -> None:
    settings = {"elicitation": {"on_elicitation": on_elicitation}} if on_elicitation else {}
    servers = {"legacy": {**LEGACY_ONLY, "mode": mode}}
    async with MCPBridge(servers, plugins=["elicitation"], plugin_settings=settings) as bridge:
        names = {tool.name for tool in await bridge.list_tools()}
        assert ("ask" in names) is offered
        assert (await bridge.call_tool("legacy", "echo", {"text": "hi"})).status == "success"
