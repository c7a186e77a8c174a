"""Config mistakes are refused naming the key, the file and the fix: a misspelled key or
plugin name gets the closest right one, a plugin of this project that is not installed its
`pip install`, a `url` that is not http(s) is refused when the config loads, a config with no
servers says so, and `[tool.mcpbridge]` in pyproject.toml is found as the config file."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbridge import ConfigError, MCPBridge, PluginError, load_settings

ROOT = Path(__file__).resolve().parents[2]


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("timout = 3\n", "timout: unknown key (did you mean `timeout`?)"),
        ('[servers.a]\ncommand = "x"\nagrs = ["y"]\n', "servers.a.agrs: unknown key (did you mean `args`?)"),
        (
            '[plugins]\nenable = ["cache"]\n',
            "`plugins.enable` must be a table of that plugin's settings (did you mean `enabled`?)",
        ),
        ('[servers.a]\nurl = "htp://example.com/mcp"\n', "`url` must start with http:// or https://"),
    ],
)
def test_a_bad_key_names_the_key_the_file_and_the_fix(tmp_path: Path, text: str, said: str) -> None:
    file = write(tmp_path / "mcpbridge.toml", text)
    with pytest.raises(ConfigError) as raised:
        load_settings(file)
    assert said in str(raised.value)
    assert str(file) in str(raised.value)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (
            '[plugins]\nenabled = ["cahce"]\n',
            "unknown plugin 'cahce' in [plugins] enabled ({file}) (did you mean `cache`?)",
        ),
        (
            '[plugins]\norder = ["retyr"]\n',
            "unknown plugin 'retyr' in [plugins] order ({file}) (did you mean `retry`?)",
        ),
        (
            "[plugins.cahce]\nttl = 3\n",
            "unknown plugin 'cahce' configured by [plugins.cahce] ({file}) (did you mean `cache`?)",
        ),
    ],
)
def test_a_misspelled_plugin_name_gets_the_closest_installed_one(tmp_path: Path, text: str, said: str) -> None:
    file = write(tmp_path / "mcpbridge.toml", text)
    with pytest.raises(ConfigError) as raised:
        MCPBridge.from_config(file)
    assert said.format(file=file) in str(raised.value)


PLUGIN_FOLDERS = sorted(path.name for path in (ROOT / "plugins").iterdir() if not path.name.startswith("_"))


@pytest.mark.parametrize("name", PLUGIN_FOLDERS)
def test_a_plugin_of_this_project_that_is_not_installed_says_how_to_install_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.path", [str(tmp_path)])  # no distribution is found: none is installed
    with pytest.raises(
        PluginError, match=rf"\(not installed: if it is a published plugin, `pip install mcpbridge-{name}`\)"
    ):
        MCPBridge({}, plugins=[name])


def test_a_plugin_name_not_installed_is_named_in_the_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.path", [str(tmp_path)])
    file = write(tmp_path / "mcpbridge.toml", '[plugins]\nenabled = ["approval"]\n')
    with pytest.raises(ConfigError) as raised:
        MCPBridge.from_config(file)
    hint = "(not installed: if it is a published plugin, `pip install mcpbridge-approval`)"
    assert f"unknown plugin 'approval' in [plugins] enabled ({file}) {hint}" in str(raised.value)
    with pytest.raises(
        PluginError, match="unknown plugin 'mine'.*`pip install mcpbridge-mine`.*installed plugins: none$"
    ):
        MCPBridge({}, plugins=["mine"])


def test_a_config_with_no_servers_says_so_and_how_to_add_one(tmp_path: Path) -> None:
    file = write(tmp_path / "mcpbridge.toml", "timeout = 9\n")
    with MCPBridge.from_config(file, plugins=[]) as bridge, pytest.raises(ConfigError) as raised:
        bridge.list_tools_sync()
    assert f"no servers configured in {file}: add a `[servers.<name>]` table" in str(raised.value)


def test_pyproject_tool_table_is_found_without_a_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", '[project]\nname = "app"\n[tool.mcpbridge.servers.a]\ncommand = "x"\n')
    settings = load_settings()
    assert settings.servers["a"].command == "x"
    assert settings.source == "pyproject.toml"
    write(tmp_path / "mcpbridge.toml", '[servers.b]\ncommand = "y"\n')
    assert set(load_settings().servers) == {"b"}  # mcpbridge.toml first


def test_without_any_config_file_the_error_names_both_places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "pyproject.toml", '[project]\nname = "app"\n')
    with pytest.raises(
        ConfigError, match=r"'mcpbridge.toml' not found: create it, or a \[tool.mcpbridge\] table in pyproject.toml"
    ):
        load_settings()
