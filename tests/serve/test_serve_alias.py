"""`mcpbridge.to_mcp_server`, deprecated for one release: it warns and hands over to the
mcpbridge-serve distribution, and says how to install it when it is missing."""

from __future__ import annotations

import subprocess
import sys

import mcpbridge_serve
import pytest
from langchain_core.tools import tool

import mcpbridge


@tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


async def test_the_alias_warns_and_serves_what_mcpbridge_serve_serves() -> None:
    with pytest.warns(DeprecationWarning, match=r"from mcpbridge_serve import to_mcp_server"):
        server = mcpbridge.to_mcp_server([add], name="lc", instructions="Be kind.")
    async with mcpbridge.MCPBridge({"lc": server}, plugins=[]) as bridge:
        message = await bridge.call_tool("lc", "add", {"a": 2, "b": 3})
    assert message.content == [{"type": "text", "text": "5"}]
    assert type(server) is type(mcpbridge_serve.to_mcp_server([add]))


def test_without_the_distribution_the_alias_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcpbridge_serve", None)  # as if it were not installed
    with (
        pytest.warns(DeprecationWarning, match="deprecated"),
        pytest.raises(ImportError, match="pip install mcpbridge-serve"),
    ):
        mcpbridge.to_mcp_server([add])


def test_the_core_does_not_import_mcpbridge_serve_on_its_own() -> None:
    code = "import sys, mcpbridge; mcpbridge.MCPBridge; print('mcpbridge_serve' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
