"""Every private name of a dependency the bridge uses, and the only module that uses them.

Each is here because no public API does the job; each says what it is for. A release of the
dependency may rename or remove any of them: `tests/core/test_compat.py` uses each one, and
when one is gone it fails with `removed(...)`'s hint ("mcp 2.4.0 removed `...`: update
mcpbridge._compat"), and so does the first use of it. The names are looked up on first use,
so that importing this module (the plugin host does, and `mcpbridge --help` must not load mcp
or LangChain) costs nothing. Code elsewhere never names a dependency's private member; it
calls what is defined here. Keep the list short: a public API or a library that appears
later replaces an entry.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from importlib.metadata import version
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from mcp.client.session import ClientSession
    from mcp.os.win32.utilities import ServerProcess
    from mcp.types import ListToolsResult
    from pydantic import BaseModel

M = TypeVar("M", bound="BaseModel")


def removed(distribution: str, name: str) -> str:
    """The message for a private name that the installed `distribution` no longer has."""
    return (
        f"{distribution} {version(distribution)} removed `{name}`: update mcpbridge._compat "
        "(its docstrings say what each private name is for), or install the release it was written for"
    )


# -- mcp ------------------------------------------------------------------------------

close_subprocess_transport: Callable[[ServerProcess], None]
"""Closes the asyncio subprocess transport of a stopped stdio server, which otherwise stays
open (and warns when collected) while an escaped descendant holds a pipe. Nothing public
exposes that transport: the SDK reaches it through anyio's and asyncio's private attributes."""


async def send_raw_request(session: ClientSession, data: dict[str, Any], options: Any) -> dict[str, Any]:
    """Sends a request stamped as `ClientSession.send_request` stamps it (protocol headers,
    `_meta`), and returns the server's answer unparsed. `send_request` checks every answer
    against its method's result type for the negotiated version, so a task-augmented
    `tools/call` answered with a `CreateTaskResult` (protocol 2025-11-25, which mcp 2.3 has no
    client for) would fail there."""
    session._stamp(data, options)
    return await session._dispatcher.send_raw_request(data["method"], data.get("params"), options)


def answer_from_now_on(session: ClientSession, options: Mapping[str, Any]) -> None:
    """Gives an open modern session client options it was opened without (callbacks such as
    `elicitation_callback`, kept as `ClientSession._<option>`) and declares them from its next
    request on: a modern session declares its capabilities on every request, from what
    `adopt` computed, so adopting its discover result again declares them. No public API
    adds a callback once a session is built, and building it with them would declare them in
    a legacy `initialize` too, before the protocol is known."""
    for key, value in options.items():
        if not hasattr(session, f"_{key}"):
            raise ImportError(removed("mcp", f"ClientSession._{key}"))
        setattr(session, f"_{key}", value)
    assert session.discover_result is not None, "only a modern session is given options later"
    session.adopt(session.discover_result)


def absorb_tool_listing(session: ClientSession, result: ListToolsResult, *, complete: bool) -> ListToolsResult:
    """Lets `session` take in a `tools/list` page it did not parse itself (one read from the
    raw answer, see `send_raw_request`), as `ClientSession.list_tools` does with its own: it
    drops the tools the 2026-07-28 protocol says to drop and keeps what it checks calls
    against (output schemas). Nothing public hands a session a listing."""
    return session._absorb_tool_listing(result, complete=complete)


def leave_output_checks_to_the_bridge(session: ClientSession, names: tuple[str, ...] = ()) -> None:
    """Stops `session` checking tool results against the output schemas it listed (it keeps
    them as `ClientSession._tool_output_schemas`, compiled in `_tool_output_validators`) and
    those of the tools `names`: its jsonschema runs a server's `pattern` on Python's
    backtracking `re`, so a hostile server could hold the event loop; the bridge checks them
    instead (`mcpbridge._tools.arguments`). The names stay known, so the session does not list
    again to look them up. No public API turns the check off."""
    if not hasattr(session, "_tool_output_schemas") or not hasattr(session, "_tool_output_validators"):
        raise ImportError(removed("mcp", "ClientSession._tool_output_schemas / _tool_output_validators"))
    session._tool_output_schemas = dict.fromkeys((*session._tool_output_schemas, *names))
    session._tool_output_validators.clear()


def own_time_limit(session: ClientSession) -> float | None:
    """The time limit `session` was opened with for each request
    (`ClientSession(read_timeout_seconds=...)`, kept as `_session_read_timeout_seconds`), or
    None. Nothing public reads it back."""
    if not hasattr(session, "_session_read_timeout_seconds"):
        raise ImportError(removed("mcp", "ClientSession._session_read_timeout_seconds"))
    return session._session_read_timeout_seconds


# -- langgraph ------------------------------------------------------------------------

CONFIG_KEY_CHECKPOINTER: str
"""The run config's key for the graph's checkpointer: whether a paused run can be resumed."""
CONFIG_KEY_SCRATCHPAD: str
"""The run config's key for the task's scratchpad: present only inside a graph run, where
`interrupt()` works (outside, it fails with a bare `KeyError`)."""


StreamToolCallHandler: type[Any]
"""The writer of LangGraph's `tools` stream channel: the callback handler a run carries when
it streams `tools`."""


def tools_stream_writer(callbacks: Any) -> Callable[[tuple[tuple[str, ...], str, Any]], None] | None:
    """The writer of LangGraph's `tools` stream channel among a run's `callbacks` (a callback
    manager or a list: `config["callbacks"]`), None when that run does not stream `tools`.
    Nothing public lets a tool report `tool-error` for a call that ended in an error result
    rather than an exception; the writer's `stream((namespace, "tools", event))` does."""
    handlers = getattr(callbacks, "handlers", callbacks)
    writer_type = __getattr__("StreamToolCallHandler")
    for candidate in handlers if isinstance(handlers, list) else ():
        if isinstance(candidate, writer_type):
            return cast("Callable[[tuple[tuple[str, ...], str, Any]], None]", candidate.stream)
    return None


