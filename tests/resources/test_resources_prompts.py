"""Resources as Blobs, prompts as messages (mcpbridge-resources) and server info (the core),
from real servers: ours (an MCPServer in-process, over streamable HTTP and stdio) and npm
server-everything."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any, TypeVar

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from mcp.server.lowlevel import Server
from mcp.types import (
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ListToolsResult,
    PaginatedRequestParams,
    Prompt,
    Resource,
    ResourceTemplate,
)
from mcpbridge_cli import main
from mcpbridge_resources import get_prompt, get_resources, list_prompts, list_resource_templates, list_resources

from mcpbridge import MCPBridge, ServerConnectionError, ServerRequestError
from mcpbridge.testing import serve_http
from tests.helpers import stdio_config
from tests.helpers.thirdparty import EVERYTHING, need, node_stdio
from tests.servers.docs import PNG, build

T = TypeVar("T")
HERE = "tests.servers.docs"


async def check_everything_ours(bridge: MCPBridge) -> None:
    resources = await list_resources(bridge, "docs")
    assert {str(r.uri) for r in resources} == {"file:///readme.txt", "data://logo.png"}
    [template] = await list_resource_templates(bridge, "docs")
    assert template.uri_template == "greeting://{name}"

    blobs = await get_resources(bridge, "docs")
    by_uri = {blob.metadata["uri"]: blob for blob in blobs}
    assert by_uri["file:///readme.txt"].as_string() == "hello from the readme"
    assert by_uri["file:///readme.txt"].mimetype == "text/plain"
    assert by_uri["data://logo.png"].as_bytes() == PNG
    assert by_uri["data://logo.png"].mimetype == "image/png"
    assert all(blob.metadata["server_name"] == "docs" for blob in blobs)

    [hello] = await get_resources(bridge, "docs", uris="greeting://Ada")
    assert hello.as_string() == "Hello, Ada!"
    assert hello.metadata == {"uri": "greeting://Ada", "server_name": "docs"}

    [prompt] = await list_prompts(bridge, "docs")
    assert prompt.name == "review"
    assert {a.name: a.required for a in prompt.arguments or []} == {"code": True, "strict": False}
    messages = await get_prompt(bridge, "docs", "review", {"code": "x = 1", "strict": True})
    assert [type(m) for m in messages] == [HumanMessage, AIMessage, HumanMessage, HumanMessage]
    assert messages[0].content == "Review this (strict=true):\nx = 1"
    assert messages[1].content == "Looks fine; one question."
    [image] = messages[2].content
    assert isinstance(image, dict)
    assert image["type"] == "image"
    assert image["mime_type"] == "image/png"
    assert base64.b64decode(image["base64"]) == PNG
    [embedded] = messages[3].content
    assert isinstance(embedded, dict)
    assert embedded["type"] == "text"
    assert embedded["text"] == "Be kind."

    info = await bridge.server_info("docs")
    assert (info.server_name, info.name, info.version, info.title) == ("docs", "docs", "1.2.3", "Docs server")
    assert info.instructions == "Read README first."


async def test_resources_prompts_and_info_in_process() -> None:
    async with MCPBridge({"docs": build()}, plugins=[]) as bridge:
        await check_everything_ours(bridge)


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_resources_prompts_and_info_over_http(mode: str) -> None:
    served = serve_http(build())
    try:
        async with MCPBridge({"docs": {"url": served.url, "mode": mode}}, plugins=[]) as bridge:
            await check_everything_ours(bridge)
    finally:
        await asyncio.to_thread(served.stop)


async def test_resources_prompts_and_info_over_stdio() -> None:
    async with MCPBridge({"docs": stdio_config(HERE)}, plugins=[]) as bridge:
        await check_everything_ours(bridge)


async def test_server_errors_name_the_server_and_the_request() -> None:
    async with MCPBridge({"docs": build()}, plugins=[]) as bridge:
        with pytest.raises(ServerRequestError, match=r"'docs' answered resources/read of 'file:///nope'") as caught:
            await get_resources(bridge, "docs", ["file:///nope"])
        assert caught.value.server_name == "docs"
        with pytest.raises(ServerRequestError, match=r"'docs' answered prompts/get of 'missing'"):
            await get_prompt(bridge, "docs", "missing")
        with pytest.raises(ServerRequestError, match=r"prompts/get of 'review'"):
            await get_prompt(bridge, "docs", "review")  # `code` is required
        with pytest.raises(Exception, match="unknown server 'other'"):
            await list_prompts(bridge, "other")
        assert await list_resources(bridge, "docs")  # the session is still good


async def test_an_unreachable_server_is_a_connection_error() -> None:
    async with MCPBridge({"gone": {"url": "http://127.0.0.1:9/mcp", "connect_timeout": 5}}, plugins=[]) as bridge:
        with pytest.raises(ServerConnectionError, match="'gone'"):
            await list_resources(bridge, "gone")
        with pytest.raises(ServerConnectionError, match="'gone'"):
            await bridge.server_info("gone")


async def test_a_restarted_http_server_is_reached_again_for_resources_and_prompts() -> None:
    served = serve_http(build())
    try:
        async with MCPBridge({"docs": {"url": served.url, "mode": "legacy"}}, plugins=[]) as bridge:
            assert len(await list_resources(bridge, "docs")) == 2
            await asyncio.to_thread(served.stop)
            served = await asyncio.to_thread(serve_http, build(), served.port)
            [blob] = await get_resources(bridge, "docs", "file:///readme.txt")
            assert blob.as_string() == "hello from the readme"
            assert len(await get_prompt(bridge, "docs", "review", {"code": "y"})) == 4
    finally:
        await asyncio.to_thread(served.stop)


def paged() -> Server[Any]:
    """A low-level server that lists its resources, templates and prompts three per page."""

    def page(items: list[T], params: PaginatedRequestParams | None) -> tuple[list[T], str | None]:
        start = int(params.cursor) if params and params.cursor else 0
        return items[start : start + 3], str(start + 3) if start + 3 < len(items) else None

    async def resources(ctx: Any, params: PaginatedRequestParams | None) -> ListResourcesResult:
        items, cursor = page([Resource(name=f"r{i}", uri=f"mem://r{i}") for i in range(8)], params)
        return ListResourcesResult(resources=items, next_cursor=cursor)

    async def templates(ctx: Any, params: PaginatedRequestParams | None) -> ListResourceTemplatesResult:
        items, cursor = page(
            [ResourceTemplate(name=f"t{i}", uri_template=f"mem://t{i}/{{x}}") for i in range(4)], params
        )
        return ListResourceTemplatesResult(resource_templates=items, next_cursor=cursor)

    async def prompts(ctx: Any, params: PaginatedRequestParams | None) -> ListPromptsResult:
        items, cursor = page([Prompt(name=f"p{i}") for i in range(7)], params)
        return ListPromptsResult(prompts=items, next_cursor=cursor)

    async def tools(ctx: Any, params: PaginatedRequestParams | None) -> ListToolsResult:
        return ListToolsResult(tools=[])

    return Server(
        "paged",
        on_list_tools=tools,
        on_list_resources=resources,
        on_list_resource_templates=templates,
        on_list_prompts=prompts,
    )


async def test_every_page_is_listed() -> None:
    async with MCPBridge({"paged": paged()}, plugins=[]) as bridge:
        assert [r.name for r in await list_resources(bridge, "paged")] == [f"r{i}" for i in range(8)]
        assert [t.name for t in await list_resource_templates(bridge, "paged")] == [f"t{i}" for i in range(4)]
        assert [p.name for p in await list_prompts(bridge, "paged")] == [f"p{i}" for i in range(7)]


async def test_server_everything_resources_prompts_and_info() -> None:
    """Text and binary resources, templates, prompts with arguments, instructions."""
    config = node_stdio(need(EVERYTHING), "stdio")
    async with MCPBridge({"ev": config}, plugins=[]) as bridge:
        resources = await list_resources(bridge, "ev")
        assert resources
        assert len({str(r.uri) for r in resources}) == len(resources)
        templates = await list_resource_templates(bridge, "ev")
        assert templates

        assert {blob.metadata["uri"] for blob in await get_resources(bridge, "ev")} == {str(r.uri) for r in resources}
        dynamic = [t.uri_template.replace("{resourceId}", "1") for t in templates if "{resourceId}" in t.uri_template]
        blobs = await get_resources(bridge, "ev", dynamic)
        assert {type(blob.data) for blob in blobs} == {str, bytes}  # text and binary

        prompts = {p.name: p for p in await list_prompts(bridge, "ev")}
        assert "simple-prompt" in prompts
        [message] = await get_prompt(bridge, "ev", "simple-prompt")
        assert isinstance(message, HumanMessage)
        assert isinstance(message.content, str)

        info = await bridge.server_info("ev")
        assert info.name
        assert info.version
        assert info.instructions


def test_cli_lists_resources_and_prompts_and_reads_one(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "mcpbridge.toml"
    server = stdio_config(HERE)
    config.write_text(
        f"[servers.docs]\ncommand = {json.dumps(server['command'])}\nargs = {json.dumps(server['args'])}\n"
        f"cwd = {json.dumps(server['cwd'])}\n"
    )
    assert main(["resources", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "docs  file:///readme.txt" in out
    assert "greeting://{name}" in out

    assert main(["resources", "docs", "--json", "--config", str(config)]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert {r["uri"] for r in listed["docs"]["resources"]} == {"file:///readme.txt", "data://logo.png"}
    assert listed["docs"]["templates"][0]["uriTemplate"] == "greeting://{name}"

    assert main(["resources", "docs", "--read", "file:///readme.txt", "--config", str(config)]) == 0
    assert capsys.readouterr().out.strip() == "hello from the readme"

    assert main(["prompts", "docs", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert "docs  review(code, strict?)" in out
    assert "Review some code." in out

    assert main(["prompts", "--json", "--config", str(config)]) == 0
    assert json.loads(capsys.readouterr().out)["docs"][0]["name"] == "review"


def test_a_bridge_opened_sync_answers_from_any_loop() -> None:
    """`with MCPBridge` runs the sessions on the bridge's own loop thread: the plugin's
    requests, awaited on another loop, are sent there."""
    with MCPBridge({"docs": build()}, plugins=[]) as bridge:
        asyncio.run(check_everything_ours(bridge))
