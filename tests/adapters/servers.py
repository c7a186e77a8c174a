"""The servers the drop-in's tests talk to (real mcp 2.x MCPServers); run as a script, the
math server speaks stdio."""

from __future__ import annotations

import base64
import os
import sys
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.prompts.base import Message, UserMessage
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import (
    AudioContent,
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)
from pydantic import BaseModel

PNG = base64.b64encode(bytes.fromhex("89504e470d0a1a0a")).decode()


class When(BaseModel):
    date: str


def ask_date() -> Elicit[When]:
    return Elicit("Which date should I book?", When)


def math() -> MCPServer:
    server = MCPServer("math", instructions="Numbers only.")

    @server.prompt()
    def configure_assistant(skills: str) -> list[dict[str, str]]:
        return [{"role": "assistant", "content": f"You are a helpful assistant. You have these skills: {skills}."}]

    @server.resource("math://formulas")
    def formulas() -> str:
        return "E = mc^2"

    @server.resource("math://table", mime_type="application/octet-stream")
    def table() -> bytes:
        return b"binary data"

    @server.prompt()
    def show_chart() -> list[Message]:
        return [UserMessage(content=ImageContent(type="image", mime_type="image/png", data=PNG))]

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers"""
        return a + b

    @server.tool()
    def multiply(a: int, b: int) -> int:
        """Multiply two numbers"""
        return a * b

    return server


def booking() -> MCPServer:
    server = MCPServer("booking")

    @server.tool()
    def book(room: str, when: Annotated[When, Resolve(ask_date)]) -> str:
        """Book a room; asks for the date."""
        return f"booked {room} on {when.date}"

    return server


def reach() -> MCPServer:
    """Tells what reached it: HTTP headers, the environment of its process."""
    server = MCPServer("reach")

    @server.tool()
    def header(ctx: Context, name: str) -> str:
        return (ctx.headers or {}).get(name.lower(), "-")

    @server.tool()
    def env(name: str) -> str:
        return os.environ.get(name, "-")

    return server


def search(topic: str) -> MCPServer:
    server = MCPServer(topic)

    @server.resource(f"{topic}://forecast")
    def forecast() -> str:
        return "Sunny with a chance of clouds"

    @server.tool()
    def search(query: str) -> str:
        """Search"""
        return f"{topic}: {query}"

    return server


def weather() -> MCPServer:
    """The README's weather server; `whoami` tells the headers that reached it."""
    server = MCPServer("Weather")

    @server.tool()
    async def get_weather(location: str) -> str:
        """Get weather for location."""
        return f"It's always sunny in {location}"

    @server.tool()
    def whoami(ctx: Context) -> str:
        headers = ctx.headers or {}
        return f"{headers.get('authorization', '-')} {headers.get('x-custom-header', '-')}"

    return server


class Details(BaseModel):
    email: str


def profile() -> MCPServer:
    """Asks mid-call with `ctx.elicit`, a request pushed to the client (legacy protocol only)."""
    server = MCPServer("profile")

    @server.tool()
    async def create_profile(name: str, ctx: Context) -> str:
        answer = await ctx.elicit(message=f"Details for {name}?", schema=Details)
        return f"{name}: {answer.data.email}" if answer.action == "accept" else f"{name}: {answer.action}"

    return server


def behaviours() -> MCPServer:
    """One tool per result shape, annotation and notification the tests need."""
    server = MCPServer("behaviours", instructions="Use the tools wisely.")

    @server.tool(structured_output=False)
    def plain() -> str:
        return "ok"

    @server.tool(annotations=ToolAnnotations(title="Title", read_only_hint=True, idempotent_hint=False))
    def annotated() -> str:
        return "ok"

    @server.tool(meta={"source": "unit-test", "version": 1})
    def with_meta() -> str:
        return "ok"

    @server.tool(annotations=ToolAnnotations(title="Both"), meta={"flag": True})
    def both() -> str:
        return "ok"

    @server.tool()
    def forecast(city: str) -> dict[str, object]:
        """Structured weather."""
        return {"city": city, "temperature": 21}

    @server.tool()
    def lookup(param1: str) -> CallToolResult:
        return CallToolResult(content=[TextContent(type="text", text="project not found")], is_error=True)

    @server.tool()
    def empty_error() -> CallToolResult:
        return CallToolResult(content=[], is_error=True)

    @server.tool()
    def picture_error() -> CallToolResult:
        return CallToolResult(
            content=[
                TextContent(type="text", text="render failed"),
                ImageContent(type="image", mime_type="image/png", data=PNG),
            ],
            is_error=True,
        )

    @server.tool()
    def picture() -> CallToolResult:
        return CallToolResult(content=[ImageContent(type="image", mime_type="image/png", data=PNG)])

    @server.tool()
    def resources() -> CallToolResult:
        return CallToolResult(
            content=[
                ResourceLink(type="resource_link", uri="https://example.com/a.png", name="a", mime_type="image/png"),
                ResourceLink(type="resource_link", uri="file:///a.txt", name="t", mime_type="text/plain"),
                ResourceLink(type="resource_link", uri="file:///x", name="x"),
                EmbeddedResource(type="resource", resource=TextResourceContents(uri="file:///e.txt", text="hello")),
                EmbeddedResource(
                    type="resource", resource=BlobResourceContents(uri="file:///e.png", blob=PNG, mime_type="image/png")
                ),
                EmbeddedResource(
                    type="resource",
                    resource=BlobResourceContents(uri="file:///e.bin", blob=PNG, mime_type="application/pdf"),
                ),
                TextContent(type="text", text="one"),
                TextContent(type="text", text="two"),
            ]
        )

    @server.tool()
    def sound() -> CallToolResult:
        return CallToolResult(content=[AudioContent(type="audio", mime_type="audio/wav", data=PNG)])

    @server.tool()
    async def slow_count(ctx: Context) -> str:
        """Reports progress and logs while it runs."""
        await ctx.info("starting")
        for step in (1, 2):
            await ctx.report_progress(step, 2, f"step {step}")
        return "counted"

    return server


if __name__ == "__main__":
    {"math": math, "behaviours": behaviours, "reach": reach}[sys.argv[1] if len(sys.argv) > 1 else "math"]().run()
