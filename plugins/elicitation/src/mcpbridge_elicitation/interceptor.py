"""The elicitation interceptor: turn a server's `InputRequiredResult` into an interrupt and
re-call the tool with the person's answers, round after round."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from mcp.types import ElicitRequest, ElicitResult, InputRequiredResult

from mcpbridge import CallBudgets, ToolCallError, ToolCallHandler, ToolCallRequest, capability_of, split_round
from mcpbridge_elicitation import ARTIFACT_TYPE
from mcpbridge_elicitation.answers import ELICITATION, answers_schema, describe_requests
from mcpbridge_elicitation.settings import ElicitationSettings


class ElicitationInterceptor:
    """Answers a server's questions by pausing the agent; the server gets them on the next round.

    On resume LangGraph re-runs the tool from the top, so the call starts again from its
    first round and earlier answers are replayed: work a server does before asking repeats.
    """

    def __init__(self, settings: ElicitationSettings, budgets: CallBudgets | None = None) -> None:
        self.settings = settings
        self.budgets = budgets
        """The legacy questions each call may still have answered (`max_rounds`), when given."""

    def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Awaitable[Any]:
        """The call's rounds answered; with `on_elicitation`, with the budget of the questions a
        legacy server may ask during it. No frame of this method either way."""
        answering = self._answered(request, handler)
        if self.budgets is None or self.settings.on_elicitation is None:  # nothing answers legacy questions
            return answering
        return self.budgets.during(request.server_name, answering)

    async def _answered(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        result = await handler(request)
        if not isinstance(result, InputRequiredResult):
            return result  # the common case: the server did not ask
        current, delay, rounds = request, self.settings.backoff_initial, 0
        actions: list[dict[str, str]] = []
        while isinstance(result, InputRequiredResult):
            rounds += 1
            questions = self._questions(request, result, rounds)
            request.notify(
                "elicitation.round",
                server_name=request.server_name,
                name=request.name,
                round=rounds,
                keys=sorted(questions),
            )
            if questions:
                shown = describe_requests(questions)
                details = {"arguments": dict(request.args), "round": rounds, "requests": shown}
                answers = ELICITATION.ask(request, details, schema=answers_schema(shown))
                actions.append({key: answer["action"] for key, answer in answers.items()})
                responses = {key: ElicitResult.model_validate(answer) for key, answer in answers.items()}
                current = current.override(input_responses=responses, request_state=result.request_state)
            else:  # a continuation: the server is still working on its state
                await asyncio.sleep(delay)
                delay = min(delay * 2, self.settings.backoff_max)
                current = current.override(input_responses=None, request_state=result.request_state)
            result = await handler(current)
        request.artifact.append({"type": ARTIFACT_TYPE, "rounds": rounds, "answers": actions})
        return result

    def _questions(
        self, request: ToolCallRequest, result: InputRequiredResult, rounds: int
    ) -> dict[str, ElicitRequest]:
        """The round's questions, or a ToolCallError when this round must not be answered."""
        if request.server_name in self.settings.skip_servers:
            raise ToolCallError.about(
                request,
                f"asked for user input, but elicitation is off for server {request.server_name!r} "
                "(`skip_servers` in [plugins.elicitation])",
            )
        if rounds > self.settings.max_rounds:
            raise ToolCallError.about(
                request,
                f"still asked for input after {self.settings.max_rounds} rounds; stopped "
                "(raise `max_rounds` in [plugins.elicitation] if the server legitimately needs more)",
            )
        questions, unanswered = split_round(result, "elicitation")
        # Plugins that answer other requests (sampling, roots) sit inside this one and take
        # theirs out of the round; what is left, nobody answered.
        other = {capability_of(asked) or asked.method for asked in unanswered.values()}
        if other:
            kinds = ", ".join(sorted(other))
            raise ToolCallError.about(
                request,
                f"asked for {kinds} ({sorted(unanswered)}), which no enabled plugin answered: "
                f"enable one that declares `Plugin(answers=({sorted(other)[0]!r},))` (sampling: mcpbridge-sampling, "
                "roots: mcpbridge-roots; see `mcpbridge plugins`)",
            )
        return questions
