"""A FastMCP (PyPI `fastmcp`, 4.x) server for the third-party tier; runs in its own venv
(`.venvs/fastmcp-<version>`). `fastmcp_app.py stdio`, or `fastmcp_app.py http PORT [TOKEN]`
(streamable HTTP on 127.0.0.1; with TOKEN, a bearer token is required)."""

from __future__ import annotations

import sys

from fastmcp import Context, FastMCP
from pydantic import BaseModel


class Forecast(BaseModel):
    city: str
    celsius: float


def build(auth: object = None) -> FastMCP:
    app = FastMCP("fastmcp-app", auth=auth)  # type: ignore[arg-type]

    @app.tool
    def forecast(city: str) -> Forecast:
        """The forecast for a city (structured output)."""
        return Forecast(city=city, celsius=19.5)

    @app.tool
    async def crunch(steps: int, ctx: Context) -> str:
        """Reports progress per step and logs as it goes."""
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step} of {steps}")
            await ctx.info(f"crunched step {step}")
        return f"crunched {steps} steps"

    @app.tool
    async def ask_name(ctx: Context) -> str:
        """Asks the user for a name (elicitation)."""
        answer = await ctx.elicit("What is your name?", response_type=str)
        return f"hello {answer.data}" if answer.action == "accept" else f"no name ({answer.action})"

    @app.resource("config://app")
    def config() -> str:
        """The app's configuration."""
        return "mode=test"

    @app.resource("users://{user_id}/profile")
    def profile(user_id: str) -> str:
        """A user's profile."""
        return f"profile of {user_id}"

    @app.prompt
    def review(code: str) -> str:
        """Asks for a code review."""
        return f"Please review this code:\n{code}"

    return app


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        build().run(transport="stdio", show_banner=False)
    else:
        auth = None
        if len(sys.argv) > 3:
            from fastmcp.server.auth.providers.jwt import StaticTokenVerifier

            auth = StaticTokenVerifier(tokens={sys.argv[3]: {"client_id": "tests", "scopes": []}})
        build(auth).run(transport="http", host="127.0.0.1", port=int(sys.argv[2]), show_banner=False)
