"""Hooks go through pluggy as pluggy users know it: its implementations are the plugins' own
functions (never rewritten), each plugin's is called by itself in chain order, pluggy's
tracing shows the calls, an error names the plugin; every hook gets the bridge's `context`,
where a plugin reads its own validated table and keeps per-bridge state in `stash`."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Generator
from typing import Any

import pytest
from pydantic import BaseModel

from mcpbridge import BridgeContext, MCPBridge, Plugin, PluginError, Settings, StashKey, hookimpl
from mcpbridge._platform.plugins import PluginHost
from tests.servers import basic


class Named(BaseModel):
    name: str = ""


class Recorder:
    """A plugin that records its hook calls in `heard`, shared by the plugins of a test; each
    declares a settings model of its own (a subclass of `Named`)."""

    def __init__(self, name: str, heard: list[str], position: int = 50) -> None:
        self.mcpbridge_name = name
        self.model = type(f"{name.title()}Settings", (Named,), {})
        self.mcpbridge_plugin = Plugin(settings=self.model, position=position)
        self.heard = heard

    @hookimpl
    def mcpbridge_status(self, context: BridgeContext) -> str:
        name = context.settings_of(self.model).name
        self.heard.append(f"{self.mcpbridge_name}:{name}")
        return name


def host(*plugins: object, **tables: dict[str, Any]) -> PluginHost:
    settings = Settings(plugins={"autoload": False, **tables})
    built = PluginHost(settings, list(plugins))
    built.configure()
    return built


def test_hooks_run_in_chain_order_and_each_plugin_reads_its_own_table() -> None:
    heard: list[str] = []
    names = {name: {"name": name.upper()} for name in ("outer", "middle", "inner")}
    plugins = Recorder("inner", heard, 90), Recorder("outer", heard, 10), Recorder("middle", heard)
    assert host(*plugins, **names).status() == {"outer": "OUTER", "middle": "MIDDLE", "inner": "INNER"}
    assert heard == ["outer:OUTER", "middle:MIDDLE", "inner:INNER"]


def test_the_implementations_pluggy_calls_are_the_plugins_own_functions() -> None:
    plugin = Recorder("plain", [])
    [impl] = host(plugin).manager.hook.mcpbridge_status.get_hookimpls()
    assert impl.function == plugin.mcpbridge_status
    assert impl.argnames == ("context",)


def test_settings_of_names_a_model_no_plugin_declares_and_refuses_one_declared_twice() -> None:
    class Reads:
        mcpbridge_name = "reads"

        @hookimpl
        def mcpbridge_status(self, context: BridgeContext) -> str:
            return context.settings_of(Named).name

    with pytest.raises(PluginError, match=r"no enabled plugin declares the settings model Named: declare it with"):
        host(Reads()).status()

    class Twin:
        def __init__(self, name: str) -> None:
            self.mcpbridge_name = name
            self.mcpbridge_plugin = Plugin(settings=Named)

    with pytest.raises(PluginError, match=r"plugins 'a' and 'b' both declare the settings model Named: each plugin"):
        host(Twin("a"), Twin("b"))


def test_pluggy_tracing_shows_the_hook_calls() -> None:
    lines: list[str] = []
    traced = host(Recorder("traced", []))
    traced.manager.trace.root.setwriter(lines.append)
    traced.manager.enable_tracing()
    traced.interceptors()
    assert traced.status() == {}  # the settings' name is empty: no line
    trace = "".join(lines)
    for hook in ("mcpbridge_interceptors", "mcpbridge_status"):
        assert f"{hook} [hook]" in trace
    assert "context: BridgeContext(" in trace
    assert "finish mcpbridge_status --> ['']" in trace


def test_a_wrapper_runs_around_its_own_plugins_call() -> None:
    seen: list[Any] = []

    class Around:
        mcpbridge_name = "around"

        @hookimpl(wrapper=True)
        def mcpbridge_status(self, context: BridgeContext) -> Generator[None, list[str], list[str]]:
            answers = yield
            seen.append(list(answers))
            return answers

    assert host(Around(), Recorder("plain", []), plain={"name": "theirs"}).status() == {"plain": "theirs"}
    assert seen == [[]]  # called for its own plugin, not around the other's


def test_an_error_names_the_plugin_and_the_hook() -> None:
    class Broken:
        mcpbridge_name = "broken"

        @hookimpl
        def mcpbridge_interceptors(self) -> list[Any]:
            raise ValueError("boom")

    with pytest.raises(PluginError, match="plugin 'broken' failed in mcpbridge_interceptors: ValueError: boom") as info:
        MCPBridge({}, plugins=[Broken()])
    assert isinstance(info.value.__cause__, ValueError)

    class BrokenWrapper:
        mcpbridge_name = "broken_wrapper"

        @hookimpl(wrapper=True)
        def mcpbridge_interceptors(self) -> Generator[None, Any, Any]:
            raise RuntimeError("before yielding")
            yield  # a generator function, as pluggy requires of a wrapper

    with pytest.raises(PluginError, match="plugin 'broken_wrapper' failed in mcpbridge_interceptors: RuntimeError"):
        MCPBridge({}, plugins=[BrokenWrapper()])


def test_an_unhashable_plugin_is_refused_with_the_fix() -> None:
    class Unhashable:
        mcpbridge_name = "unhashable"
        __hash__ = None  # type: ignore[assignment]

    with pytest.raises(PluginError, match=r"plugin 'unhashable' is an unhashable Unhashable: give its class"):
        MCPBridge({}, plugins=[Unhashable()])


class Counter:
    calls = 0


COUNTER = StashKey[Counter]()


class Counting:
    """Keeps one `Counter` per bridge in the stash, shared by two of its hooks."""

    mcpbridge_name = "counting"

    @hookimpl
    def mcpbridge_interceptors(self, context: BridgeContext) -> list[Any]:
        counter = context.stash.setdefault(COUNTER, Counter())

        async def count(request: Any, handler: Any) -> Any:
            counter.calls += 1
            return await handler(request)

        return [count]

    @hookimpl
    def mcpbridge_status(self, context: BridgeContext) -> str:
        return f"{context.stash[COUNTER].calls} calls"


async def test_two_bridges_keep_separate_state_and_it_dies_with_the_bridge() -> None:
    plugin = Counting()  # one plugin object, two bridges
    first = MCPBridge({"basic": basic.build()}, plugins=[plugin])
    second = MCPBridge({"basic": basic.build()}, plugins=[plugin])
    async with first:
        await first.call_tool("basic", "echo", {"text": "a"})
        await first.call_tool("basic", "echo", {"text": "b"})
    async with second:
        await second.call_tool("basic", "echo", {"text": "c"})
    assert (first.context.stash[COUNTER].calls, second.context.stash[COUNTER].calls) == (2, 1)
    kept = weakref.ref(first.context.stash[COUNTER])
    del first
    gc.collect()
    assert kept() is None


def test_a_stash_is_typed_by_its_keys() -> None:
    stash = MCPBridge({}, plugins=[]).context.stash
    other = StashKey[Counter]()
    assert COUNTER not in stash
    assert stash.get(COUNTER, None) is None
    with pytest.raises(KeyError):
        stash[COUNTER]
    counter = stash.setdefault(COUNTER, Counter())
    assert stash.setdefault(COUNTER, Counter()) is counter
    assert (stash[COUNTER], stash.get(other, "unset"), len(stash)) == (counter, "unset", 1)
    del stash[COUNTER]
    assert COUNTER not in stash


def test_declared_artifact_types_reach_every_hook() -> None:
    seen: list[frozenset[str]] = []

    class Reader:
        mcpbridge_name = "reader"

        @hookimpl
        def mcpbridge_check_settings(self, context: BridgeContext) -> None:
            seen.append(context.artifact_types)

    class Adds:
        def __init__(self, name: str, *artifacts: str) -> None:
            self.mcpbridge_name = name
            self.mcpbridge_plugin = Plugin(artifacts=artifacts)

    MCPBridge({}, plugins=[Reader(), Adds("a", "a_note"), Adds("b", "b_note", "a_note")])
    assert seen == [frozenset({"a_note", "b_note"})]


async def test_teardown_awaits_innermost_first() -> None:
    closed: list[str] = []

    class Closing:
        def __init__(self, name: str, position: int) -> None:
            self.mcpbridge_name = name
            self.mcpbridge_plugin = Plugin(position=position)

        @hookimpl
        async def mcpbridge_teardown(self) -> None:
            closed.append(self.mcpbridge_name)

    async with MCPBridge({}, plugins=[Closing("outer", 10), Closing("inner", 90)]):
        pass
    assert closed == ["inner", "outer"]
