"""Every door has the same lock: each public way to reach a server (an agent's tool, the tool
called directly, `bridge.call_tool`, the drop-in on a session the user opened, on a client's
shared session and on a connection, the `mcpbridge call` command, a person's approval edit)
refuses each hostile value of the security tier the same way, names the problem without
quoting a known secret, never sends it, and leaves the session up: a bystander's call through
the same door, on the same session, still works.

A door is one line of `DOORS`: an async context manager yielding `send(arguments)`, a call
of the server's `echo` tool through that door, told as an `Outcome`."""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mcpbridge_approval
import pytest
from langchain_core.messages import ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcpbridge_adapters.client import MultiServerMCPClient
from mcpbridge_adapters.tools import convert_mcp_tool_to_langchain_tool, load_mcp_tools
from mcpbridge_approval import create_approval_resume
from mcpbridge_cli import main as cli

from mcpbridge import InvalidToolArguments, MCPBridge, Settings, install_log_redaction
from mcpbridge.testing import make_agent, serving, tool_call_turn
from tests.servers import basic

SECRET = "door-s3cret-7f3a9c"
"""A value the process knows is secret (as a header value or a secret env value would be)."""
LIMIT = Settings().max_argument_bytes
GATED = "needs approval"
"""The `echo` text the approval door's rule gates: every other call goes through unasked."""


def nested(depth: int) -> Any:
    value: Any = "leaf"
    for _ in range(depth):
        value = [value]
    return value


@dataclass(frozen=True)
class Hostile:
    arguments: dict[str, Any]
    problem: str
    """What the refusal must say."""


HOSTILE = {
    "lone-surrogate": Hostile({"text": "x\ud800y"}, "text: cannot be sent as UTF-8 JSON"),
    "300-deep": Hostile({"text": nested(300)}, "nests more than 64 levels deep"),
    "oversize": Hostile({"text": "z" * (LIMIT + 1)}, f"over max_argument_bytes={LIMIT}"),
    "schema-invalid": Hostile({"text": 42}, 'text: 42 is not of type "string"'),
    "secret-bearing": Hostile({"text": {"token": SECRET}}, '{"token":"***"} is not of type "string"'),
}


@dataclass(frozen=True)
class Outcome:
    refused: bool
    text: str


Send = Callable[[dict[str, Any]], Awaitable[Outcome]]


def text_of(message: Any) -> str:
    content = message.content if isinstance(message, ToolMessage) else message
    if isinstance(content, str):
        return content
    return "".join(block["text"] if isinstance(block, dict) else str(block) for block in content)


def told(message: ToolMessage) -> Outcome:
    return Outcome(message.status == "error", text_of(message))


@contextlib.asynccontextmanager
async def bridge_on(url: str, **options: Any) -> AsyncIterator[MCPBridge]:
    """A bridge on one shared session to the server, which must be the same session when done."""
    async with MCPBridge({"s": {"url": url}}, plugins=options.pop("plugins", []), **options) as bridge:
        session = await bridge.session("s")
        yield bridge
        assert await bridge.session("s") is session, "the shared session broke (the bridge reopened it)"


