"""A docs server: resources (text, a blob, a template), a prompt with mixed content, server
info and one tool. Run as a module for stdio (`python -m tests.servers.docs`)."""

from __future__ import annotations

import base64
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.prompts.base import AssistantMessage, UserMessage
from mcp.types import EmbeddedResource, ImageContent, TextResourceContents

PNG = b"\x89PNG\r\n\x1a\n-not-really-an-image"


def build() -> MCPServer:
    server = MCPServer("docs", version="1.2.3", title="Docs server", instructions="Read README first.")

    @server.resource("file:///readme.txt", mime_type="text/plain")
    def readme() -> str:
        return "hello from the readme"

    @server.resource("data://logo.png", mime_type="image/png")
    def logo() -> bytes:
        return PNG

    @server.resource("greeting://{name}")
    def greeting(name: str) -> str:
        return f"Hello, {name}!"

    @server.prompt()
    def review(code: str, strict: str = "no") -> list[Any]:
        """Review some code."""
        return [
            UserMessage(f"Review this (strict={strict}):\n{code}"),
            AssistantMessage("Looks fine; one question."),
            UserMessage(ImageContent(type="image", data=base64.b64encode(PNG).decode(), mime_type="image/png")),
            UserMessage(
                EmbeddedResource(
                    type="resource",
                    resource=TextResourceContents(uri="file:///style.md", mime_type="text/markdown", text="Be kind."),
                )
            ),
        ]

    @server.tool()
    def noop() -> str:
        return "ok"

    return server


if __name__ == "__main__":
    build().run()
