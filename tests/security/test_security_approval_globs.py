"""An approval rule's `glob` cannot stall the event loop on the model's text: it was run on
Python's backtracking `re`, where `**/*secret*` against a 36 KB path the model wrote held
the loop for 2.5 s (quadratic: 72 KB took ~10 s) before the call went on; and the path's
segments were split into lists twice (`..` and empty-segment checks), ~1 s for a 3 MB path
of 1.5 million segments. Globs and segment checks now run on RE2, with the same answers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import mcpbridge_approval
import pytest
from langchain_core.tools import BaseTool

from mcpbridge import MCPBridge
from tests.plugins.approval import approval_servers
from tests.security.test_security_schemas import LoopWatch

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

RULES = {
    "rules": [
        {"tool": "read_file", "approval": "require", "when": [{"argument": "path", "glob": "**/*secret*"}]},
        {"tool": "read_file", "approval": "require", "when": [{"argument": "path", "glob": "/srv/**/*.key"}]},
    ]
}
CRAFTED = "/" + "secret" * 6000 + "/x"
"""One long segment full of near-matches, then a segment without one: no match."""


def call(path: str) -> dict[str, Any]:
    return {"type": "tool_call", "name": "read_file", "args": {"path": path}, "id": "call-read"}


@pytest.fixture
async def read_file() -> AsyncIterator[BaseTool]:
    """The approval-gated server's `read_file`, under the rules above."""
    async with MCPBridge(
        {"files": approval_servers.build()}, plugins=[mcpbridge_approval], plugin_settings={"approval": RULES}
    ) as bridge:
        yield {tool.name: tool for tool in await bridge.list_tools()}["read_file"]


async def test_a_glob_rule_takes_linear_time_on_the_models_path(read_file: BaseTool) -> None:
    async with LoopWatch() as watch:
        message = await read_file.ainvoke(call(CRAFTED))
    assert watch.worst < 0.5, f"the event loop was held {watch.worst:.2f} s by an approval glob"
    assert message.status == "success"  # no rule matched: a read-only tool runs without approval
    assert approval_servers.ran("read_file")[-1] == {"path": CRAFTED}
    gated = await read_file.ainvoke(call("/srv/" + "a/" * 5000 + "my-secrets.txt"))
    assert gated.status == "error"  # the rule matched: approval is required (and no graph to pause)
    assert "not running inside a LangGraph graph" in gated.content


async def test_a_path_of_a_million_segments_is_checked_without_lists(read_file: BaseTool) -> None:
    deep = "/srv/" + "a/" * 1_500_000 + "x"
    async with LoopWatch() as watch:
        message = await read_file.ainvoke(call(deep))
    assert watch.worst < 0.5, f"the event loop was held {watch.worst:.2f} s checking a path's segments"
    assert message.status == "success"
    gated = await read_file.ainvoke(call(deep + "/../id.key"))
    assert "not running inside a LangGraph graph" in gated.content  # `..`: suspect, so approval is required
