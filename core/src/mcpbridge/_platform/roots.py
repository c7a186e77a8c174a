"""Roots: the `file://` locations a server may work in, configured per server
(`roots = ["file:///srv/project"]`) and changed at runtime with `MCPBridge.set_roots()`.

A legacy (2025-11-25) server asks with `roots/list` and is told of changes with
`notifications/roots/list_changed`. The modern protocol (2026-07-28) deprecates roots: a
modern server asks within a tool call, with an `InputRequiredResult` whose requests are
`roots/list`; the bridge answers those questions itself, next to the server (no person is
needed), also when the round asks something else too (see `Roots.answering`). Only servers with `roots`
configured are told the client has roots.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from mcp.client.session import ClientSession
from mcp.types import InputRequiredResult, ListRootsRequest, ListRootsResult, Root, RootsListChangedNotification
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from mcpbridge._base.pipeline import ToolCallHandler, ToolCallRequest

MAX_ROOTS_ROUNDS = 8
"""Rounds of roots questions answered for one call before the result goes up as it is."""
MAX_PENDING = 256
"""Rounds whose roots questions wait for the other answers (a person's), per server."""


class RootConfig(BaseModel):
    """One root: a `file://` URI and an optional name shown to the server."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    uri: str
    name: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        return {"uri": data} if isinstance(data, str) else data

    @field_validator("uri")
    @classmethod
    def _file_uri(cls, uri: str) -> str:
        parts = urlsplit(uri)
        if parts.scheme != "file" or not parts.path.startswith("/"):
            raise ValueError(
                f"root {uri!r} is not a file:// URI with an absolute path (MCP roots are file:// URIs only), "
                'e.g. "file:///home/me/project"'
            )
        if parts.query or parts.fragment:
            raise ValueError(f"root {uri!r} has a query or fragment, which a file:// root cannot have")
        return uri


class Roots:
    """The current roots of one server: what `roots/list` answers."""

    def __init__(self, server_name: str, roots: Iterable[RootConfig]) -> None:
        self.server_name = server_name
        self._pending: OrderedDict[str, list[str]] = OrderedDict()
        """`request_state` → the roots questions taken out of that round."""
        self.set(roots)

    def set(self, roots: Iterable[RootConfig]) -> None:
        self._result = ListRootsResult(roots=[Root.model_validate(r.model_dump(exclude_none=True)) for r in roots])

    @property
    def result(self) -> ListRootsResult:
        return self._result

    async def list_roots(self, context: Any) -> ListRootsResult:
        """The mcp Client's `list_roots_callback`."""
        return self._result

    def client_options(self) -> Mapping[str, Any]:
        return {"list_roots_callback": self.list_roots}

    def answering(self, terminal: ToolCallHandler) -> ToolCallHandler:
        """`terminal` that answers a modern server's roots questions itself: a round of roots
        questions only is answered at once; from a round that also asks something else (a
        person, a model) the roots questions are taken out before it goes up the chain, and
        answered when the next round comes down with the same `request_state`."""

        async def send(request: ToolCallRequest) -> Any:
            result = await terminal(self._with_pending(request))
            for _ in range(MAX_ROOTS_ROUNDS):
                asked = _roots_keys(result)
                if not asked:
                    break
                if len(asked) < len(result.input_requests):
                    return self._postpone(result, asked)
                responses = {key: self._result for key in asked}
                result = await terminal(request.override(input_responses=responses, request_state=result.request_state))
            return result

        return send

    def _postpone(self, result: InputRequiredResult, asked: list[str]) -> InputRequiredResult:
        if result.request_state is None:
            return result  # nothing to match the next round by: it goes up as it is
        self._pending[result.request_state] = asked
        while len(self._pending) > MAX_PENDING:
            self._pending.popitem(last=False)
        others = {key: value for key, value in (result.input_requests or {}).items() if key not in asked}
        return result.model_copy(update={"input_requests": others})

    def _with_pending(self, request: ToolCallRequest) -> ToolCallRequest:
        keys = self._pending.pop(request.request_state, None) if request.request_state is not None else None
        if keys is None:
            return request
        responses = {**(request.input_responses or {}), **{key: self._result for key in keys}}
        return request.override(input_responses=responses)


async def roots_changed(session: ClientSession) -> None:
    """Tell a legacy server its roots changed; the modern protocol has no such notification."""
    if session.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        await session.send_notification(RootsListChangedNotification())


def _roots_keys(result: Any) -> list[str]:
    """The keys of the roots questions in an `InputRequiredResult` (none for anything else)."""
    if not isinstance(result, InputRequiredResult):
        return []
    return [key for key, asked in (result.input_requests or {}).items() if isinstance(asked, ListRootsRequest)]
