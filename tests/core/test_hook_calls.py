"""Hooks go through pluggy's own `manager.hook`: its tracing shows them, `tryfirst` /
`trylast` / `wrapper` mean what they mean in pluggy, an error names the plugin; each plugin
keeps per-bridge state in `config.stash`; declared artifact types reach every hook."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Generator
from typing import Any

import pytest
from pydantic import BaseModel

from mcpbridge import BridgeContext, MCPBridge, Plugin, PluginError, StashKey, hookimpl
from mcpbridge._base.config import build_settings
from mcpbridge._platform.plugins import PluginHost
from tests.servers import basic


class Named(BaseModel):
    name: str = ""


class Recorder:
    """A plugin that records its hook calls in `heard`, shared by the plugins of a test."""

    def __init__(self, name: str, heard: list[str], declared: Plugin | None = None) -> None:
        self.mcpbridge_name = name
        self.mcpbridge_plugin = declared or Plugin(settings=Named)
        self.heard = heard

    @hookimpl
    def mcpbridge_status(self, settings: Named) -> str:
        self.heard.append(f"{self.mcpbridge_name}:{settings.name}")
        return settings.name


class Eager(Recorder):
    @hookimpl(tryfirst=True)
    def mcpbridge_status(self, settings: Named) -> str:
        return super().mcpbridge_status(settings)


class Late(Recorder):
    @hookimpl(trylast=True)
    def mcpbridge_status(self, settings: Named) -> str:
        return super().mcpbridge_status(settings)


def bridge(*plugins: object, **tables: dict[str, Any]) -> MCPBridge:
    return MCPBridge({"basic": basic.build()}, plugins=list(plugins), plugin_settings=tables)


def test_hooks_run_in_chain_order_and_tryfirst_trylast_move_them() -> None:
    heard: list[str] = []
    names = {name: {"name": name.upper()} for name in ("outer", "middle", "inner")}
    plain = bridge(
        Recorder("inner", heard, Plugin(settings=Named, position=90)),
        Recorder("outer", heard, Plugin(settings=Named, position=10)),
        Recorder("middle", heard),
        **names,
    )
    assert plain.plugins.status() == {"outer": "OUTER", "middle": "MIDDLE", "inner": "INNER"}
    assert heard == ["outer:OUTER", "middle:MIDDLE", "inner:INNER"]  # each got its own settings

    heard.clear()
    moved = bridge(
        Eager("inner", heard, Plugin(settings=Named, position=90)),
        Late("outer", heard, Plugin(settings=Named, position=10)),
        Recorder("middle", heard),
        **names,
    )
    moved.plugins.status()
    assert heard == ["inner:INNER", "middle:MIDDLE", "outer:OUTER"]
    assert moved.chain[:3] == ("outer", "middle", "inner")  # the chain stays as declared


def test_pluggy_tracing_shows_the_hook_calls() -> None:
    lines: list[str] = []
    host = PluginHost(build_settings({"plugins": {"autoload": False}}), [Recorder("traced", [])])
    host.manager.trace.root.setwriter(lines.append)
    host.manager.enable_tracing()
    host.configure()
    host.interceptors()
    assert host.status() == {}  # the settings' name is empty: no line
    trace = "".join(lines)
    for hook in ("mcpbridge_check_settings", "mcpbridge_interceptors", "mcpbridge_status"):
        assert f"{hook} [hook]" in trace
    assert "finish mcpbridge_status --> ['']" in trace
    assert "<each plugin's own>" in trace  # what the call passes for `settings`


def test_a_wrapper_runs_around_the_others_with_its_own_settings() -> None:
    seen: list[Any] = []

    class Around:
        mcpbridge_name = "around"
        mcpbridge_plugin = Plugin(settings=Named)

        @hookimpl(wrapper=True)
        def mcpbridge_status(self, settings: Named) -> Generator[None, list[str], list[str]]:
            seen.append(settings.name)
            answers = yield
            seen.append(list(answers))
            return answers

    host = bridge(Around(), Recorder("plain", []), around={"name": "mine"}, plain={"name": "theirs"}).plugins
    assert host.status() == {"plain": "theirs"}
    assert seen == ["mine", ["theirs"]]


def test_an_error_names_the_plugin_and_a_wrapper_sees_it() -> None:
    caught: list[BaseException] = []

    class Broken:
        mcpbridge_name = "broken"

        @hookimpl
        def mcpbridge_interceptors(self) -> list[Any]:
            raise ValueError("boom")

    class Watching:
        mcpbridge_name = "watching"

        @hookimpl(wrapper=True)
        def mcpbridge_interceptors(self) -> Generator[None, Any, Any]:
            try:
                return (yield)
            except PluginError as exc:
                caught.append(exc)
                raise

    with pytest.raises(PluginError, match="plugin 'broken' failed in mcpbridge_interceptors: ValueError: boom"):
        bridge(Broken(), Watching())
    [error] = caught
    assert isinstance(error.__cause__, ValueError)

    class BrokenWrapper:
        mcpbridge_name = "broken_wrapper"

        @hookimpl(wrapper=True)
        def mcpbridge_interceptors(self) -> Generator[None, Any, Any]:
            raise RuntimeError("before yielding")
            yield  # a generator function, as pluggy requires of a wrapper

    with pytest.raises(PluginError, match="plugin 'broken_wrapper' failed in mcpbridge_interceptors: RuntimeError"):
        bridge(BrokenWrapper())


class Counter:
    calls = 0


COUNTER = StashKey[Counter]()


class Counting:
    """Keeps one `Counter` per bridge in the stash, shared by two of its hooks."""

    mcpbridge_name = "counting"

    @hookimpl
    def mcpbridge_interceptors(self, config: BridgeContext) -> list[Any]:
        counter = config.stash.setdefault(COUNTER, Counter())

        async def count(request: Any, handler: Any) -> Any:
            counter.calls += 1
            return await handler(request)

        return [count]

    @hookimpl
    def mcpbridge_status(self, config: BridgeContext) -> str:
        return f"{config.stash[COUNTER].calls} calls"


async def test_two_bridges_keep_separate_state_and_it_dies_with_the_bridge() -> None:
    plugin = Counting()  # one plugin object, two bridges
    first, second = bridge(plugin), bridge(plugin)
    async with first:
        await first.call_tool("basic", "echo", {"text": "a"})
        await first.call_tool("basic", "echo", {"text": "b"})
    async with second:
        await second.call_tool("basic", "echo", {"text": "c"})
    assert (first.plugins.status(), second.plugins.status()) == ({"counting": "2 calls"}, {"counting": "1 calls"})
    assert first.plugins.config.stash[COUNTER] is not second.plugins.config.stash[COUNTER]
    kept = weakref.ref(first.plugins.config.stash[COUNTER])
    del first
    gc.collect()
    assert kept() is None


def test_a_stash_is_typed_by_its_keys() -> None:
    stash = MCPBridge({}, plugins=[]).plugins.config.stash
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
        def mcpbridge_check_settings(self, config: BridgeContext) -> None:
            seen.append(config.artifact_types)

    class Adds:
        def __init__(self, name: str, *artifacts: str) -> None:
            self.mcpbridge_name = name
            self.mcpbridge_plugin = Plugin(artifacts=artifacts)

    bridge(Reader(), Adds("a", "a_note"), Adds("b", "b_note", "a_note"))
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

    async with bridge(Closing("outer", 10), Closing("inner", 90)):
        pass
    assert closed == ["inner", "outer"]
