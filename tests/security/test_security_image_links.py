"""A server's resource links never hand the model integration a URL it might open: only an
`http(s)` URL with a host or an inline `data:` URI becomes an `image` (or `file`) block;
any other link (`file:///etc/passwd`, `javascript:`, the server's own schemes, a scheme
hidden behind whitespace or control characters) becomes a text block that describes it.
An empty image, audio or blob (which LangChain refuses to make a block of) is described
too, never an exception out of the call. Checked through real tool calls, in-process and
over stdio, and with hypothesis."""

from __future__ import annotations

import base64
import sys
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st
from langchain_core.messages import ToolMessage
from mcp.server.mcpserver import MCPServer
from mcp.types import AudioContent, BlobResourceContents, EmbeddedResource, ImageContent, ResourceLink

from mcpbridge import MCPBridge, testing
from tests.helpers import ROOT

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n").decode()

OPENABLE = [
    "https://cdn.example/cat.png",
    "HTTP://Cdn.Example/cat.png",
    "hTTpS://user@cdn.example:8443/cat.png?x=1#y",
    f"data:image/png;base64,{PNG}",
    f"DATA:image/png;base64,{PNG}",
]
NEVER_OPENED = [
    "file:///etc/passwd",
    "FILE:///etc/passwd",
    "File://localhost/etc/passwd",
    " file:///etc/passwd",
    "\tfile:///etc/passwd",
    "\x00file:///etc/passwd",
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "vbscript:msgbox(1)",
    "http:/etc/passwd",
    "http:///etc/passwd",
    "https:",
    "http://",
    "http:\\\\evil.example\\cat.png",
    "ht\ntp://evil.example/cat.png",
    " https://evil.example/cat.png",
    "https://evil.example/cat.png\n",
    "https://evil .example/cat.png",
    "http://[::1/cat.png",
    "//evil.example/cat.png",
    "/etc/passwd",
    "cat.png",
    "",
    "data",
    "data:image/png;base64",
    "memo://cat",
    "ftp://evil.example/cat.png",
    "smb://evil.example/share/cat.png",
    "chrome://settings",
]


def build() -> MCPServer:
    server = MCPServer("links")

    @server.tool(structured_output=False)
    def link(uri: str, mime_type: str | None = None) -> list[object]:
        """One resource link to `uri`, and an embedded image whose resource URI is `uri`."""
        return [
            ResourceLink(type="resource_link", uri=uri, name="cat", mime_type=mime_type, description="a cat"),
            EmbeddedResource(type="resource", resource=BlobResourceContents(uri=uri, blob=PNG, mime_type="image/png")),
        ]

    @server.tool(structured_output=False)
    def empty() -> list[object]:
        """An image, an audio clip and an embedded image, all without data."""
        return [
            ImageContent(type="image", data="", mime_type="image/png"),
            AudioContent(type="audio", data="", mime_type="audio/wav"),
            EmbeddedResource(
                type="resource", resource=BlobResourceContents(uri="memo://x", blob="", mime_type="image/png")
            ),
        ]

    @server.tool()
    def echo(text: str) -> str:
        """The bystander."""
        return text

    return server


def openable(url: str) -> bool:
    """The property under test, spelled out independently of the bridge's code."""
    if any(ord(char) <= 0x20 or 0x7F <= ord(char) <= 0x9F for char in url):
        return False
    lowered = url.lower()
    if lowered.startswith("data:"):
        return "," in url
    if not lowered.startswith(("http://", "https://")):
        return False
    try:
        return bool(urlsplit(url).hostname)
    except ValueError:
        return False


def assert_no_url_to_open(content: list[dict[str, Any]]) -> None:
    for block in content:
        for field in ("url", "file_id"):
            if field in block:
                assert openable(block[field]), block