def answers_given(configurable: Mapping[str, Any]) -> int:
    """How many resume values the current task has (consumed or not): the same for every
    pause of one run, so it tells a resumed run from the first. The scratchpad's `resume`
    and `get_null_resume` are how `interrupt()` itself finds them."""
    scratchpad = configurable[__getattr__("CONFIG_KEY_SCRATCHPAD")]
    return len(scratchpad.resume) + (scratchpad.get_null_resume(False) is not None)


# -- langchain-core -------------------------------------------------------------------

configure_hooks: list[Any] | None
"""`(context variable, inheritable, handler class, env var)` for each handler LangChain's
callback `configure` adds from context (`collect_runs`, usage callbacks), so a tool run can
tell that nobody listens without configuring a manager (docs/performance.md). None when a LangChain
keeps them elsewhere: then the callbacks are always configured, only slower."""


# -- pydantic, and frozen dataclasses: an instance's state, written past its guards --------


def write_frozen(instance: object, name: str, value: Any) -> None:
    """Sets the field `name` of the frozen dataclass `instance`: how the bridge marks, on a
    `ToolCallRequest` no caller may change, the arguments that already passed the wire checks.
    `frozen=True` leaves `object.__setattr__` the one way, as the dataclass's own `__init__` uses."""
    object.__setattr__(instance, name, value)


def model_with_state(cls: type[M], state: dict[str, Any], fields_set: set[str], extra: bool, private: Any) -> M:
    """An instance of the pydantic model `cls` as its constructor leaves one, with nothing
    validated: `state` (every field, in order) is its `__dict__`, `fields_set` the fields given,
    `extra` whether extra fields are kept (`{}`), `private` its private attributes (or None).
    pydantic's public `model_construct` skips validation too, but copies every default and
    runs `model_post_init` for each instance: the bridge builds thousands (`prebuilt`)."""
    instance = cls.__new__(cls)
    object.__setattr__(instance, "__dict__", state)
    object.__setattr__(instance, "__pydantic_fields_set__", fields_set)
    object.__setattr__(instance, "__pydantic_extra__", {} if extra else None)
    object.__setattr__(instance, "__pydantic_private__", private)
    return instance


def private_value(model: BaseModel, name: str) -> Any:
    """The private attribute `name` of the pydantic `model`, read where pydantic keeps it,
    without its `__getattr__` (a listing reads one per tool); `KeyError` when it is not set."""
    return model.__pydantic_private__[name]  # type: ignore[index]


_LOOKED_UP: dict[str, tuple[str, str, str]] = {
    "close_subprocess_transport": ("mcp", "mcp.client.stdio", "_close_subprocess_transport"),
    "CONFIG_KEY_CHECKPOINTER": ("langgraph", "langgraph._internal._constants", "CONFIG_KEY_CHECKPOINTER"),
    "CONFIG_KEY_SCRATCHPAD": ("langgraph", "langgraph._internal._constants", "CONFIG_KEY_SCRATCHPAD"),
    "StreamToolCallHandler": ("langgraph", "langgraph.pregel._tools", "StreamToolCallHandler"),
    "configure_hooks": ("langchain-core", "langchain_core.tracers.context", "_configure_hooks"),
}
"""The private names above that are values, by the name they have here: (distribution,
module, name)."""
_OPTIONAL = frozenset({"configure_hooks"})
"""Those that may be missing: then they are None."""


def __getattr__(name: str) -> Any:
    if name not in _LOOKED_UP:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    distribution, module, private = _LOOKED_UP[name]
    try:
        value = getattr(importlib.import_module(module), private)
    except (ImportError, AttributeError):
        if name not in _OPTIONAL:
            raise ImportError(removed(distribution, f"{module}.{private}")) from None
        value = None
    globals()[name] = value
    return value
