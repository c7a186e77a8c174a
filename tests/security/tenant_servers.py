"""Two servers that several users share, whose every answer quotes what its caller sent (a
marker naming the caller), so a test can tell whose a text is wherever it turns up.

`desk` (any protocol; its questions need the modern one): `lookup` (read-only, for the cache:
a serial number and the `x-user` header it came with), `fail` (an error quoting its
argument), `confirm` (asks the user for a note, `InputRequiredResult`), `summarize` (asks the
client's model), `grant` (destructive, for approval). `jobs` (legacy, MCP tasks): `job`, a
task whose status and result quote its argument, and `summarize`, asking mid-call.
`python tests/security/tenant_servers.py desk|jobs` serves one over stdio.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.resolve import Resolve, Sample
from mcp.types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from mcpbridge_demo.task_server import Status, TaskTools

NOTE_SCHEMA = {"type": "object", "properties": {"note": {"type": "string"}}, "required": ["note"]}


def ask_summary(text: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(text=f"Summarize: {text}"))], max_tokens=100)


def caller(ctx: Context) -> str:
    """The `x-user` header the call came with (HTTP only)."""
    return str((ctx.headers or {}).get("x-user", "nobody"))


def summarize(text: str, summary: Annotated[CreateMessageResult, Resolve(ask_summary)], ctx: Context) -> str:
    """Summarize a text with the client's model."""
    assert isinstance(summary.content, TextContent)
    return f"summary of {text} for {caller(ctx)}: {summary.content.text}"


def build_desk() -> MCPServer:
    desk = MCPServer("desk")
    served = itertools.count(1)

    @desk.tool(annotations=ToolAnnotations(read_only_hint=True))
    def lookup(topic: str, ctx: Context) -> str:
        """Read-only; the same topic gets a new serial number at every call that reaches it."""
        return f"{topic} #{next(served)} for {caller(ctx)}"

    @desk.tool()
    def fail(marker: str, ctx: Context) -> str:
        """Always an error, quoting its argument."""
        raise ToolError(f"cannot do {marker} for {caller(ctx)}")

    @desk.tool()
    def confirm(marker: str, ctx: Context) -> str | InputRequiredResult:
        """Asks the user for a note first; the answer quotes the note and the echoed state."""
        reply = (ctx.input_responses or {}).get("note")
        if not isinstance(reply, ElicitResult):
            question = ElicitRequestFormParams(message=f"a note for {marker}?", requested_schema=NOTE_SCHEMA)
            return InputRequiredResult(
                input_requests={"note": ElicitRequest(params=question)}, request_state=f"confirming {marker}"
            )
        return f"confirmed {marker} ({ctx.request_state}) for {caller(ctx)}: {reply.action} {reply.content}"

    desk.tool()(summarize)

    @desk.tool(annotations=ToolAnnotations(destructive_hint=True))
    def grant(marker: str, ctx: Context) -> str:
        """A write that needs a person's approval."""
        return f"granted {marker} for {caller(ctx)}"

    return desk


async def job(status: Status, marker: str) -> str:
    status(f"working on {marker}")
    await asyncio.sleep(0.05)  # the task's work: its status is there to be polled
    return f"job done for {marker}"


def build_jobs() -> MCPServer:
    jobs = MCPServer("jobs", middleware=[TaskTools({"job": job}, {"job": "required"}, poll_ms=20)])

    @jobs.tool(name="job", structured_output=False)
    def listed_job(marker: str) -> str:
        """A job that runs as an MCP task only."""
        raise AssertionError("runs as a task only")

    jobs.tool()(summarize)
    return jobs


BUILD = {"desk": build_desk, "jobs": build_jobs}

if __name__ == "__main__":
    BUILD[sys.argv[1]]().run()