@pytest.fixture(scope="module", params=["inprocess", "stdio"])
def tools(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    server = (
        build()
        if request.param == "inprocess"
        else testing.stdio_config("tests.security.test_security_image_links", cwd=str(ROOT))
    )
    with MCPBridge({"links": server}, plugins=[]) as bridge:
        yield {tool.name: tool for tool in bridge.list_tools_sync()}


def call(tool: Any, **args: Any) -> list[dict[str, Any]]:
    message = tool.invoke({"type": "tool_call", "name": tool.name, "args": args, "id": "c1"})
    assert isinstance(message, ToolMessage)
    assert message.status == "success"
    assert isinstance(message.content, list)
    return message.content


@pytest.mark.parametrize("uri", OPENABLE)
@pytest.mark.parametrize("mime_type", ["image/png", "IMAGE/JPEG", "application/pdf", None])
def test_web_and_data_links_stay_blocks_the_model_reads(tools: dict[str, Any], uri: str, mime_type: str | None) -> None:
    linked, embedded = call(tools["link"], uri=uri, mime_type=mime_type)
    expected = "image" if mime_type and mime_type.lower().startswith("image/") else "file"
    assert (linked["type"], linked["url"], linked.get("mime_type")) == (expected, uri, mime_type)
    assert linked["extras"] == {"name": "cat", "description": "a cat"}
    assert (embedded["type"], embedded["base64"]) == ("image", PNG)


@pytest.mark.parametrize("uri", NEVER_OPENED)
@pytest.mark.parametrize("mime_type", ["image/png", "application/pdf", None])
def test_other_links_become_described_text(tools: dict[str, Any], uri: str, mime_type: str | None) -> None:
    content = call(tools["link"], uri=uri, mime_type=mime_type)
    linked, embedded = content
    assert linked["type"] == "text"
    assert "url" not in linked
    assert "cat" in linked["text"]
    assert repr(uri) in linked["text"]
    assert (mime_type or "") in linked["text"]
    assert linked["extras"]["uri"] == uri
    # The embedded image is its data, never its URI: the URI stays metadata.
    assert (embedded["type"], embedded["base64"], embedded["extras"]) == ("image", PNG, {"uri": uri})
    assert_no_url_to_open(content)
    assert call(tools["echo"], text="b")[0]["text"] == "b"  # the shared session still answers


_schemes = st.sampled_from(["http", "https", "data", "file", "javascript", "ftp", "memo", ""])
_junk = st.text(alphabet=st.characters(max_codepoint=0xA0), max_size=3)


@st.composite
def uris(draw: st.DrawFn) -> str:
    """A scheme in random case, maybe behind junk, then `:`, maybe `//`, maybe a host, a rest."""
    scheme = "".join(char.upper() if draw(st.booleans()) else char for char in draw(_schemes))
    separator = draw(st.sampled_from([":", "://", ":/", ":\\\\", "", ":///"]))
    return draw(_junk) + scheme + separator + draw(st.text(max_size=30))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(uri=uris() | st.text(max_size=40), mime_type=st.sampled_from(["image/png", "Image/GIF", "text/plain", None]))
@example(uri="file:///etc/passwd", mime_type="image/png")
def test_no_link_ever_reaches_the_model_as_a_url_it_could_open(
    tools: dict[str, Any], uri: str, mime_type: str | None
) -> None:
    content = call(tools["link"], uri=uri, mime_type=mime_type)
    assert_no_url_to_open(content)
    [linked, _] = content
    if openable(uri):
        assert linked["url"] == uri
    else:
        assert linked["type"] == "text"
        assert linked["extras"]["uri"] == uri


def test_empty_data_is_described_not_a_failed_call(tools: dict[str, Any]) -> None:
    image, audio, blob = call(tools["empty"])
    assert image["text"] == "[empty image (image/png) from the server]"
    assert audio["text"] == "[empty audio (audio/wav) from the server]"
    assert (blob["text"], blob["extras"]) == ("[empty image (image/png) from the server]", {"uri": "memo://x"})


if __name__ == "__main__":
    build().run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
