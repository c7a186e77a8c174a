"""MCP servers that ask the user mid-call. Each effect is logged, so tests count what ran.

Run as `python -m tests.plugins.elicitation.elicit_servers` for stdio.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve
from mcp.types import (
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
    ListRootsRequest,
    ToolAnnotations,
)
from pydantic import BaseModel

EFFECTS: list[tuple[str, Any]] = []
"""(what, detail) for every effect that really happened, plus ("call", tool) per round."""


class When(BaseModel):
    date: str


def ask_date() -> Elicit[When]:
    return Elicit("Which date should I book?", When)


def form(message: str, **properties: Any) -> ElicitRequest:
    schema = {"type": "object", "properties": properties, "required": sorted(properties)}
    return ElicitRequest(params=ElicitRequestFormParams(message=message, requested_schema=schema))


def answer(ctx: Context, key: str) -> ElicitResult | None:
    found = (ctx.input_responses or {}).get(key)
    return found if isinstance(found, ElicitResult) else None


def build() -> MCPServer:
    server = MCPServer("elicit")

    @server.tool()
    def book(room: str, when: Annotated[When, Resolve(ask_date)]) -> str:
        """Book a room; asks for the date (through the SDK's resolvers)."""
        EFFECTS.append(("booked", f"{room}@{when.date}"))
        return f"booked {room} on {when.date}"

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def delete_account(user: str, ctx: Context) -> str | InputRequiredResult:
        """Delete an account; asks for confirmation first."""
        EFFECTS.append(("call", "delete_account"))
        reply = answer(ctx, "confirm")
        if reply is None:
            return InputRequiredResult(
                input_requests={"confirm": form(f"Really delete {user}?", sure={"type": "boolean"})},
                request_state=f"delete:{user}",
            )
        if ctx.request_state != f"delete:{user}":
            return f"refused: request_state {ctx.request_state!r} was not echoed"
        if reply.action == "accept" and reply.content and reply.content.get("sure") is True:
            EFFECTS.append(("deleted", user))
            return f"deleted {user}"
        return f"kept {user} ({reply.action})"

    @server.tool()
    def survey(ctx: Context) -> str | InputRequiredResult:
        """Two questions, one per round; the first answer travels in request_state."""
        EFFECTS.append(("call", "survey"))
        name = answer(ctx, "name")
        if ctx.request_state is None:
            return InputRequiredResult(
                input_requests={"name": form("Your name?", name={"type": "string"})}, request_state="r1"
            )
        if ctx.request_state == "r1":
            given = (name.content or {}).get("name") if name and name.action == "accept" else "anonymous"
            return InputRequiredResult(
                input_requests={
                    "color": form("Favourite colour?", color={"type": "string", "enum": ["red", "blue"]}),
                    "age": form("Your age?", age={"type": "integer", "minimum": 0}),
                },
                request_state=f"r2:{given}",
            )
        color, age = answer(ctx, "color"), answer(ctx, "age")
        summary = f"{ctx.request_state[3:]} likes {(color.content or {}).get('color') if color else None}"
        summary += f", age {(age.content or {}).get('age') if age and age.content else 'unknown'}"
        EFFECTS.append(("survey", summary))
        return summary

    @server.tool()
    def login(ctx: Context) -> str | InputRequiredResult:
        """Sends the user to a URL (url-mode elicitation)."""
        if answer(ctx, "oauth") is None:
            url = ElicitRequest(params=ElicitRequestURLParams(message="Sign in", url="https://auth.example/x"))
            return InputRequiredResult(input_requests={"oauth": url}, request_state="login")
        return f"login {answer(ctx, 'oauth').action}"  # type: ignore[union-attr]

    @server.tool()
    def slow_job(ctx: Context) -> str | InputRequiredResult:
        """Needs two continuation rounds (state only, no questions) before it answers."""
        EFFECTS.append(("call", "slow_job"))
        step = int(ctx.request_state or "0")
        if step < 2:
            return InputRequiredResult(request_state=str(step + 1))
        return "job done"

    @server.tool()
    def pester(ctx: Context) -> str | InputRequiredResult:
        """Never satisfied: asks again every round."""
        return InputRequiredResult(input_requests={"again": form("Again?", ok={"type": "boolean"})}, request_state="x")

    @server.tool()
    def wants_roots(ctx: Context) -> str | InputRequiredResult:
        """Asks for the client's roots, which mcpbridge does not answer."""
        return InputRequiredResult(input_requests={"roots": ListRootsRequest()}, request_state="roots")

    return server


if __name__ == "__main__":
    build().run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
