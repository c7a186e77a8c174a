"""A header the headers plugin sends with a fixed value (`env:NAME`, a literal) is a secret the
bridge knows, as a server's static `headers` are: a server quoting it back in its error (the
token it refused) showed it to the model, and to every span, event and log that quotes the
error. Over streamable HTTP, the only transport that carries headers."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import mcpbridge_headers
import pytest

from mcpbridge import MCPBridge, ToolCallError
from mcpbridge.testing import serving
from tests.security.test_security_secret_echo import refusing

TOKEN = "hdr-3e8a6c1f9b4d7025"


@pytest.fixture
def url() -> Iterator[str]:
    with serving(refusing(lambda ctx: ctx.request.headers.get("authorization")).streamable_http_app()) as served:
        yield served


async def test_a_fixed_header_value_echoed_by_the_server_stays_hidden(
    url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("QUOTING_TOKEN", f"Bearer {TOKEN}")
    caplog.set_level(logging.DEBUG)
    settings = {"headers": {"servers": {"q": {"authorization": "env:QUOTING_TOKEN"}}}}
    async with MCPBridge({"q": {"url": url}}, plugins=[mcpbridge_headers], plugin_settings=settings) as bridge:
        [tool] = await bridge.list_tools()
        message = await tool.ainvoke({"type": "tool_call", "name": "check", "args": {}, "id": "c1"})
        with pytest.raises(ToolCallError) as raised:
            await tool.ainvoke({})
    assert "was revoked" in str(message.content)  # the server did see the header and quote it
    for text in (str(message.content), str(raised.value), repr(raised.value), caplog.text):
        assert TOKEN not in text
