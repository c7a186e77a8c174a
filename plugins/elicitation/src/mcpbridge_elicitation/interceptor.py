"""The elicitation interceptor: turn a server's `InputRequiredResult` into an interrupt and
re-call the tool with the person's answers, round after round."""

from __future__ import annotations

import asyncio
from typing import Any

from langchain_core.tools import ToolException
from mcp.types import ElicitRequest, InputRequiredResult

from mcpbridge import ToolCallHandler, ToolCallRequest
from mcpbridge._interrupts import pause
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
        result = await handler(request)
        if not isinstance(result, InputRequiredResult):
            return result  # the common case: the server did not ask
        where = f"tool {request.name!r} on server {request.server_name!r}"
        current, delay, rounds = request, self.settings.backoff_initial, 0
        actions: list[dict[str, str]] = []
        while isinstance(result, InputRequiredResult):
            rounds += 1
            questions = self._questions(result, rounds, where, request.server_name)
            request.notify(
                "elicitation.round", server=request.server_name, tool=request.name, round=rounds, keys=sorted(questions)
            )
            if questions:
                answers = self._ask(request, questions, rounds, where)
                actions.append({key: answer["action"] for key, answer in answers.items()})
                current = current.override(input_responses=as_results(answers), request_state=result.request_state)
            else:  # a continuation: the server is still working on its state
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.settings.backoff_max)
                current = current.override(input_responses=None, request_state=result.request_state)
            result = await handler(current)
        request.artifact.append({"type": ARTIFACT_TYPE, "rounds": rounds, "answers": actions})
        return result

    def _questions(self, result: InputRequiredResult, rounds: int, where: str, server: str) -> dict[str, ElicitRequest]:
        """The round's questions, or a ToolException when this round must not be answered."""
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
        requests = result.input_requests or {}
        questions = {key: q for key, q in requests.items() if isinstance(q, ElicitRequest)}
        other = sorted(set(requests) - set(questions))
        if other:
            raise ToolException(
                f"MCP {where} asked for {other} (sampling or roots), which mcpbridge does not answer: "
                "only elicitation (form and url questions) is supported"
            )
        return questions

    @staticmethod
    def _ask(
        request: ToolCallRequest, questions: dict[str, ElicitRequest], rounds: int, where: str
    ) -> dict[str, dict[str, Any]]:
        shown = describe_requests(questions)
        payload = {
            "type": PAYLOAD_TYPE,
            "server": request.server_name,
            "tool": request.name,
            "tool_call_id": request.tool_call_id,
            "arguments": dict(request.args),
            "round": rounds,
            "requests": shown,
        }
        answers: dict[str, dict[str, Any]] = pause(
            payload,
            purpose=f"MCP {where}, which asked for user input,",
            check=answers_checker(shown, where),
            schema=answers_schema(shown),
        )
        return answers
