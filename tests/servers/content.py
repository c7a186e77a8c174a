"""A content server: images by link and embedded, annotated text, error results without
text, and the server's environment. Run as a module for stdio (`python -m
tests.servers.content`, optionally with a transport name)."""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer
from mcp.types import Annotations, BlobResourceContents, CallToolResult, EmbeddedResource, ResourceLink, TextContent

PNG = "iVBORw0KGgo="
NOTE = Annotations(audience=["user"], priority=0.25, last_modified="2026-11-30T12:00:00Z")


def build() -> MCPServer:
    server = MCPServer("content")

    @server.tool(structured_output=False)
    def images() -> list[object]:
        """Images by link and embedded, a PDF, and annotated text."""
        return [
            ResourceLink(type="resource_link", uri="https://cdn.example/cat.png", name="cat", mime_type="image/png"),
            EmbeddedResource(
                type="resource", resource=BlobResourceContents(uri="memo://jpeg", blob=PNG, mime_type="IMAGE/JPEG")
            ),
            EmbeddedResource(
                type="resource",
                resource=BlobResourceContents(uri="memo://pdf", blob=PNG, mime_type="application/pdf"),
                annotations=NOTE,
            ),
            ResourceLink(type="resource_link", uri="file:///tmp/a.bin", name="a", annotations=Annotations(priority=1)),
            TextContent(type="text", text="for the user", annotations=NOTE),
            TextContent(type="text", text="plain"),
        ]

    @server.tool()
    def silent_failure() -> CallToolResult:
        """Fails with no content at all."""
        return CallToolResult(content=[], is_error=True, structured_content={"code": 7})

    @server.tool()
    def blank_failure() -> CallToolResult:
        """Fails with an empty text."""
        return CallToolResult(content=[TextContent(type="text", text="  ")], is_error=True)

    @server.tool()
    def getenv(name: str) -> str:
        """The server process's environment variable `name`."""
        return os.environ.get(name, "(unset)")

    @server.tool()
    def fail(why: str) -> CallToolResult:
        """Fails with a message."""
        return CallToolResult(content=[TextContent(type="text", text=why)], is_error=True)

    return server


if __name__ == "__main__":
    build().run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
