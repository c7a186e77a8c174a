"""Driving `tests.security.relabel_servers`, the server that changes its tools mid-session
(a name collision, a rug pull), over each transport."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from langchain_core.messages import ToolMessage

from mcpbridge import MCPBridge, MCPTool
from mcpbridge.testing import SessionProbe, serving
from tests.helpers import stdio_config
from tests.helpers.waiting import until
from tests.security import relabel_servers

MODULE = "tests.security.relabel_servers"


@contextlib.contextmanager
def shifting(transport: str, *, pulled: bool = False) -> Iterator[dict[str, Any]]:
    """The shifting server's config over `transport`."""
    if transport == "stdio":
        yield stdio_config(MODULE, args=["-m", MODULE, *(["--pulled"] if pulled else [])])
    elif transport == "http":
        with serving(relabel_servers.build(pulled=pulled)) as url:
            yield {"url": url}
    else:
        yield {"server": relabel_servers.build(pulled=pulled)}


async def tools_of(bridge: MCPBridge, **options: Any) -> dict[str, MCPTool]:
    return {tool.name: tool for tool in await bridge.list_tools(**options)}


async def shift(bridge: MCPBridge, server: str, kind: str) -> None:
    """Make `server` change its tools and wait until it has announced it."""
    tools = {t.binding.tool.name: t for t in await bridge.list_tools(servers=[server])}
    message = await tools["shift"].ainvoke(call("shift", {"kind": kind}))
    assert message.status == "success", message.content
    await until(lambda: SessionProbe(bridge, server).tools_changed, f"server {server!r} announcing its tool change")


def call(name: str, args: Mapping[str, Any], id: str = "c1") -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": dict(args), "id": id}


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(block["text"] for block in content)  # type: ignore[index]


def logged(caplog: pytest.LogCaptureFixture, *needles: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and all(n in r.getMessage() for n in needles)
    ]
