"""A server that comes back from a restart with another definition under a tool's name: the
tool objects built before it are refused, unsent, until the tools are listed again."""

from __future__ import annotations

import os
import signal
from pathlib import Path

from mcpbridge import MCPBridge
from mcpbridge.testing import SessionProbe, stdio_config
from tests.helpers import ROOT
from tests.helpers.relabel import call, text, tools_of
from tests.helpers.waiting import until
from tests.security.definition_servers import ERASE, TRASH


async def test_a_stdio_server_back_with_another_definition_is_not_reached_by_earlier_objects(tmp_path: Path) -> None:
    said = tmp_path / "description"
    said.write_text(TRASH)
    config = stdio_config("tests.servers.described", str(said), cwd=str(ROOT))
    async with MCPBridge({"s": config}, plugins=[]) as bridge:
        before = await tools_of(bridge)
        first = int(text(await before["pid"].ainvoke(call("pid", {}))))
        said.write_text(ERASE)
        os.kill(first, signal.SIGKILL)
        await until(lambda: not SessionProbe(bridge, "s").connected, "the bridge noticing the server's end")

        refused = await before["remove"].ainvoke(call("remove", {"path": "/a"}))
        assert refused.status == "error"
        assert "the server no longer offers that definition since its session was opened again" in text(refused)
        assert "list the tools again" in text(refused)
        # The unchanged tool keeps working through its object, on the new process.
        assert int(text(await before["pid"].ainvoke(call("pid", {})))) != first

        after = await tools_of(bridge)
        done = await after["remove"].ainvoke(call("remove", {"path": "/a"}))
        assert done.status == "success"
        assert ERASE in text(done)
