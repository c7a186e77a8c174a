"""The plugin system with really installed distributions: discovery, broken plugins,
enable / disable / order through config and environment, and `mcpbridge plugins`."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from mcpbridge_cli import main as cli

from mcpbridge import (
    BridgeContext,
    ConfigError,
    MCPBridge,
    Plugin,
    PluginError,
    Settings,
    ToolCallHandler,
    ToolCallRequest,
    hookimpl,
)
from mcpbridge._platform.plugins import PluginHost
from tests.helpers import ROOT
from tests.servers import basic

EXAMPLE = ROOT / "docs" / "examples" / "redact"
BROKEN = ROOT / "tests" / "core" / "broken_plugin"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example and the broken plugin, pip-installed into a directory of their own."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(EXAMPLE),
            str(BROKEN),
        ],
        check=True,
    )
    return target


OTHERS: list[str] = []
"""Plugins installed in this environment besides the two under test (ours, in the workspace)."""


@pytest.fixture
def installed(site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.syspath_prepend(str(site))
    for name in ("MCPBRIDGE_PLUGINS", "MCPBRIDGE_DISABLED_PLUGINS", "MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD"):
        monkeypatch.delenv(name, raising=False)
    OTHERS[:] = sorted(ep.name for ep in entry_points(group="mcpbridge") if ep.name not in {"redact", "broken"})
    yield site
    for module in ("mcpbridge_redact", "mcpbridge_broken"):
        sys.modules.pop(module, None)


def host(**plugins: Any) -> PluginHost:
    """A plugin host that sees only the two plugins under test."""
    plugins["disabled"] = [*plugins.get("disabled", []), *OTHERS]
    return PluginHost(Settings(plugins=plugins))


def secret_server() -> Any:
    server = basic.build()

    @server.tool()
    def leak() -> str:
        return "key is sk-ABCDEFGH1234 ok"

    return server


async def test_example_plugin_is_discovered_and_runs(installed: Path) -> None:
    with pytest.warns(
        RuntimeWarning, match=r"plugin 'broken' \(distribution mcpbridge-broken\) failed to load: ModuleNotFoundError"
    ):
        bridge = MCPBridge({"basic": secret_server()}, settings=Settings(plugins={"disabled": OTHERS}))
    assert bridge._host.infos["redact"].distribution == "mcpbridge-redact"
    assert bridge._host.infos["broken"].enabled is False
    async with bridge:
        leak = {t.name: t for t in await bridge.list_tools()}["leak"]
        assert (await leak.ainvoke({}))[0]["text"] == "key is [REDACTED] ok"


def test_broken_plugin_is_an_error_when_strict_or_asked_for(installed: Path) -> None:
    with pytest.raises(PluginError, match="plugin 'broken' .*failed to load.*MCPBRIDGE_DISABLED_PLUGINS=broken"):
        host(strict=True)
    with pytest.raises(PluginError, match="'broken'"):
        PluginHost(Settings(), ["broken"])


def test_enable_disable_through_config_and_environment(installed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert host(disabled=["broken"]).enabled == ["redact"]
    assert host(enabled=["redact"]).enabled == ["redact"]
    assert host(disabled=["broken", "redact"]).infos["redact"].reason == "disabled in [plugins] disabled"
    assert host(autoload=False).enabled == []
    monkeypatch.setenv("MCPBRIDGE_PLUGINS", "redact")
    assert host().enabled == ["redact"]
    monkeypatch.delenv("MCPBRIDGE_PLUGINS")
    monkeypatch.setenv("MCPBRIDGE_DISABLED_PLUGINS", ",".join(["broken", "redact", *OTHERS]))
    assert host().infos["redact"].reason == "disabled (MCPBRIDGE_DISABLED_PLUGINS)"
    monkeypatch.delenv("MCPBRIDGE_DISABLED_PLUGINS")
    monkeypatch.setenv("MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD", "1")
    assert host().enabled == []
    assert host(enabled=["redact"]).enabled == ["redact"]


def test_unknown_plugin_names_list_the_installed_ones(installed: Path) -> None:
    with pytest.raises(
        ConfigError, match="unknown plugin 'redcat' in \\[plugins\\] disabled .*; installed plugins: .*broken, .*redact"
    ):
        host(disabled=["redcat"])
    with pytest.raises(ConfigError, match=r"unknown plugin 'nope' configured by \[plugins.nope\]"):
        host(disabled=["broken"], nope={"a": 1})
    with pytest.raises(PluginError, match="unknown plugin 'nope'"):
        PluginHost(Settings(), ["nope"])


def test_plugin_settings_are_validated_by_the_plugin(installed: Path) -> None:
    with pytest.raises(ConfigError, match=r"plugin 'redact': invalid settings: `plugins.redact.pattern`: unknown key"):
        MCPBridge({}, plugins=["redact"], plugin_settings={"redact": {"pattern": "x"}})
    with pytest.raises(
        PluginError, match="plugin 'redact' failed in mcpbridge_check_settings: ValueError: .*not a regular expression"
    ):
        MCPBridge({}, plugins=["redact"], plugin_settings={"redact": {"patterns": ["("]}})


class Tracer:
    """A plugin object recording the order its interceptor runs in."""

    def __init__(self, name: str, trace: list[str], declared: Plugin | None = None) -> None:
        self.mcpbridge_name = name
        self.trace = trace
        if declared is not None:
            self.mcpbridge_plugin = declared

    @hookimpl
    def mcpbridge_interceptors(self, context: BridgeContext) -> list[Any]:
        async def interceptor(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
            self.trace.append(self.mcpbridge_name)
            return await handler(request)

        return [interceptor]


async def test_default_order_direct_interceptors_and_order_override() -> None:
    trace: list[str] = []

    async def direct(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        trace.append("direct")
        return await handler(request)

    plugins = [
        Tracer("zeta", trace),
        Tracer("inner", trace, Plugin(position=90)),
        Tracer("outer", trace, Plugin(position=10)),
        Tracer("alpha", trace),
        Tracer("wrapped", trace, Plugin(position=5, after=("alpha",))),
    ]
    bridge = MCPBridge({"basic": basic.build()}, plugins=plugins, interceptors=[direct])
    assert bridge.chain == ("outer", "alpha", "wrapped", "zeta", "inner", "interceptors", "claiming")
    async with bridge:
        await {t.name: t for t in await bridge.list_tools()}["echo"].ainvoke({"text": "x"})
    assert trace == ["outer", "alpha", "wrapped", "zeta", "inner", "direct"]
    reordered = MCPBridge(
        {},
        plugins=plugins,
        interceptors=[direct],
        plugin_settings={},
        settings=Settings(plugins={"order": ["interceptors", "zeta"]}),
    )
    assert reordered.chain == ("interceptors", "zeta", "outer", "alpha", "wrapped", "inner", "claiming")


def test_hook_typos_and_bad_returns_are_named() -> None:
    class Typo:
        mcpbridge_name = "typo"

        @hookimpl
        def mcpbridge_interceptor(self) -> None: ...

    with pytest.raises(PluginError, match="plugin 'typo' implements a hook that does not exist"):
        MCPBridge({}, plugins=[Typo()])

    class NotCallable:
        mcpbridge_name = "bad"

        @hookimpl
        def mcpbridge_interceptors(self) -> list[Any]:
            return ["nope"]

    with pytest.raises(PluginError, match="plugin 'bad' returned 'nope' from mcpbridge_interceptors"):
        MCPBridge({}, plugins=[NotCallable()])


def test_client_options_conflicts_are_refused() -> None:
    class Options:
        def __init__(self, name: str) -> None:
            self.mcpbridge_name = name

        @hookimpl
        def mcpbridge_client_options(self, server_name: str) -> dict[str, Any]:
            return {"logging_callback": None}

    with pytest.raises(PluginError, match="plugins 'a' and 'b' both set the mcp Client option 'logging_callback'"):
        MCPBridge({"s": basic.build()}, plugins=[Options("a"), Options("b")])


def test_plugins_command(
    installed: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mcpbridge.toml").write_text(f"[plugins]\ndisabled = {json.dumps(['broken', *OTHERS])}\n")
    assert cli(["plugins", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = {row["name"]: row for row in data["plugins"]}
    assert rows["redact"]["state"] == "enabled"
    assert rows["redact"]["position"] == 0
    assert rows["redact"]["hooks"] == ["mcpbridge_check_settings", "mcpbridge_interceptors"]
    assert rows["redact"]["version"] == "0.1.0"
    assert rows["broken"] == {**rows["broken"], "state": "disabled", "reason": "disabled in [plugins] disabled"}
    assert data["chain"] == ["redact", "claiming"]
    assert cli(["plugins"]) == 0
    assert "redact" in capsys.readouterr().out


def test_no_warning_when_broken_plugin_is_disabled(installed: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        host(disabled=["broken"])