@contextlib.asynccontextmanager
async def agent_tool(url: str) -> AsyncIterator[Send]:
    async with bridge_on(url) as bridge:
        tools = await bridge.list_tools()

        async def send(arguments: dict[str, Any]) -> Outcome:
            agent = make_agent([tool_call_turn(("echo", arguments))], tools, checkpointer=None)
            result = await agent.ainvoke({"messages": [("user", "go")]})
            [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
            return told(message)

        yield send


@contextlib.asynccontextmanager
async def tool_call(url: str) -> AsyncIterator[Send]:
    async with bridge_on(url) as bridge:
        [echo] = [tool for tool in await bridge.list_tools() if tool.name == "echo"]

        async def send(arguments: dict[str, Any]) -> Outcome:
            return told(await echo.ainvoke({"type": "tool_call", "name": "echo", "args": arguments, "id": "c1"}))

        yield send


@contextlib.asynccontextmanager
async def plain_arguments(url: str) -> AsyncIterator[Send]:
    async with bridge_on(url) as bridge:
        [echo] = [tool for tool in await bridge.list_tools() if tool.name == "echo"]

        async def send(arguments: dict[str, Any]) -> Outcome:
            try:
                return Outcome(False, text_of(await echo.ainvoke(arguments)))
            except InvalidToolArguments as refused:
                return Outcome(True, str(refused))

        yield send


@contextlib.asynccontextmanager
async def bridge_call_tool(url: str) -> AsyncIterator[Send]:
    async with bridge_on(url) as bridge:

        async def send(arguments: dict[str, Any]) -> Outcome:
            return told(await bridge.call_tool("s", "echo", arguments))

        yield send


def drop_in_send(tools: list[Any]) -> Send:
    [echo] = [tool for tool in tools if tool.name == "echo"]

    async def send(arguments: dict[str, Any]) -> Outcome:
        return told(await echo.ainvoke({"type": "tool_call", "name": "echo", "args": arguments, "id": "c1"}))

    return send


@contextlib.asynccontextmanager
async def user_session(url: str) -> AsyncIterator[Send]:
    """The adapters' README: `load_mcp_tools(session)` on a `ClientSession` the user opened."""
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield drop_in_send(await load_mcp_tools(session))


@contextlib.asynccontextmanager
async def drop_in_client(url: str) -> AsyncIterator[Send]:
    async with MultiServerMCPClient({"s": {"url": url, "transport": "http"}}, plugins=[]) as client:
        session = await client.bridge.session("s")
        yield drop_in_send(await client.get_tools())
        assert await client.bridge.session("s") is session, "the shared session broke"


@contextlib.asynccontextmanager
async def drop_in_shared_session(url: str) -> AsyncIterator[Send]:
    """`load_mcp_tools(session)` on a session from `client.session(name)`: the client's shared one."""
    async with MultiServerMCPClient({"s": {"url": url, "transport": "http"}}, plugins=[]) as client:
        live = await client.bridge.session("s")
        async with client.session("s") as session:
            tools = await load_mcp_tools(session)
        yield drop_in_send(tools)
        assert await client.bridge.session("s") is live, "the shared session broke"


@contextlib.asynccontextmanager
async def drop_in_converted(url: str) -> AsyncIterator[Send]:
    """`convert_mcp_tool_to_langchain_tool` on a client's shared session: no mcpbridge tool in between."""
    async with MultiServerMCPClient({"s": {"url": url, "transport": "http"}}, plugins=[]) as client:
        live = await client.bridge.session("s")
        async with client.session("s") as session:
            listed = (await session.list_tools()).tools
            tools = [convert_mcp_tool_to_langchain_tool(session, tool, server_name="s") for tool in listed]
        yield drop_in_send(tools)
        assert await client.bridge.session("s") is live, "the shared session broke"


@contextlib.asynccontextmanager
async def drop_in_connection(url: str) -> AsyncIterator[Send]:
    """`load_mcp_tools(None, connection=...)`: a new session of the tool's own per call."""
    yield drop_in_send(await load_mcp_tools(None, connection={"url": url, "transport": "http"}, server_name="s"))


@contextlib.asynccontextmanager
async def drop_in_converted_connection(url: str) -> AsyncIterator[Send]:
    """`convert_mcp_tool_to_langchain_tool(None, tool, connection=...)`: a new session per call."""
    connection: Any = {"url": url, "transport": "http"}
    async with streamable_http_client(url) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = (await session.list_tools()).tools
    yield drop_in_send([convert_mcp_tool_to_langchain_tool(None, tool, connection=connection) for tool in listed])


@contextlib.asynccontextmanager
async def command_line(url: str) -> AsyncIterator[Send]:
    """`mcpbridge call s echo '<json>'`, run in this process (its arguments exceed what argv takes)."""
    with _config(url) as config:

        async def send(arguments: dict[str, Any]) -> Outcome:
            argv = ["call", "--config", str(config), "s", "echo", json.dumps(arguments)]
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = await asyncio.to_thread(cli, argv)
            content = out.getvalue().partition("content:\n")[2].partition("\nartifact:")[0].strip()
            return Outcome(code != 0, content + err.getvalue())

        yield send


@contextlib.contextmanager
def _config(url: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "mcpbridge.toml"
        config.write_text(f'[servers.s]\nurl = "{url}"\n[plugins]\nautoload = false\n')
        yield config


@contextlib.asynccontextmanager
async def approval_edit(url: str) -> AsyncIterator[Send]:
    """A person's `edit` decision resuming a paused call: the edited arguments are the value."""
    rules = [{"tool": "echo", "approval": "require", "when": [{"argument": "text", "equals": GATED}]}]
    async with bridge_on(url, plugins=[mcpbridge_approval], plugin_settings={"approval": {"rules": rules}}) as bridge:
        tools = await bridge.list_tools()

        async def send(arguments: dict[str, Any]) -> Outcome:
            agent = make_agent([tool_call_turn(("echo", {"text": GATED}))], tools, checkpointer=InMemorySaver())
            config = {"configurable": {"thread_id": "t1"}}
            paused = await agent.ainvoke({"messages": [("user", "go")]}, config)
            decision = {"type": "edit", "edited_action": {"args": arguments}}
            try:
                resume = create_approval_resume(paused["__interrupt__"], decision)
            except ValueError as refused:  # checked when the resume value is made: nothing resumed
                return Outcome(True, str(refused))
            result = await agent.ainvoke(Command(resume=resume), config)
            [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
            return told(message)

        yield send


DOORS: dict[str, Callable[[str], contextlib.AbstractAsyncContextManager[Send]]] = {
    "agent-toolnode": agent_tool,
    "tool-ainvoke-toolcall": tool_call,
    "tool-ainvoke-plain": plain_arguments,
    "bridge-call_tool": bridge_call_tool,
    "dropin-user-session": user_session,
    "dropin-client-tools": drop_in_client,
    "dropin-shared-session": drop_in_shared_session,
    "dropin-converted-shared": drop_in_converted,
    "dropin-connection": drop_in_connection,
    "dropin-converted-connection": drop_in_converted_connection,
    "cli-call": command_line,
    "approval-edit": approval_edit,
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    install_log_redaction([SECRET])
    with serving(basic.build()) as found:
        yield found


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("door", DOORS)
async def test_every_door_refuses_the_value_and_keeps_the_session(url: str, door: str, hostile: str) -> None:
    value = HOSTILE[hostile]
    before = basic.CALLS.get("echo", 0)
    async with DOORS[door](url) as send:
        refused = await send(value.arguments)
        assert refused.refused, refused
        assert value.problem in refused.text, refused.text
        assert SECRET not in refused.text
        assert basic.CALLS.get("echo", 0) == before, "the value reached the server"
        after = await send({"text": "bystander"})  # an approval edit's result starts with a note
        assert not after.refused, after
        assert after.text.endswith("bystander"), after


@pytest.mark.parametrize(
    "arguments",
    ['{"text": ' + "1" * 5000 + "}", '{"text": ' + "[" * 100_000 + "]" * 100_000 + "}"],
    ids=["5000-digit-integer", "100000-deep"],
)
def test_the_command_line_refuses_arguments_it_cannot_read(
    url: str, arguments: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """JSON that Python's reader refuses (an integer over 4,300 digits, nesting past its
    recursion) is bad input like any other: a clear error, not a traceback."""
    with _config(url) as config:
        assert cli(["call", "--config", str(config), "s", "echo", arguments]) == 1
    assert "mcpbridge: error: arguments must be a JSON object" in capsys.readouterr().err
