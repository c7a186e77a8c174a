"""Sample MCP servers for the demo. `python -m mcpbridge_demo.servers NAME` serves one over
stdio; `http_app()` serves them all over streamable HTTP (`mcpbridge demo --http PORT`)."""

from __future__ import annotations

import base64
import logging
import sys
import zlib
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import ImageContent, TextContent, ToolAnnotations
from pydantic import BaseModel

READ_ONLY = ToolAnnotations(read_only_hint=True)


class Forecast(BaseModel):
    city: str
    temperature_c: float
    conditions: str


def _sun_png() -> str:
    """A tiny 8x8 yellow PNG, built here so the demo ships no binary files."""
    raw = b"".join(b"\x00" + b"\xff\xd0\x20" * 8 for _ in range(8))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + kind + data + zlib.crc32(kind + data).to_bytes(4, "big")

    header = (8).to_bytes(4, "big") * 2 + bytes([8, 2, 0, 0, 0])
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    return base64.b64encode(png).decode()


def weather() -> MCPServer:
    server = MCPServer("weather")

    @server.tool(annotations=READ_ONLY)
    def get_forecast(city: str) -> Forecast:
        """Today's forecast for a city."""
        return Forecast(city=city, temperature_c=round(4 + len(city) * 1.5, 1), conditions="sunny spells")

    @server.tool(annotations=READ_ONLY, structured_output=False)
    def forecast_map(city: str) -> list[TextContent | ImageContent]:
        """A weather map image for a city."""
        return [
            TextContent(type="text", text=f"Weather map for {city}"),
            ImageContent(type="image", data=_sun_png(), mime_type="image/png"),
        ]

    return server


def calculator() -> MCPServer:
    server = MCPServer("calculator")

    @server.tool(annotations=READ_ONLY)
    def add(a: float, b: float) -> float:
        """Add two numbers."""
        return a + b

    @server.tool(annotations=READ_ONLY)
    def divide(a: float, b: float) -> float:
        """Divide a by b."""
        if b == 0:
            raise ToolError("cannot divide by zero")
        return a / b

    return server


def crm() -> MCPServer:
    server = MCPServer("crm")
    contacts = {"c1": "Ada Lovelace", "c2": "Alan Turing"}

    @server.tool(annotations=READ_ONLY)
    def list_contacts(ctx: Context) -> str:
        """The caller's contacts (the caller is named by the x-user-id header)."""
        user = (ctx.headers or {}).get("x-user-id", "anonymous")
        return f"contacts of user {user}: " + ", ".join(f"{k}={v}" for k, v in contacts.items())

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def delete_contact(contact_id: str) -> str:
        """Delete a contact for good."""
        name = contacts.pop(contact_id, None)
        if name is None:
            raise ToolError(f"no contact {contact_id}")
        return f"deleted {name}"

    return server


class BookingDate(BaseModel):
    date: str


def _ask_date() -> Elicit[BookingDate]:
    return Elicit("Which date should I book the table for? (YYYY-MM-DD)", BookingDate)


def booking() -> MCPServer:
    server = MCPServer("booking")

    @server.tool()
    def book_table(party_size: int, when: Annotated[BookingDate, Resolve(_ask_date)]) -> str:
        """Book a restaurant table; asks the user for the date."""
        return f"table for {party_size} booked on {when.date}"

    return server


def flaky(failures: int = 2) -> MCPServer:
    """A status tool that fails its first `failures` calls, as an overloaded service does."""
    server = MCPServer("flaky")
    calls = [0]

    @server.tool(annotations=READ_ONLY)
    def service_status() -> str:
        """The status of the reservation service."""
        calls[0] += 1
        if calls[0] <= failures:
            raise ToolError(f"service temporarily unavailable (call {calls[0]})")
        return f"all systems normal (answered on call {calls[0]})"

    return server


SERVERS: dict[str, Callable[[], MCPServer]] = {
    "weather": weather,
    "calculator": calculator,
    "crm": crm,
    "booking": booking,
    "flaky": flaky,
}


def http_app() -> Any:
    """One ASGI app serving each sample server at `/NAME/mcp`."""
    from starlette.applications import Starlette

    apps = [build().streamable_http_app(streamable_http_path=f"/{name}/mcp") for name, build in SERVERS.items()]

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:  # each server's session manager
            for each in apps:
                await stack.enter_async_context(each.router.lifespan_context(each))
            yield

    return Starlette(routes=[route for each in apps for route in each.routes], lifespan=lifespan)


if __name__ == "__main__":
    logging.disable(logging.ERROR)  # tool errors reach the client as results; keep the terminal quiet
    SERVERS[sys.argv[1]]().run("stdio")
