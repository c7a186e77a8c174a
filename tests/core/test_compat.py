"""Every private name of a dependency the bridge uses is still there, and does what
`mcpbridge._compat` expects. When a release removes or changes one, this fails with the hint
"<distribution> <version> removed `<name>`: update mcpbridge._compat" (importing the module
fails with it too, for the names it looks up at import)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypedDict

import anyio
import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_config
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from mcp import Client
from mcp.client.session import ClientSession
from mcp.server.mcpserver import MCPServer
from mcp.shared.message import SessionMessage
from mcp.types import CallToolResult, ElicitResult, ListToolsResult, Tool
from pydantic import BaseModel, ConfigDict, PrivateAttr

from mcpbridge import _compat


@contextmanager
def still_there(distribution: str, name: str) -> Iterator[None]:
    try:
        yield
    except (AttributeError, ImportError, KeyError, TypeError, AssertionError) as exc:
        pytest.fail(f"{_compat.removed(distribution, name)} ({type(exc).__name__}: {exc})")


def test_mcp_stdio_closes_the_subprocess_transport() -> None:
    with still_there("mcp", "mcp.client.stdio._close_subprocess_transport"):
        assert callable(_compat.close_subprocess_transport)


async def test_mcp_session_stamps_and_sends_raw_requests() -> None:
    write, read = anyio.create_memory_object_stream[SessionMessage | Exception](1)
    out, incoming = anyio.create_memory_object_stream[SessionMessage](1)
    async with write, read, out, incoming:
        session: Any = ClientSession(read, out)
        with still_there("mcp", "ClientSession._stamp"):
            data: dict[str, Any] = {"method": "tools/call", "params": {"name": "t"}}
            session._stamp(data, {})
        with still_there("mcp", "ClientSession._dispatcher.send_raw_request"):
            assert callable(session._dispatcher.send_raw_request)


async def test_mcp_session_takes_options_after_it_was_built() -> None:
    server = MCPServer("compat")
    async with Client(server) as client:  # in-process, modern: a discover result was adopted
        session: Any = client.session
        assert session._build_capabilities(session.protocol_version).elicitation is None

        async def answer(context: Any, params: Any) -> ElicitResult:
            return ElicitResult(action="decline")

        with still_there("mcp", "ClientSession._elicitation_callback"):
            _compat.answer_from_now_on(session, {"elicitation_callback": answer})
            assert session._elicitation_callback is answer
            assert session._build_capabilities(session.protocol_version).elicitation is not None


async def test_mcp_session_absorbs_a_tool_listing_it_did_not_parse() -> None:
    async with Client(MCPServer("compat")) as client:  # in-process, modern
        session: Any = client.session
        shaped = Tool(name="shaped", input_schema={"type": "object"}, output_schema={"type": "object"})
        with still_there("mcp", "ClientSession._absorb_tool_listing"):
            listed = _compat.absorb_tool_listing(session, ListToolsResult(tools=[shaped]), complete=True)
            assert [tool.name for tool in listed.tools] == ["shaped"]
            assert session._tool_output_schemas == {"shaped": {"type": "object"}}
        with still_there("mcp", "ClientSession._tool_output_schemas / _tool_output_validators"):
            _compat.leave_output_checks_to_the_bridge(session)
            assert session._tool_output_schemas == {"shaped": None}
            assert session._tool_output_validators == {}
            unshaped = CallToolResult(content=[])  # no structured content: the session's own check would refuse it
            await session.validate_tool_result("shaped", unshaped)


async def test_mcp_session_keeps_the_time_limit_it_was_opened_with() -> None:
    write, read = anyio.create_memory_object_stream[SessionMessage | Exception](1)
    out, incoming = anyio.create_memory_object_stream[SessionMessage](1)
    async with write, read, out, incoming:
        with still_there("mcp", "ClientSession._session_read_timeout_seconds"):
            assert _compat.own_time_limit(ClientSession(read, out, read_timeout_seconds=2.5)) == 2.5
            assert _compat.own_time_limit(ClientSession(read, out)) is None


class _State(TypedDict):
    seen: list[Any]


def test_langgraph_run_config_keys_and_scratchpad() -> None:
    def node(state: _State) -> _State:
        configurable = get_config()["configurable"]
        before = (
            configurable.get(_compat.CONFIG_KEY_CHECKPOINTER) is not None,
            _compat.answers_given(configurable),
        )
        interrupt("question")
        return {"seen": [*state["seen"], before]}

    graph = StateGraph(_State).add_node("n", node).add_edge(START, "n").add_edge("n", END)
    app = graph.compile(checkpointer=InMemorySaver())
    thread: Any = {"configurable": {"thread_id": "1"}}
    with still_there("langgraph", "langgraph._internal._constants and the scratchpad's resume values"):
        app.invoke({"seen": []}, thread)
        assert app.invoke(Command(resume="answer"), thread)["seen"] == [(True, 1)]


def test_langgraph_tools_channel_writer_is_among_a_tools_runs_callbacks() -> None:
    """A run that streams `tools` carries the writer of that channel among its callbacks, and
    what it is given reaches the stream as a `(namespace, "tools", payload)` chunk."""
    event = {"event": "tool-error", "tool_call_id": "c1", "message": "boom"}

    def node(state: _State) -> _State:
        write = _compat.tools_stream_writer(get_config()["callbacks"])
        if write is not None:
            write(((), "tools", event))
        return {"seen": [write is not None]}

    graph = StateGraph(_State).add_node("n", node).add_edge(START, "n").add_edge("n", END).compile()
    with still_there("langgraph", "langgraph.pregel._tools.StreamToolCallHandler"):
        assert ("tools", event) in list(graph.stream({"seen": []}, stream_mode=["tools", "values"]))
        assert graph.invoke({"seen": []}) == {"seen": [False]}  # no `tools` stream: no writer


def test_langchain_core_callback_configure_hooks() -> None:
    with still_there("langchain-core", "langchain_core.tracers.context._configure_hooks"):
        assert _compat.configure_hooks is not None
        for hook in _compat.configure_hooks:
            var, _inheritable, _handler, _env = hook
            assert hasattr(var, "get")


@dataclass(frozen=True, slots=True)
class _Frozen:
    value: int
    marked: object = field(default=None, init=False)


def test_frozen_dataclass_field_written_past_its_guard() -> None:
    frozen = _Frozen(1)
    with pytest.raises(AttributeError):
        frozen.marked = "x"  # type: ignore[misc]
    _compat.write_frozen(frozen, "marked", "x")
    assert frozen.marked == "x"


class _Model(BaseModel):
    model_config = ConfigDict(extra="allow")
    name: str
    size: int = 3
    _hidden: str = PrivateAttr(default="kept")


def test_pydantic_model_built_with_its_state_as_its_constructor_leaves_it() -> None:
    built = _Model(name="a")
    with still_there("pydantic", "BaseModel.__pydantic_fields_set__ / __pydantic_extra__ / __pydantic_private__"):
        written = _compat.model_with_state(_Model, {"name": "a", "size": 3}, {"name"}, True, {"_hidden": "kept"})
        assert written == built
        assert (written.model_fields_set, written.model_extra, written._hidden) == ({"name"}, {}, "kept")
        assert _compat.private_value(written, "_hidden") == "kept"
        written._hidden = "changed"
        assert _compat.private_value(written, "_hidden") == "changed"
        unset = _compat.model_with_state(_Model, {"name": "b", "size": 1}, set(), True, {})
        with pytest.raises(KeyError):
            _compat.private_value(unset, "_hidden")
