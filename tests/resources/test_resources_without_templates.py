"""A server that lists resources but answers `resources/templates/list` with -32601 (method
not found), as mcp-server-sqlite and @modelcontextprotocol/server-postgres do, has resources
and no templates: for `list_resource_templates`, `mcpbridge resources SERVER` and
`mcpbridge resources`; and one with templates only has no resources. A server with neither
list is still reported and left out."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp.server.lowlevel import Server
from mcp.types import METHOD_NOT_FOUND, ListResourceTemplatesResult, ListToolsResult, PaginatedRequestParams
from mcpbridge_cli import main
from mcpbridge_resources import get_resources, list_resource_templates, list_resources

from mcpbridge import MCPBridge, ServerRequestError
from tests.helpers import stdio_config
from tests.resources.untemplated_server import URI, build

HERE = "tests.resources.untemplated_server"


async def test_a_server_without_templates_lists_its_resources_and_no_templates() -> None:
    async with MCPBridge({"db": {"server": build()}}, plugins=[]) as bridge:
        with pytest.raises(ServerRequestError) as caught:  # what the server answers
            await bridge.request("db", "resources/templates/list", lambda session: session.list_resource_templates())
        assert caught.value.code == METHOD_NOT_FOUND
        assert await list_resource_templates(bridge, "db") == []
        assert [str(resource.uri) for resource in await list_resources(bridge, "db")] == [URI]
        [blob] = await get_resources(bridge, "db")
        assert blob.as_string() == "no insights yet"


async def test_other_errors_of_the_templates_list_still_raise() -> None:
    async def failing(ctx: Any, params: PaginatedRequestParams | None) -> ListResourceTemplatesResult:
        raise RuntimeError("the template store is down")

    async def no_tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[])

    server = Server("db", on_list_resource_templates=failing, on_list_tools=no_tools)
    async with MCPBridge({"db": {"server": server}}, plugins=[]) as bridge:
        with pytest.raises(ServerRequestError, match="resources/templates/list") as caught:
            await list_resource_templates(bridge, "db")
        assert caught.value.code != METHOD_NOT_FOUND


def config_file(tmp_path: Path, servers: dict[str, dict[str, Any]]) -> str:
    lines = []
    for name, server in servers.items():
        lines += [f"[servers.{name}]", f"command = {json.dumps(server['command'])}"]
        lines += [f"args = {json.dumps(server['args'])}", f"cwd = {json.dumps(server['cwd'])}"]
    path = tmp_path / "mcpbridge.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_the_command_lists_the_resources_of_a_server_without_templates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_file(
        tmp_path,
        {
            "db": stdio_config(HERE),
            "docs": stdio_config("tests.servers.docs"),
            "rows": stdio_config(HERE, args=["-m", HERE, "templates"]),
            "bare": stdio_config(HERE, args=["-m", HERE, "nothing"]),
        },
    )
    assert main(["resources", "db", "--config", config]) == 0
    assert f"db  {URI}  (text/plain)  insights" in capsys.readouterr().out

    assert main(["resources", "db", "--json", "--config", config]) == 0
    listed = json.loads(capsys.readouterr().out)
    resource = {"name": "insights", "uri": URI, "mimeType": "text/plain"}
    assert listed == {"db": {"resources": [resource], "templates": []}}

    assert main(["resources", "--config", config]) == 0
    captured = capsys.readouterr()
    assert f"db  {URI}" in captured.out
    assert "docs  file:///readme.txt" in captured.out
    assert "greeting://{name}" in captured.out
    assert "rows  rows://{table}/{id}  [template]  row" in captured.out  # templates, no resources/list
    assert "'db'" not in captured.err
    assert "'rows'" not in captured.err
    assert "'bare' answered resources/list with an error" in captured.err  # it offers no resources: left out
    assert "bare  " not in captured.out
