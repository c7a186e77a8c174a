"""The plugin platform: declared positions and their conflicts, settings parsed once and
handed to hooks typed, the shared toolkit (selectors, hints, value sources, questions),
hook tracing, a fixed chain and one error tree."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from langchain_core.tools import ToolException
from langgraph.types import Interrupt
from mcp.types import Tool, ToolAnnotations
from pydantic import BaseModel, ConfigDict

from mcpbridge import (
    BridgeContext,
    CannotPauseError,
    ConfigError,
    InvalidHeader,
    InvalidToolArguments,
    MCPBridge,
    MCPBridgeError,
    MCPToolError,
    Plugin,
    PluginError,
    Question,
    ServerConnectionError,
    ServerName,
    Settings as BridgeSettings,
    ToolCallError,
    ToolCallHandler,
    ToolCallRequest,
    ToolSelector,
    ToolTimeoutError,
    ValueSource,
    hookimpl,
    selected,
    tool_hints,
)
from mcpbridge.testing import make_runtime
from tests.servers import basic


class Rule(ToolSelector):
    limit: int = 1


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    rules: list[Rule] = []
    owners: dict[ServerName, str] = {}


class Counting:
    """A plugin object that records how often and with what its hooks were called."""

    mcpbridge_name = "counting"
    mcpbridge_plugin = Plugin(settings=Settings)

    def __init__(self) -> None:
        self.seen: list[Any] = []

    @hookimpl
    def mcpbridge_check_settings(self, context: BridgeContext) -> None:
        self.seen.append(context.settings_of(Settings))

    @hookimpl
    def mcpbridge_interceptors(self, context: BridgeContext) -> list[Any]:
        self.seen.append(context.settings_of(Settings))
        return []

    @hookimpl
    def mcpbridge_client_options(self, server_name: str, context: BridgeContext) -> None:
        self.seen.append(context.settings_of(Settings))


def test_settings_are_validated_once_and_handed_to_every_hook_typed() -> None:
    plugin = Counting()
    table = {"rules": [{"server": "b*", "tool": "get_*", "limit": 3}], "owners": {"basic": "ops"}}
    MCPBridge({"basic": basic.build(), "other": basic.build()}, plugins=[plugin], plugin_settings={"counting": table})
    assert len(plugin.seen) == 4  # check_settings, interceptors, client options of two servers
    assert all(seen is plugin.seen[0] for seen in plugin.seen)
    [rule] = plugin.seen[0].rules
    assert rule.limit == 3
    assert rule.selects("basic", "get_forecast")
    assert not rule.selects("other", "get_forecast")


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"rules": [{"server": "crm"}]}, r"`plugins.counting.rules.0`: server pattern 'crm' matches no configured"),
        ({"owners": {"crm": "x"}}, r"`plugins.counting.owners.crm.\[key\]`: server 'crm' is not configured"),
        ({"rules": [{"tool": "x", "ttl": 1}]}, r"`plugins.counting.rules.0.ttl`: unknown key"),
    ],
)
def test_settings_that_name_unknown_servers_or_keys_are_refused(table: dict[str, Any], problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        MCPBridge({"basic": basic.build()}, plugins=[Counting()], plugin_settings={"counting": table})


def test_selectors_are_globs_on_server_and_mcp_tool_names() -> None:
    rules = [Rule(server="crm", tool="delete_*", limit=1), Rule(tool="*", limit=2), Rule(server="c?m", limit=3)]
    assert [r.limit for r in selected(rules, "crm", "delete_contact")] == [1, 2, 3]
    assert [r.limit for r in selected(rules, "crm", "list")] == [2, 3]
    assert [r.limit for r in selected(rules, "CRM", "delete_contact")] == [2]  # case-sensitive


def declaring(name: str, declaration: Plugin) -> object:
    """A plugin named `name` that declares where it sits and passes every call on."""

    class Declaring:
        mcpbridge_name = name
        mcpbridge_plugin = declaration

        @hookimpl
        def mcpbridge_interceptors(self) -> list[Any]:
            async def passing(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
                return await handler(request)

            return [passing]

    return Declaring()


def chain_of(declared: dict[str, Plugin], order: list[str] | None = None) -> list[str]:
    settings = BridgeSettings(plugins={"order": order}) if order else None
    plugins = [declaring(name, declaration) for name, declaration in declared.items()]
    return list(MCPBridge({}, plugins=plugins, settings=settings).chain[:-1])  # the core's claiming layer ends it


def test_the_chain_follows_positions_then_constraints_and_names_a_cycle() -> None:
    declared = {"a": Plugin(position=50), "b": Plugin(position=10), "c": Plugin(position=5, after=("a",))}
    assert chain_of(declared) == ["b", "a", "c"]
    assert chain_of(declared, ["c"]) == ["c", "b", "a"]
    cycle = {"x": Plugin(before=("y",)), "y": Plugin(before=("x",)), "z": Plugin()}
    with pytest.raises(ConfigError, match=r"x, y declare positions that contradict.*x before y, y before x.*order = "):
        chain_of(cycle)


def test_one_reading_of_annotations_with_the_spec_defaults() -> None:
    def tool(**hints: Any) -> Tool:
        annotations = ToolAnnotations(**hints) if hints else None
        return Tool(name="t", input_schema={"type": "object"}, annotations=annotations)

    bare = tool_hints(tool())
    assert (bare.read_only, bare.destructive, bare.idempotent, bare.open_world, bare.annotated) == (
        False,
        True,
        False,
        True,
        False,
    )
    reader = tool_hints(tool(read_only_hint=True))
    assert reader.read_only
    assert not reader.destructive
    assert reader.idempotent
    assert reader.annotated
    contradiction = tool_hints(tool(read_only_hint=True, destructive_hint=True))  # the unsafe claim wins
    assert (contradiction.read_only, contradiction.destructive, contradiction.idempotent) == (False, True, False)
    assert not tool_hints(tool(destructive_hint=False)).destructive
    assert tool_hints(tool(read_only_hint=False)).destructive
    assert tool_hints(tool(idempotent_hint=True)).annotated is False


def test_value_sources_read_the_run_and_the_headers() -> None:
    runtime = make_runtime({"user": {"id": "u1"}}, state={"n": 0}, config={"configurable": {"tenant": "t"}})
    request = ToolCallRequest("x", {}, "s", headers={"X-User-Id": "42"}, runtime=runtime)
    reads = {text: ValueSource.parse(text).read(request) for text in ("context.user.id", "config.configurable.tenant")}
    assert reads == {"context.user.id": "u1", "config.configurable.tenant": "t"}
    assert ValueSource.parse("state.n").read(request) == 0
    assert ValueSource.parse("header.x-user-id").read(request) == "42"
    assert ValueSource.parse("context.missing").read(request) is None
    for bad in ("user_id", "context.", "header.a.b", "env.HOME", "context..x"):
        with pytest.raises(ValueError, match="is not a value source"):
            ValueSource.parse(bad)


def test_questions_check_resume_values_and_skip_other_kinds() -> None:
    def check(payload: Any, answer: Any) -> str:
        if answer not in ("yes", "no"):
            raise ValueError(f"answer yes or no for tool {payload['name']!r}, not {answer!r}")
        return str(answer)

    question = Question("demo_question", "a yes or no", check)
    mine = Interrupt({"type": "demo_question", "server_name": "s", "name": "t"}, id="1")
    other = Interrupt({"type": "other"}, id="2")
    assert question.resume([mine, other], "yes") == {"1": "yes"}
    assert question.resume([mine], lambda payload: "no" if payload["name"] == "t" else "yes") == {"1": "no"}
    with pytest.raises(ValueError, match="answer yes or no for tool 't', not 'maybe'"):
        question.resume(mine, "maybe")
    with pytest.raises(ValueError, match="interrupt 2 is a 'other' interrupt, not 'demo_question'"):
        question.resume(other, "yes")
    # the LangGraph SDK's form: `(await client.threads.get_state(thread_id))["interrupts"]`
    sdk = [{"id": "1", "value": mine.value}, {"id": "2", "value": other.value}]
    assert question.resume(sdk, "yes") == {"1": "yes"}
    assert question.resume(sdk[0], "no") == {"1": "no"}
    with pytest.raises(TypeError, match=r"expected a LangGraph Interrupt or an \{'id', 'value'\} dict, got str"):
        question.resume(["1"], "yes")  # type: ignore[list-item]


async def test_asking_outside_a_graph_is_an_error_message_and_the_call_never_runs() -> None:
    question = Question("demo_question", "a yes or no", lambda payload, answer: answer)

    async def ask_first(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        question.ask(request, {"why": "test"})
        return await handler(request)

    async with MCPBridge({"basic": basic.build()}, plugins=[], interceptors=[ask_first]) as bridge:
        message = await bridge.call_tool("basic", "echo", {"text": "x"})
    assert message.status == "error"
    assert "a yes or no for tool 'echo' on server 'basic' needs to pause the agent" in message.content


def test_a_declaration_must_be_a_plugin() -> None:
    class Wrong:
        mcpbridge_name = "wrong"
        mcpbridge_plugin = ("position", 1)

    with pytest.raises(PluginError, match="`mcpbridge_plugin` must be a `mcpbridge.Plugin"):
        MCPBridge({}, plugins=[Wrong()])


def test_the_chain_is_fixed_once_the_bridge_is_built() -> None:
    bridge = MCPBridge({}, plugins=[])
    assert isinstance(bridge.interceptors, tuple)
    with pytest.raises(AttributeError):
        bridge.interceptors = ()  # type: ignore[misc]


def test_hook_and_interceptor_calls_are_traced_in_the_order_they_run(tmp_path: Any) -> None:
    script = tmp_path / "trace.py"
    script.write_text(
        "import asyncio\n"
        "from mcpbridge import MCPBridge, Plugin, hookimpl\n"
        "from tests.servers import basic\n"
        "class Outer:\n"
        "    mcpbridge_name = 'outer'\n"
        "    mcpbridge_plugin = Plugin(position=1)\n"
        "    @hookimpl\n"
        "    def mcpbridge_interceptors(self):\n"
        "        async def outer(request, handler):\n"
        "            return await handler(request)\n"
        "        return [outer]\n"
        "async def main():\n"
        "    async with MCPBridge({'basic': basic.build()}, plugins=[Outer()]) as bridge:\n"
        "        await bridge.call_tool('basic', 'echo', {'text': 'x'})\n"
        "asyncio.run(main())\n"
    )
    env = {"MCPBRIDGE_TRACE_HOOKS": "1", "PYTHONPATH": str(basic.__file__).rsplit("/tests/", 1)[0]}
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("mcpbridge ")]
    assert lines[:2] == [
        "mcpbridge hook: #0 outer.mcpbridge_interceptors",
        "mcpbridge hook: #1 claiming.mcpbridge_interceptors",
    ]
    assert lines[2:-1] == [
        "mcpbridge call: -> Outer.mcpbridge_interceptors.<locals>.outer (basic/echo)",
        "mcpbridge call: -> claiming (basic/echo)",
        "mcpbridge call: <- claiming returned CallToolResult",
        "mcpbridge call: <- Outer.mcpbridge_interceptors.<locals>.outer returned CallToolResult",
    ]
    assert lines[-1] == "mcpbridge hook: #1 claiming.mcpbridge_teardown"


def test_one_error_tree() -> None:
    for error in (InvalidToolArguments, InvalidHeader, CannotPauseError, MCPToolError, ToolTimeoutError):
        assert issubclass(error, ToolCallError)
    assert issubclass(ServerConnectionError, ToolCallError)
    assert issubclass(ServerConnectionError, ConnectionError)
    assert issubclass(ToolTimeoutError, TimeoutError)
    assert issubclass(ToolCallError, MCPBridgeError)
    assert issubclass(ToolCallError, ToolException)
    assert issubclass(ConfigError, MCPBridgeError)
    assert issubclass(PluginError, MCPBridgeError)
    error = ToolCallError("the call failed", server_name="s", name="t")
    error.add_note("gave up after 3 attempts")
    assert (error.server_name, error.name, error.message()) == ("s", "t", "the call failed (gave up after 3 attempts)")


async def test_a_plugin_error_with_notes_is_one_error_message() -> None:
    async def refuse(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        error = ToolCallError("refused by policy", server_name=request.server_name, name=request.name)
        error.add_note("ask an admin")
        raise error

    async with MCPBridge({"basic": basic.build()}, plugins=[], interceptors=[refuse]) as bridge:
        message = await bridge.call_tool("basic", "echo", {"text": "x"})
        [echo] = [t for t in await bridge.list_tools() if t.name == "echo"]
        with pytest.raises(ToolCallError, match="refused by policy"):
            await echo.ainvoke({"text": "x"})  # plain arguments: the error itself
    assert (message.status, message.content) == ("error", "refused by policy (ask an admin)")


async def test_a_call_during_which_the_server_asked_is_told_so() -> None:
    """A legacy server asks mid-call through a client callback; the call's observers hear
    `server.asked` (a cache must never store such an answer), a call that asked nothing does not."""
    from tests.plugins.elicitation import elicit_servers
    from tests.servers.answering import Answering

    heard: list[tuple[str, str, dict[str, Any]]] = []

    async def listen(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        def observer(event: str, data: Any) -> None:
            heard.append((request.name, event, dict(data)))

        return await handler(request.override(observers=(*request.observers, observer)))

    servers = {"shop": {"server": elicit_servers.build(), "mode": "legacy"}, "basic": basic.build()}
    async with MCPBridge(servers, plugins=[Answering()], interceptors=[listen]) as bridge:
        booked = await bridge.call_tool("shop", "book", {"room": "green"})
        echoed = await bridge.call_tool("basic", "echo", {"text": "x"})
    assert booked.content[0]["text"] == "booked green on 2030-01-02"
    assert echoed.status == "success"
    assert [(name, event, data) for name, event, data in heard if event == "server.asked"] == [
        ("book", "server.asked", {"kinds": ["elicitation"]})
    ]
