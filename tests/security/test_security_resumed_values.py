"""Values that do not come from the model pass the same wire checks as the model's arguments:
an approval edit, an elicitation answer or a sampling reply with a lone surrogate, or over
`max_argument_bytes`, fails that call with a clear message, the value never reaches the
server, and another caller's call in flight on the same shared session (stdio, streamable
HTTP) still succeeds."""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import mcpbridge_approval
import mcpbridge_elicitation
import mcpbridge_sampling
import pytest
from langchain.agents import create_agent
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command
from mcpbridge_approval import create_approval_resume
from mcpbridge_elicitation import create_elicitation_resume

from mcpbridge import MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import ScriptedChatModel, SessionProbe, serving, stdio_config, tool_call_turn
from tests.helpers.waiting import PATIENCE, until, until_sync

LIMIT = 2000
"""`max_argument_bytes` of these tests."""
BYSTANDER_S = 1.0
"""How long the other caller's call stays in flight on the shared session."""
BAD = "x\ud800y"
HUGE = "z" * (LIMIT * 2)

SERVER = '''
import asyncio
from typing import Annotated

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.resolve import Elicit, Resolve, Sample
from mcp.types import (
    CreateMessageResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitResult,
    InputRequiredResult,
    SamplingMessage,
    TextContent,
    ToolAnnotations,
)
from pydantic import BaseModel

READ_ONLY = ToolAnnotations(read_only_hint=True)


def ask_model(say: str) -> Sample:
    return Sample([SamplingMessage(role="user", content=TextContent(text=say))], max_tokens=20)


class Title(BaseModel):
    title: str


def ask_title(say: str) -> Elicit[Title]:
    return Elicit(f"Title for {say}?", Title)


def build() -> MCPServer:
    server = MCPServer("notes")
    written: list[str] = []

    @server.tool(annotations=ToolAnnotations(destructive_hint=True))
    def write_note(text: str) -> str:
        """Write a note (needs approval)."""
        written.append(text)
        return f"wrote {len(text)} characters"

    @server.tool(annotations=READ_ONLY)
    def name_note(ctx: Context) -> str | InputRequiredResult:
        """Ask the person for the note's name (elicitation)."""
        reply = (ctx.input_responses or {}).get("name")
        if not isinstance(reply, ElicitResult) or not reply.content:
            schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
            question = ElicitRequest(params=ElicitRequestFormParams(message="Name?", requested_schema=schema))
            return InputRequiredResult(input_requests={"name": question}, request_state="asked")
        written.append(str(reply.content["name"]))
        return f"named {len(str(reply.content['name']))} characters"

    @server.tool(annotations=READ_ONLY)
    def sampled_note(say: str, reply: Annotated[CreateMessageResult, Resolve(ask_model)]) -> str:
        """Ask the client's model for the note (sampling)."""
        text = reply.content.text if isinstance(reply.content, TextContent) else ""
        written.append(text)
        return f"sampled {len(text)} characters"

    @server.tool(annotations=READ_ONLY)
    def titled_note(say: str, title: Annotated[Title, Resolve(ask_title)]) -> str:
        """Ask for the note's title (elicitation: mid-call on the legacy protocol)."""
        written.append(title.title)
        return f"titled {len(title.title)} characters"

    @server.tool(annotations=READ_ONLY)
    async def slow_echo(text: str, seconds: float) -> str:
        """Echo after a while: a call that stays in flight."""
        await asyncio.sleep(seconds)
        return text

    @server.tool(annotations=READ_ONLY)
    def written_count() -> int:
        """How many values reached the server."""
        return len(written)

    return server


if __name__ == "__main__":
    build().run("stdio")
'''


class Parrot(BaseChatModel):
    """The sampling model: says what it is asked to say, and a lone surrogate for "bad"."""

    @property
    def _llm_type(self) -> str:
        return "parrot"

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **_: Any) -> ChatResult:
        said = str(messages[-1].content)
        return ChatResult(generations=[ChatGeneration(message=AIMessage(BAD if said == "bad" else said))])


def on_elicitation(server: str, params: Any) -> dict[str, Any]:
    """Answers legacy servers' questions: a lone surrogate when asked about "bad"."""
    return {"action": "accept", "content": {"title": BAD if "bad" in params.message else "fine"}}


def load(script: Path) -> Any:
    spec = importlib.util.spec_from_file_location("notes_server", script)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module", params=["stdio", "http"])
