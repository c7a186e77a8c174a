"""The elicitation interceptor: turn a server's `InputRequiredResult` into an interrupt and
re-call the tool with the person's answers, round after round."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.tools import ToolException
from mcp.types import ElicitRequest, InputRequiredResult

from mcpbridge import ToolCallHandler, ToolCallRequest
from mcpbridge.interrupts import pause
from mcpbridge_elicitation.answers import PAYLOAD_TYPE, answers_checker, answers_schema, as_results, describe_requests
from mcpbridge_elicitation.settings import Settings

ARTIFACT_TYPE = "mcpbridge_elicitation"


class ElicitationInterceptor:
    """Answers a server's questions by pausing the agent; the server gets them on the next round.

    On resume LangGraph re-runs the tool from the top, so the call starts again from its
    first round and earlier answers are replayed: work a server does before asking repeats.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        where = f"tool {request.name!r} on server {request.server_name!r}"
        current, delay, rounds = request, self.settings.backoff_initial, 0
        actions: list[dict[str, str]] = []
        while True:
            result = await handler(current)
            if not isinstance(result, InputRequiredResult):
                if rounds:
                    request.artifact.append({"type": ARTIFACT_TYPE, "rounds": rounds, "answers": actions})
                return result
            rounds += 1
            self._check_round(result, rounds, where, request.server_name)
            questions = result.input_requests or {}
            request.notify(
                "elicitation.round", server=request.server_name, tool=request.name, round=rounds, keys=sorted(questions)
            )
            if not questions:  # a continuation: the server is still working on its state
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.settings.backoff_max)
                current = current.override(input_responses=None, request_state=result.request_state)
                continue
            answers = self._ask(
                request, {k: q for k, q in questions.items() if isinstance(q, ElicitRequest)}, rounds, where
            )
            actions.append({key: answer["action"] for key, answer in answers.items()})
            current = current.override(input_responses=as_results(answers), request_state=result.request_state)

    def _check_round(self, result: InputRequiredResult, rounds: int, where: str, server: str) -> None:
        if not self.settings.enabled_for(server):
            raise ToolException(
                f"MCP {where} asked for user input, but elicitation is off for server {server!r} "
                f"([plugins.elicitation.servers.{server}] elicitation = false)"
            )
        if rounds > self.settings.max_rounds:
            raise ToolException(
                f"MCP {where} still asked for input after {self.settings.max_rounds} rounds; stopped "
                "(raise `max_rounds` in [plugins.elicitation] if the server legitimately needs more)"
            )
        other = sorted(key for key, q in (result.input_requests or {}).items() if not isinstance(q, ElicitRequest))
        if other:
            raise ToolException(
                f"MCP {where} asked for {other} (sampling or roots), which mcpbridge does not answer: "
                "only elicitation (form and url questions) is supported"
            )

    @staticmethod
    def _ask(request: ToolCallRequest, questions: dict[str, ElicitRequest], rounds: int, where: str) -> Any:
        shown = describe_requests(questions)
        payload = {
            "type": PAYLOAD_TYPE,
            "server": request.server_name,
            "tool": request.name,
            "tool_call_id": getattr(request.runtime, "tool_call_id", None),
            "arguments": dict(request.args),
            "round": rounds,
            "requests": shown,
        }
        return pause(
            payload,
            purpose=f"MCP {where}, which asked for user input,",
            check=answers_checker(shown, where),
            schema=answers_schema(shown),
        )
