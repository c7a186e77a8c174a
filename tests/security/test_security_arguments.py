"""Arguments that cannot travel as UTF-8 JSON are invalid arguments: an error ToolMessage for
the caller, and the shared session untouched for everyone else."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from langchain_core.messages import ToolMessage

from mcpbridge import InvalidToolArguments, MCPBridge
from mcpbridge._session.sendable import wire_problems
from mcpbridge.testing import serving
from tests.helpers import stdio_config
from tests.security import hostile_servers

pytestmark = pytest.mark.serial  # it measures time or shares a service: run alone

CALL_LIMIT_S = 10
MODULE = "tests.security.hostile_servers"

UNSENDABLE: list[tuple[dict[str, Any], str]] = [
    ({"text": "x\ud800y"}, "text: "),
    ({"\udc00key": 1}, "'\\udc00key': "),
    ({"deep": {"list": [1, "ok", "\udfff"]}}, "deep/list/2: "),
    ({"n": math.nan}, "n: "),
    ({"n": math.inf}, "n: "),
    ({"n": [-math.inf]}, "n/0: "),
    ({"big": 10**5000}, "big: "),
]


def call(name: str, args: dict[str, Any], id: str) -> dict[str, Any]:
    return {"type": "tool_call", "name": name, "args": args, "id": id}


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else " ".join(block["text"] for block in content)  # type: ignore[index]


@contextlib.contextmanager
def shared_session(transport: str) -> Iterator[MCPBridge]:
    """A sync bridge (its own loop thread) on one session to the hostile server."""
    if transport == "stdio":
        with MCPBridge({"hostile": stdio_config(MODULE)}, plugins=[], timeout=CALL_LIMIT_S) as bridge:
            yield bridge
    else:
        with (
            serving(hostile_servers.build().streamable_http_app()) as url,
            MCPBridge({"hostile": {"url": url}}, plugins=[], timeout=CALL_LIMIT_S) as bridge,
        ):
            yield bridge


@pytest.fixture(scope="module", params=["stdio", "http"])
def echo(request: pytest.FixtureRequest) -> Iterator[Any]:
    with shared_session(request.param) as bridge:
        yield {tool.name: tool for tool in bridge.list_tools_sync()}["echo"]


@pytest.fixture(scope="module")
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=4) as executor:
        yield executor


def with_bystander(pool: ThreadPoolExecutor, echo: Any, args: dict[str, Any], n: int) -> tuple[Any, ToolMessage]:
    """Runs a bystander call and `args` on the shared session at once; both within the limit."""
    bystander = pool.submit(echo.invoke, call("echo", {"text": f"bystander {n}"}, f"b{n}"))
    hostile = pool.submit(echo.invoke, call("echo", args, f"h{n}"))
    return hostile.result(timeout=CALL_LIMIT_S), bystander.result(timeout=CALL_LIMIT_S)


@pytest.mark.parametrize(("args", "where"), UNSENDABLE, ids=[str(i) for i in range(len(UNSENDABLE))])
def test_unsendable_arguments_are_invalid_and_the_session_survives(
    echo: Any, pool: ThreadPoolExecutor, args: dict[str, Any], where: str
) -> None:
    message, bystander = with_bystander(pool, echo, args, 0)
    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert text(message).startswith("Invalid arguments for tool 'echo': " + where)
    assert "cannot be sent as UTF-8 JSON" in text(message)
    assert bystander.status == "success", text(bystander)
    after = echo.invoke(call("echo", {"text": "after"}, "after"))
    assert after.status == "success"


def test_plain_invocation_raises_invalid_arguments(echo: Any) -> None:
    with pytest.raises(InvalidToolArguments, match="cannot be sent as UTF-8 JSON"):
        echo.invoke({"text": "x\ud800y"})


def test_python_values_pydantic_can_send_still_pass(echo: Any) -> None:
    import datetime

    message = echo.invoke(call("echo", {"when": datetime.date(2026, 1, 2)}, "d"))
    assert message.status == "success", text(message)


def test_the_check_costs_microseconds() -> None:
    args = {"city": "Oslo", "days": 3, "units": "metric", "tags": ["a", "b"], "opts": {"x": 1.5, "y": True}}
    rounds = 20_000
    started = time.perf_counter()
    for _ in range(rounds):
        wire_problems(args)
    per_call = (time.perf_counter() - started) / rounds
    print(f"wire_problems on a small dict: {per_call * 1e6:.1f} µs")
    assert per_call < 100e-6  # a few µs on a quiet machine; generous for shared CI cores


# -- property: whatever the model sends, the caller gets a ToolMessage and others are unharmed --


def _too_long_to_print() -> int:
    """An int over Python's 4,300-digit str() limit (`st.just` would try to print it)."""
    return 10**5000


_text = st.text(alphabet=st.characters(codec=None), max_size=12) | st.text(
    alphabet=st.characters(categories=["Cs", "Cc", "Lu"]), max_size=4
)
_leaf = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.builds(_too_long_to_print)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _text
)
_json_like = st.recursive(
    _leaf, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_text, inner, max_size=4), max_leaves=12
)
_arguments = st.dictionaries(_text, _json_like, max_size=5)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(args=_arguments)
def test_arbitrary_arguments_never_hurt_a_bystander(echo: Any, pool: ThreadPoolExecutor, args: dict[str, Any]) -> None:
    message, bystander = with_bystander(pool, echo, args, 1)
    assert isinstance(message, ToolMessage)
    if wire_problems(args) is None:
        assert message.status == "success", text(message)
    else:
        assert message.status == "error"
        assert "cannot be sent as UTF-8 JSON" in text(message)
    assert isinstance(bystander, ToolMessage)
    assert bystander.status == "success", text(bystander)
