"""What can travel as UTF-8 JSON: values that would fail inside the shared transport
(a lone surrogate, NaN, an infinity) break the session for every caller, so they are found
before anything is sent, wherever they came from: the model's arguments (checked once,
before the chain), what an interceptor put in their place (an approval edit), answers to a
server's questions (elicitation), and what the client answers a server's own requests
(sampling, roots, legacy elicitation). A message that still cannot travel, whoever built it
(a raw request through `bridge.session()`, `bridge.request`), fails only itself at the
session's door (`refusing_unsendable`)."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from mcp import MCPError
from mcp.client.session import ClientSession
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, ErrorData
from pydantic import BaseModel
from pydantic_core import to_json, to_jsonable_python

from mcpbridge._base.config import SENDABLE_DEPTH
from mcpbridge._base.pipeline import ToolCallRequest
from mcpbridge._base.tool_errors import InvalidToolArguments

logger = logging.getLogger(__name__)

_WIRE = json.JSONEncoder(ensure_ascii=False, allow_nan=False, default=to_jsonable_python)
"""Built once (`json.dumps` with options builds an encoder per call); `default` lets through
what pydantic, which serializes the request, can send (datetimes, UUIDs, models)."""


def wire_problems(arguments: Mapping[str, Any], limit: int | None = None, *, nesting: bool = False) -> str | None:
    """Why `arguments` cannot be sent: they are not UTF-8 JSON (a lone surrogate, NaN or an
    infinity, an integer too long to print, a cycle, an object JSON cannot carry), with a
    `limit` are larger than `limit` bytes, or with `nesting` nest deeper than the SDK can
    serialize (`SENDABLE_DEPTH`; the model's arguments are held to `max_argument_depth`
    before the chain instead); None when they can. A value that reaches the transport and
    fails there breaks the session for every caller sharing it, so this runs before the
    request is built."""
    try:
        size = len(_WIRE.encode(arguments).encode("utf-8"))
    except (ValueError, TypeError, RecursionError) as exc:
        return f"{_first_unsendable(arguments)}cannot be sent as UTF-8 JSON ({type(exc).__name__})"
    if limit is not None and size > limit:
        return f"they are {size} bytes, over max_argument_bytes={limit} (the server was not called)"
    if nesting:
        return nesting_problem(arguments, SENDABLE_DEPTH, "the mcp SDK's serializable depth")
    return None


def nesting_problem(value: Any, max_depth: int, bound: str = "max_argument_depth") -> str | None:
    """Why `value` nests deeper than `max_depth` (the setting or limit `bound` names): too
    deep to be checked (the validator recurses per level) or sent; None when it does not.
    Level by level, without recursion, so a deep value cannot exhaust the stack."""
    level = [value]
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            return f"the value nests more than {max_depth} levels deep, over {bound}={max_depth}"
        level = [
            item
            for node in level
            for item in (node.values() if type(node) is dict else node)
            if type(item) in CONTAINERS
        ]
    return None


CONTAINERS = frozenset({dict, list, tuple})
"""The types `nesting_problem` walks into: what JSON carries as objects and arrays."""


def _first_unsendable(value: Any, path: str = "", depth: int = 0) -> str:
    """`path: ` of the first value that cannot be sent (best effort, only on the error path)."""
    here = f"{path}: " if path else ""
    if depth > 100:
        return here
    if isinstance(value, (Mapping, list, tuple)):
        for key, item in value.items() if isinstance(value, Mapping) else enumerate(value):
            name = str(key) if _sendable(str(key)) else ascii(key)
            where = f"{path}/{name}" if path else name
            found = f"{where}: " if name != str(key) else _first_unsendable(item, where, depth + 1)
            if found:
                return found
        return ""
    # a lone surrogate, NaN or an infinity, an integer with too many digits to print
    return "" if not isinstance(value, (str, float, int)) or _sendable(value) else here


def _sendable(value: Any) -> bool:
    try:
        _WIRE.encode(value).encode("utf-8")
    except ValueError:
        return False
    return True


def refusal(request: ToolCallRequest, what: str, problem: str) -> InvalidToolArguments:
    """The error refusing `request` because its `what` ("arguments", "answers", ...) cannot be
    sent: worded once for every way into a server, naming the tool as the caller knows it."""
    shown = request.display_name or request.name
    return InvalidToolArguments(
        f"Invalid {what} for tool {shown!r}: {problem}", server_name=request.server_name, name=request.name
    )


def check_sendable(request: ToolCallRequest, limit: int | None) -> None:
    """Raise `InvalidToolArguments` when part of what `request` sends cannot be sent: its
    arguments (unless they are the very ones checked before the chain), its answers to the
    server's questions (both within `limit` bytes), the state and task id it echoes, its
    `_meta`. Called before the shared transport sees it, whichever interceptor put it there."""
    parts: tuple[tuple[str, Any, int | None, bool], ...] = (
        ("arguments", request.args is not request._sendable_args and request.args, limit, True),
        ("answers", request.input_responses and _plain(request.input_responses), limit, True),
        ("state", request.request_state is not None and {"request_state": request.request_state}, None, False),
        ("task id", isinstance(request.task, str) and {"task": request.task}, None, False),
        ("_meta", request.meta, None, True),
    )
    for what, value, within, nesting in parts:
        if value and (problem := wire_problems(value, within, nesting=nesting)):
            raise refusal(request, what, problem)


def sendable_answers(callback: Callable[..., Awaitable[Any]], server: str, limit: int | None) -> Callable[..., Any]:
    """`callback` (a client callback answering a server's request: sampling, roots,
    elicitation), with its answer checked: one that cannot be sent becomes an error answer
    naming the problem, so the server hears why and the session stays up for everyone."""

    async def answer(*args: Any, **kwargs: Any) -> Any:
        reply = await callback(*args, **kwargs)
        if not isinstance(reply, BaseModel) or isinstance(reply, ErrorData):
            return reply
        if (problem := wire_problems(_plain(reply), limit, nesting=True)) is None:
            return reply
        logger.warning("mcpbridge: the answer to a request of server %r cannot be sent: %s", server, problem)
        return ErrorData(code=INTERNAL_ERROR, message=f"mcpbridge: the client's answer cannot be sent: {problem}")

    return answer


def _plain(value: Any) -> Any:
    """Models as dicts (by their wire names), so a problem is found with its path."""
    if isinstance(value, BaseModel):
        return value.model_dump(by_alias=True, exclude_none=True)
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    return value


def unsendable_message(message: BaseModel, server: str) -> str | None:
    """Why `message` (a request, notification or answer for `server`) cannot travel as UTF-8
    JSON, else None. Serialized by pydantic as the transports serialize it (cheap enough for
    every message); the value at fault is looked for only when there is one."""
    try:
        to_json(message)
    except (ValueError, RecursionError) as exc:
        return unsendable_text(message, server, exc)
    return None


def unsendable_text(message: BaseModel, server: str, exc: BaseException) -> str:
    """The words for `message`, which serializing failed with `exc`: the same whichever
    transport or door found it."""
    try:
        where = _first_unsendable(_plain(message)).removesuffix(": ")
    except (ValueError, RecursionError):  # too deep to walk: said without a path
        where = ""
    return (
        f"a message for MCP server {server!r} cannot be sent as UTF-8 JSON ({type(exc).__name__}); it was not sent"
        + (f" (the value at {where})" if where else "")
    )


def refusing_unsendable(session: ClientSession, server: str) -> ClientSession:
    """`session`, refusing at its door what cannot travel as UTF-8 JSON, before any transport
    sees it: a request raises `MCPError` (invalid params) in its sender alone, a notification
    is dropped with a warning. Over streamable HTTP and SSE such a message would fail inside
    the transport's writer and end the session for every caller; in-process it would reach
    the server though no wire could carry it. Every public sending method of the session
    (`call_tool`, `read_resource`, `get_prompt`, ...) passes through these two. The request
    check is a plain function handing back the SDK's own coroutine: it adds no frame to the
    call (every sender awaits what it returns at once)."""
    send_request, send_notification = session.send_request, session.send_notification

    def checked_request(request: BaseModel, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        if (problem := unsendable_message(request, server)) is not None:
            raise MCPError(code=INVALID_PARAMS, message=f"mcpbridge: {problem}")
        return send_request(request, *args, **kwargs)  # type: ignore[arg-type]

    async def checked_notification(notification: BaseModel) -> None:
        if (problem := unsendable_message(notification, server)) is not None:
            logger.warning("mcpbridge: %s; dropped it", problem)
            return
        await send_notification(notification)  # type: ignore[arg-type]

    setattr(session, "send_request", checked_request)  # noqa: B010 - the instance's own, not the class's
    setattr(session, "send_notification", checked_notification)  # noqa: B010
    return session
