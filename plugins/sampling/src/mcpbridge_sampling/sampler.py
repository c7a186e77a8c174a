"""One sampling request answered by a chat model: the limits checked, the model chosen and
called, the reply converted, and a GenAI `chat` span with the token usage. Prompts and
replies never reach a span, a log or an error message; a model's own error text reaches only
the log."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from mcp.types import CreateMessageRequestParams, CreateMessageResult
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from mcpbridge import CallBudgets, describe
from mcpbridge_sampling import semconv
from mcpbridge_sampling.convert import Unsupported, call_options, to_messages, to_result, usage
from mcpbridge_sampling.models import ModelChooser
from mcpbridge_sampling.settings import SamplingSettings

_VERSION = "0.1.0"
logger = logging.getLogger(__name__)


class Refused(Exception):
    """This request is not answered; the message says why and which setting changes it."""


@dataclass(frozen=True, slots=True)
class Draft:
    """The model's answer to one request, before any review."""

    result: CreateMessageResult
    max_tokens: int
    usage: dict[str, int] = field(default_factory=dict)

    def report(self) -> dict[str, Any]:
        """What events may show: the model, limits and usage, never the text."""
        return {
            "model": self.result.model,
            "max_tokens": self.max_tokens,
            "stop_reason": self.result.stop_reason,
            **self.usage,
        }


class Sampler:
    """Answers sampling requests for one bridge's settings (shared by its calls)."""

    def __init__(self, settings: SamplingSettings) -> None:
        self.settings = settings
        self.chooser = ModelChooser(settings)
        self.budgets = CallBudgets(settings.max_requests)
        """What each call in flight may still ask mid-call (legacy protocol)."""
        self._tracer = trace.get_tracer(semconv.INSTRUMENTATION_NAME, _VERSION, settings.tracer_provider)

    def check_server(self, server_name: str) -> None:
        """Refuse a server that may not ask."""
        if self.settings.model is None:
            raise Refused("asked for sampling, but no model answers it: set `model` in [plugins.sampling]")
        if not self.settings.allows(server_name):
            raise Refused(
                f"asked for sampling, but server {server_name!r} may not: add it to `servers` in [plugins.sampling]"
            )

    async def draft(self, server_name: str, params: CreateMessageRequestParams) -> Draft:
        """The model's answer to `params`; `Refused` when it may not or could not be given."""
        self.check_server(server_name)
        try:
            messages = to_messages(params)
            chosen = self.chooser.choose(params.model_preferences)
        except (Unsupported, ValueError) as exc:  # ConfigError is a ValueError too
            raise Refused(f"asked for sampling, but {exc}") from None
        max_tokens = min(params.max_tokens, self.settings.max_tokens)
        options = call_options(params, max_tokens)
        with self._tracer.start_as_current_span(
            f"{semconv.CHAT} {chosen.name}", kind=SpanKind.CLIENT, record_exception=False, set_status_on_exception=False
        ) as span:
            span.set_attributes(semconv.request_attributes(server_name, chosen.name, chosen.provider, options))
            try:
                reply = await asyncio.wait_for(chosen.model.ainvoke(messages, **options), self.settings.timeout)
            except TimeoutError:
                _failed(span, "timeout")
                raise Refused(
                    f"asked for sampling, and model {chosen.name!r} did not answer within {self.settings.timeout} s "
                    "(`timeout` in [plugins.sampling])"
                ) from None
            except Exception as exc:
                # Provider errors may quote keys or the prompt: the server and the agent get
                # the kind of failure; the details go to the (redacted) log.
                _failed(span, type(exc).__qualname__)
                logger.warning(
                    "mcpbridge-sampling: model %r failed for server %r: %s", chosen.name, server_name, describe(exc)
                )
                raise Refused(
                    f"asked for sampling, and model {chosen.name!r} failed ({type(exc).__qualname__}; see the log)"
                ) from None
            try:
                result, used = to_result(reply, chosen.name), usage(reply)
            except ValueError as exc:  # a reply MCP cannot carry (a lone surrogate in its text)
                _failed(span, type(exc).__qualname__)
                raise Refused(
                    f"asked for sampling, and model {chosen.name!r} gave a reply MCP cannot carry "
                    f"({type(exc).__qualname__})"
                ) from None
            span.set_attributes(semconv.response_attributes(result, used))
        return Draft(result, max_tokens, used)


def _failed(span: trace.Span, error_type: str) -> None:
    span.set_attribute(semconv.ERROR_TYPE, error_type)
    span.set_status(Status(StatusCode.ERROR))
