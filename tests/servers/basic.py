"""A sample MCP server with one tool per behaviour the tests need. Run as a script for stdio."""

from __future__ import annotations

import base64
import os
import sys

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    ElicitRequest,
    ElicitRequestFormParams,
    EmbeddedResource,
    ImageContent,
    InputRequiredResult,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from pydantic import BaseModel

PNG = base64.b64encode(bytes.fromhex("89504e470d0a1a0a")).decode()
CALLS: dict[str, int] = {}


class Forecast(BaseModel):
    city: str
    temperature_c: float


def build() -> MCPServer:
    server = MCPServer("basic")

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def echo(text: str) -> str:
        """Echo the text back."""
        CALLS["echo"] = CALLS.get("echo", 0) + 1
        return text

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    def get_forecast(city: str) -> Forecast:
        """Forecast for a city."""
        return Forecast(city=city, temperature_c=4.5)

    @server.tool()
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        if b == 0:
            raise ToolError("division by zero")
        return a / b

    @server.tool(structured_output=False)
    def media() -> list[object]:
        """One of each content type."""
        return [
            TextContent(type="text", text="hello"),
            ImageContent(type="image", data=PNG, mime_type="image/png"),
            AudioContent(type="audio", data=PNG, mime_type="audio/wav"),
            EmbeddedResource(
                type="resource", resource=TextResourceContents(uri="memo://note", text="a note", mime_type="text/plain")
            ),
            EmbeddedResource(
                type="resource", resource=BlobResourceContents(uri="memo://blob", blob=PNG, mime_type="image/png")
            ),
            ResourceLink(
                type="resource_link", uri="file:///tmp/report.pdf", name="report", mime_type="application/pdf"
            ),
        ]

    @server.tool()
    async def slow(seconds: float) -> str:
        """Sleep, then answer."""
        await anyio.sleep(seconds)
        return "done"

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def die() -> str:
        """End the server process at once (stdio tests)."""
        os._exit(3)

    @server.tool()
    def whoami(ctx: Context) -> str:
        """The x-user-id request header, when there is one."""
        headers = ctx.headers or {}
        return str(headers.get("x-user-id", "anonymous"))

    @server.tool()
    def confirm(ctx: Context) -> str | InputRequiredResult:
        """Asks the user to confirm (modern protocol input request)."""
        if ctx.input_responses:
            return "confirmed"
        params = ElicitRequestFormParams(message="Sure?", requested_schema={"type": "object", "properties": {}})
        return InputRequiredResult(request_state="s1", input_requests={"ok": ElicitRequest(params=params)})

    @server.tool()
    async def count(n: int, ctx: Context) -> str:
        """Report progress n times, then answer."""
        for step in range(1, n + 1):
            await ctx.report_progress(step, n, f"step {step}")
        return "counted"

    @server.tool()
    def big(size: int) -> str:
        """A text of `size` bytes."""
        return "x" * size

    @server.tool()
    def pid() -> int:
        """The server's process id."""
        return os.getpid()

    return server


if __name__ == "__main__":
    build().run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
