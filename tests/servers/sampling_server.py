"""An MCP server whose tools ask the client's model (`sampling/createMessage`).

`summarize` asks through the SDK's `Resolve(Sample(...))`, which follows the negotiated
protocol: on 2026-07-28 the request rides an `InputRequiredResult` round, on 2025-11-25 it
is sent mid-call. `ask_times` asks mid-call (legacy protocol only); the other tools build
their rounds by hand (modern protocol only).

Run as `python -m tests.servers.sampling_server [stdio|streamable-http]`.
"""

from __future__ import annotations

import sys
from typing import Annotated, Any

from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Resolve, Sample
from mcp.types import (
    CreateMessageRequest,
    CreateMessageRequestParams,
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    ImageContent,
    InputRequiredResult,
    ModelHint,
    ModelPreferences,
    SamplingMessage,
    TextContent,
)

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
"""A one-pixel PNG, base64."""

ASKED_MAX_TOKENS = 4000
"""What `summarize` asks for: more than the plugin's default cap (1024)."""


def user(text: str) -> SamplingMessage:
    return SamplingMessage(role="user", content=TextContent(text=text))


def ask_summary(text: str, hint: str = "") -> Sample:
    preferences = ModelPreferences(hints=[ModelHint(name=hint)], speed_priority=0.5) if hint else None
    return Sample(
        [user(f"Summarize: {text}")],
        max_tokens=ASKED_MAX_TOKENS,
        system_prompt="You summarize in one line.",
        temperature=0.2,
        model_preferences=preferences,
    )


def sampled(prompt: str) -> CreateMessageRequest:
    return CreateMessageRequest(params=CreateMessageRequestParams(messages=[user(prompt)], max_tokens=50))


def text_of(reply: Any) -> str:
    content = getattr(reply, "content", None)
    return content.text if isinstance(content, TextContent) else f"<no answer: {reply!r}>"


def build() -> MCPServer:
    server = MCPServer("sampling")

    @server.tool()
    def summarize(text: str, summary: Annotated[CreateMessageResult, Resolve(ask_summary)], hint: str = "") -> str:
        """Summarize a text with the client's model (`hint` names a preferred model)."""
        return f"summary by {summary.model}: {text_of(summary)}"

    @server.tool()
    def caption(ctx: Context) -> str | InputRequiredResult:
        """Asks the model to caption an image; an earlier assistant turn comes along."""
        reply = (ctx.input_responses or {}).get("caption")
        if reply is None:
            image = ImageContent(data=PIXEL, mime_type="image/png")
            conversation = [
                SamplingMessage(role="user", content=[TextContent(text="Caption this:"), image]),
                SamplingMessage(role="assistant", content=TextContent(text="Sure.")),
                user("Keep it short."),
            ]
            params = CreateMessageRequestParams(messages=conversation, max_tokens=20, stop_sequences=["\n"])
            return InputRequiredResult(
                input_requests={"caption": CreateMessageRequest(params=params)}, request_state="c"
            )
        return f"caption ({getattr(reply, 'stop_reason', None)}): {text_of(reply)}"

    @server.tool()
    def summarize_and_confirm(text: str, ctx: Context) -> str | InputRequiredResult:
        """One round asks the model for a summary and the person to confirm it."""
        answers = ctx.input_responses or {}
        summary, confirm = answers.get("summary"), answers.get("confirm")
        if summary is None or confirm is None:
            confirm_question = ElicitRequest(
                params=ElicitRequestFormParams(
                    message="Publish the summary?",
                    requested_schema={"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]},
                )
            )
            return InputRequiredResult(
                input_requests={"summary": sampled(f"Summarize: {text}"), "confirm": confirm_question},
                request_state="publish",
            )
        if ctx.request_state != "publish":
            return f"refused: request_state {ctx.request_state!r} was not echoed"
        ok = isinstance(confirm, ElicitResult) and confirm.action == "accept" and (confirm.content or {}).get("ok")
        return f"{'published' if ok else 'kept'}: {text_of(summary)}"

    @server.tool()
    def brainstorm(rounds: int, ctx: Context) -> str | InputRequiredResult:
        """Asks the model once per round, `rounds` times; the ideas travel in request_state."""
        ideas = [part for part in (ctx.request_state or "").removeprefix("ideas:").split("|") if part]
        reply = (ctx.input_responses or {}).get("idea")
        if reply is not None:
            ideas.append(text_of(reply))
        if len(ideas) < rounds:
            return InputRequiredResult(
                input_requests={"idea": sampled(f"Idea number {len(ideas) + 1}?")},
                request_state="ideas:" + "|".join(ideas),
            )
        return "ideas: " + ", ".join(ideas)

    @server.tool()
    async def ask_times(times: int, ctx: Context) -> str:
        """Legacy protocol: asks the client's model `times` times mid-call, as servers written
        before 2026-07-28 do; says how many were answered, and why the next one was not."""
        for answered in range(times):
            try:
                await ctx.session.create_message(messages=[user("Another idea?")], max_tokens=5)
            except MCPError as exc:
                return f"answered {answered}; then refused: {exc.error.message}"
        return f"answered {times}"

    return server


if __name__ == "__main__":
    build().run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
