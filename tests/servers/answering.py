"""A plugin object that answers servers' legacy (mid-call) elicitation requests, for tests."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp.types import ElicitResult

from mcpbridge import Plugin, hookimpl

Answer = Callable[[Any, Any], Awaitable[ElicitResult]]


async def pick_a_date(context: Any, params: Any) -> ElicitResult:
    """A person picking a date (what tests.plugins.elicitation.elicit_servers' `book` asks)."""
    return ElicitResult(action="accept", content={"date": "2030-01-02"})


class Answering:
    """Gives the mcp Client an `elicitation_callback`: `answer(context, params)`."""

    mcpbridge_name = "answering"
    mcpbridge_plugin = Plugin(answers=("elicitation",))

    def __init__(self, answer: Answer = pick_a_date) -> None:
        self.answer = answer

    @hookimpl
    def mcpbridge_client_options(self) -> dict[str, Any]:
        return {"elicitation_callback": self.answer}