def bridge(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[MCPBridge]:
    """A sync bridge (its own loop thread) with one shared session to the notes server per
    protocol: `modern` (answers travel in the tool call) and `legacy` (the server asks
    mid-call and the client's callback answers)."""
    script = tmp_path_factory.mktemp("notes") / "notes_server.py"
    script.write_text(SERVER)
    with contextlib.ExitStack() as stack:
        if request.param == "stdio":
            target = stdio_config(script)
        else:
            target = {"url": stack.enter_context(serving(load(script).build().streamable_http_app()))}
        yield stack.enter_context(
            MCPBridge(
                {name: {**target, "mode": name, "max_argument_bytes": LIMIT} for name in ("modern", "legacy")},
                plugins=[mcpbridge_approval, mcpbridge_elicitation, mcpbridge_sampling],
                plugin_settings={
                    "sampling": {"model": Parrot(), "all_servers": True},
                    "elicitation": {"on_elicitation": on_elicitation},
                },
                tool_name_prefix=True,
                timeout=20,
            )
        )


@pytest.fixture(scope="module")
def pool() -> Iterator[ThreadPoolExecutor]:
    with ThreadPoolExecutor(max_workers=2) as executor:
        yield executor


def text(message: ToolMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(block["text"] for block in content)  # type: ignore[index]


def tools(bridge: MCPBridge, server: str) -> list[Any]:
    return [tool for tool in bridge.list_tools_sync(servers=[server])]


def call(bridge: MCPBridge, server: str, tool: str, args: dict[str, Any] | None = None) -> ToolMessage:
    [found] = [t for t in tools(bridge, server) if t.binding.tool.name == tool]
    message: ToolMessage = found.invoke({"type": "tool_call", "name": found.name, "args": args or {}, "id": tool})
    return message


def written(bridge: MCPBridge, server: str) -> int:
    return int(text(call(bridge, server, "written_count")))


def with_bystander(bridge: MCPBridge, pool: ThreadPoolExecutor, server: str, run: Any) -> tuple[Any, ToolMessage]:
    """`run()` while another caller's call is in flight on the same session; both results."""
    bystander = pool.submit(call, bridge, server, "slow_echo", {"text": "still here", "seconds": BYSTANDER_S})
    until_sync(lambda: bool(bridge.calls_in_flight(server)), "the bystander's call in flight")
    return run(), bystander.result(timeout=PATIENCE)


def resumed(bridge: MCPBridge, pool: ThreadPoolExecutor, tool: str, resume: Any) -> tuple[ToolMessage, ToolMessage]:
    """Pause `tool` in an agent run, then resume it with `resume(interrupts)` while a
    bystander's call is in flight; the resumed call's message and the bystander's."""
    args = {"text": "fine"} if tool.endswith("write_note") else {}
    model = ScriptedChatModel(turns=[tool_call_turn((tool, args))])
    agent = create_agent(model, tools(bridge, "modern"), checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    paused = agent.invoke({"messages": [("user", "go")]}, config)

    def resume_it() -> ToolMessage:
        result = agent.invoke(Command(resume=resume(paused["__interrupt__"])), config)
        [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
        return message

    return with_bystander(bridge, pool, "modern", resume_it)


def edit(args: dict[str, Any]) -> Any:
    decision = {"type": "edit", "edited_action": {"args": args}}
    return lambda interrupts: create_approval_resume(interrupts, decision)


def answer(content: dict[str, Any]) -> Any:
    return lambda interrupts: create_elicitation_resume(
        interrupts[0], {"name": {"action": "accept", "content": content}}
    )


UNSENDABLE = "cannot be sent as UTF-8 JSON"
TOO_BIG = f"over max_argument_bytes={LIMIT} (the server was not called)"
RESUMES = {
    "edit-surrogate": ("modern_write_note", edit({"text": BAD}), "arguments for tool 'modern_write_note': text: "),
    "edit-huge": ("modern_write_note", edit({"text": HUGE}), TOO_BIG),
    "answer-surrogate": ("modern_name_note", answer({"name": BAD}), "answers for tool 'modern_name_note': name/"),
    "answer-huge": ("modern_name_note", answer({"name": HUGE}), TOO_BIG),
}


@pytest.mark.parametrize("case", RESUMES)
def test_a_resumed_value_that_cannot_travel_fails_its_call_only(
    bridge: MCPBridge, pool: ThreadPoolExecutor, case: str
) -> None:
    tool, resume, problem = RESUMES[case]
    before = written(bridge, "modern")
    message, bystander = resumed(bridge, pool, tool, resume)
    assert message.status == "error"
    assert problem in text(message), text(message)
    assert "surrogate" not in case or UNSENDABLE in text(message)
    assert (bystander.status, text(bystander)) == ("success", "still here")
    assert SessionProbe(bridge, "modern").connected
    assert written(bridge, "modern") == before, "the value reached the server"


ANSWERED = {
    "modern-sampling": ("modern", "sampled_note", "gave a reply MCP cannot carry"),
    "legacy-sampling": ("legacy", "sampled_note", "gave a reply MCP cannot carry"),
    "legacy-elicitation": ("legacy", "titled_note", f"the client's answer cannot be sent: content/title: {UNSENDABLE}"),
}


@pytest.mark.parametrize("case", ANSWERED)
def test_an_answer_to_a_servers_request_that_cannot_travel_fails_its_call_only(
    bridge: MCPBridge, pool: ThreadPoolExecutor, case: str
) -> None:
    server, tool, problem = ANSWERED[case]
    before = written(bridge, server)
    message, bystander = with_bystander(bridge, pool, server, lambda: call(bridge, server, tool, {"say": "bad"}))
    assert message.status == "error"
    assert problem in text(message), text(message)
    assert (bystander.status, text(bystander)) == ("success", "still here")
    assert SessionProbe(bridge, server).connected
    assert written(bridge, server) == before, "the answer reached the server"
    assert text(call(bridge, server, tool, {"say": "fine"})).endswith(" 4 characters")


def test_a_sendable_edit_and_answer_still_go_through(bridge: MCPBridge, pool: ThreadPoolExecutor) -> None:
    message, _ = resumed(bridge, pool, "modern_write_note", edit({"text": "edited ünïcode"}))
    assert text(message).endswith("wrote 14 characters"), text(message)
    message, _ = resumed(bridge, pool, "modern_name_note", answer({"name": "mine"}))
    assert text(message) == "named 4 characters", text(message)


def replacing(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """An interceptor that puts arguments of its own in place of the model's."""
    return handler(request.override(args={"text": BAD}) if request.name == "write_note" else request)


def deepening(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """An interceptor that adds arguments nested deeper than the SDK's serializer can go."""
    deep: Any = "leaf"
    for _ in range(300):
        deep = [deep]
    return handler(request.override(args={**request.args, "deep": deep}) if request.name == "write_note" else request)


def mutating(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """An interceptor that changes the arguments in place, against the frozen request's contract."""
    if request.name == "write_note":
        request.args["text"] = BAD
    return handler(request)


@pytest.mark.parametrize(
    ("transport", "interceptor", "problem"),
    [
        ("stdio", replacing, "Invalid arguments for tool 'write_note': text: cannot be sent as UTF-8 JSON"),
        ("http", replacing, "Invalid arguments for tool 'write_note': text: cannot be sent as UTF-8 JSON"),
        ("http", deepening, "nests more than 200 levels deep, over the mcp SDK's serializable depth=200"),
        # Not re-checked at the end of the chain (the very object checked before it); the stdio
        # transport still fails only this request.
        ("stdio", mutating, "cannot be sent as UTF-8 JSON (PydanticSerializationError); it was not sent"),
    ],
    ids=["stdio-override", "http-override", "http-too-deep", "stdio-in-place"],
)
async def test_arguments_an_interceptor_changed_fail_their_call_only(
    tmp_path: Path, transport: str, interceptor: Any, problem: str
) -> None:
    script = tmp_path / "notes_server.py"
    script.write_text(SERVER)
    with contextlib.ExitStack() as stack:
        target = (
            stdio_config(script)
            if transport == "stdio"
            else {"url": stack.enter_context(serving(load(script).build().streamable_http_app()))}
        )
        async with MCPBridge({"notes": target}, plugins=[], interceptors=[interceptor], timeout=20) as opened:
            bystander = asyncio.ensure_future(
                opened.call_tool("notes", "slow_echo", {"text": "still here", "seconds": BYSTANDER_S})
            )
            await until(lambda: bool(opened.calls_in_flight("notes")), "the bystander's call in flight")
            message = await opened.call_tool("notes", "write_note", {"text": "fine"})
            assert message.status == "error"
            assert problem in text(message), text(message)
            assert text(await bystander) == "still here"
            assert SessionProbe(opened, "notes").connected
            assert text(await opened.call_tool("notes", "written_count")) == "0"
