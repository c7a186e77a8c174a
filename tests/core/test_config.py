"""Config files, environment expansion and the errors bad config gets."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcpbridge import ConfigError, MCPBridge, load_settings
from tests.servers import basic


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_toml_with_env_expansion(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEATHER_TOKEN", "s3cret")
    file = write(
        tmp_path / "mcpbridge.toml",
        """
timeout = 12
tool_name_prefix = true
[servers.weather]
url = "http://127.0.0.1:8000/mcp"
headers = { Authorization = "Bearer ${WEATHER_TOKEN}" }
mode = "legacy"
[servers.files]
command = "python"
args = ["-m", "files_server", "${FILES_ROOT:-/srv}"]
timeout = 3
[plugins]
disabled = []
""",
    )
    settings = load_settings(file)
    assert settings.servers["weather"].headers == {"Authorization": "Bearer s3cret"}
    assert settings.servers["weather"].transport == "http"
    assert settings.servers["weather"].client_mode == "legacy"
    assert settings.servers["files"].args == ["-m", "files_server", "/srv"]
    assert settings.server_timeout("files") == 3
    assert settings.server_timeout("weather") == 12
    assert settings.source == str(file)


def test_pyproject_table(tmp_path: Path) -> None:
    file = write(tmp_path / "pyproject.toml", '[tool.mcpbridge.servers.a]\ncommand = "x"\n')
    assert load_settings(file).servers["a"].command == "x"
    with pytest.raises(ConfigError, match=r"has no \[tool.mcpbridge\] table"):
        load_settings(write(tmp_path / "pyproject.toml", "[tool.x]\n"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[servers.a]\ncommand = "x"\ntimout = 3\n', r"servers.a.timout: unknown key"),
        (
            '[servers.a]\ncommand = "x"\nurl = "http://h"\n',
            r"servers.a: give exactly one of `command`.*got command, url",
        ),
        ('[servers.a]\ncommand = "x"\nheaders = {a = "b"}\n', r"`headers` only apply to `url` servers"),
        (
            '[servers.a]\nurl = "http://h"\nmode = "new"\n',
            r"servers.a.mode: Input should be 'auto', 'legacy' or 'modern'",
        ),
        ('[servers.a]\nurl = "http://h"\ntimeout = "slow"\n', r"servers.a.timeout: Input should be a valid number"),
        (
            '[servers.a]\nurl = "${NOPE_NOT_SET}"\n',
            r"`servers.a.url` uses \$\{NOPE_NOT_SET\} but NOPE_NOT_SET is not set",
        ),
        ("tool_name_prefix = \n", r"not valid TOML"),
        ("[plugins]\nheaders = 3\n", r"`plugins.headers` must be a table"),
    ],
)
def test_bad_config_names_the_key_and_the_file(tmp_path: Path, text: str, message: str) -> None:
    file = write(tmp_path / "mcpbridge.toml", text)
    with pytest.raises(ConfigError, match=message) as raised:
        load_settings(file)
    assert str(file) in str(raised.value)


def test_missing_file_says_how_to_fix(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found: create it"):
        load_settings(tmp_path / "mcpbridge.toml")


async def test_from_config_and_python_overrides(tmp_path: Path) -> None:
    file = write(tmp_path / "mcpbridge.toml", "timeout = 9\n")
    server = basic.build()
    async with MCPBridge.from_config(file, servers={"basic": server}, tool_name_prefix=True, plugins=[]) as bridge:
        assert bridge.settings.timeout == 9
        assert "basic_echo" in {t.name for t in await bridge.list_tools()}


def test_python_arguments_are_validated_too() -> None:
    with pytest.raises(ConfigError, match="servers.x: give exactly one"):
        MCPBridge({"x": {}}, plugins=[])
    with pytest.raises(ConfigError, match="on_server_error: Input should be 'raise' or 'skip'"):
        MCPBridge({}, plugins=[], on_server_error="ignore")  # type: ignore[arg-type]
