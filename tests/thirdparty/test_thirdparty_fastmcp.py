"""Servers written with FastMCP (PyPI `fastmcp` 4.x, `servers/fastmcp_app.py` in its own venv)
over stdio and streamable HTTP behind a bearer token: structured output, progress and logs
of a call, resources, templates and prompts; elicitation on the legacy protocol (answered by
`on_elicitation`) and on the modern one, where FastMCP's push-style `ctx.elicit()` has no
channel and fails by design."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from typing import Any

import mcpbridge_resources as resources
import pytest
from mcp.types import ElicitResult

from mcpbridge import MCPBridge, MCPBridgeError, ToolCallHandler, ToolCallRequest
from tests.helpers.thirdparty import HERE, VENVS, free_port, need, wait_for_port

from .support import invoke, structured, text

FASTMCP = "fastmcp-4.2.3"
APP = HERE / "servers" / "fastmcp_app.py"
TOKEN = "tests-bearer-token"

pytestmark = pytest.mark.slow  # each test starts servers (and the CLI) of its own


def python() -> str:
    return str(need(VENVS / FASTMCP / "bin" / "python"))


@pytest.fixture(scope="module")
def http_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The app over streamable HTTP, requiring `Authorization: Bearer TOKEN`."""
    port = free_port()
    log = tmp_path_factory.mktemp("fastmcp") / "http.log"
    with log.open("wb") as out:
        process = subprocess.Popen([python(), str(APP), "http", str(port), TOKEN], stdout=out, stderr=out)
    try:
        wait_for_port(port, timeout=30)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(timeout=5)


@pytest.fixture(params=["stdio", "http"])
def fastmcp(request: pytest.FixtureRequest) -> dict[str, Any]:
    if request.param == "stdio":
        return {"command": python(), "args": [str(APP), "stdio"]}
    return {"url": request.getfixturevalue("http_url"), "headers": {"Authorization": f"Bearer {TOKEN}"}}


class Heard:
    """An interceptor that records what each call's observers hear (progress, log)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, request: ToolCallRequest, handler: ToolCallHandler) -> Any:
        listen = lambda event, data: self.events.append((event, data))  # noqa: E731
        return await handler(request.override(observers=(*request.observers, listen)))


async def test_tools_resources_and_prompts(fastmcp: dict[str, Any]) -> None:
    heard = Heard()
    async with MCPBridge({"app": fastmcp}, interceptors=[heard], plugins=[]) as bridge:
        forecast = await invoke(bridge, "forecast", {"city": "Bergen"})
        assert forecast.status == "success", text(forecast)
        assert structured(forecast) == {"city": "Bergen", "celsius": 19.5}

        crunched = await invoke(bridge, "crunch", {"steps": 3}, "c2")
        assert text(crunched) == "crunched 3 steps"
        progress = [
            (data["progress"], data["total"], data["message"]) for event, data in heard.events if event == "progress"
        ]
        assert progress == [(step, 3, f"step {step} of 3") for step in (1, 2, 3)]
        logs = [data["data"] for event, data in heard.events if event == "log"]  # FastMCP sends {"msg", "extra"}
        # over HTTP a log message comes with its request; stdio says nothing of whose it is
        expected = [f"crunched step {n}" for n in (1, 2, 3)] if "url" in fastmcp else []
        assert [log["msg"] for log in logs] == expected

        assert [str(r.uri) for r in await resources.list_resources(bridge, "app")] == ["config://app"]
        [template] = await resources.list_resource_templates(bridge, "app")
        assert template.uri_template == "users://{user_id}/profile"
        [blob] = await resources.get_resources(bridge, "app", "users://ada/profile")
        assert blob.as_string() == "profile of ada"
        [message] = await resources.get_prompt(bridge, "app", "review", {"code": "x = 1"})
        assert "x = 1" in str(message.content)


async def test_elicitation_on_the_legacy_protocol(fastmcp: dict[str, Any]) -> None:
    asked: list[str] = []

    def answer(server: str, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content={"value": "Ada"})

    config = {"app": {**fastmcp, "mode": "legacy"}}
    settings = {"elicitation": {"on_elicitation": answer}}
    async with MCPBridge(config, plugins=["elicitation"], plugin_settings=settings) as bridge:
        message = await invoke(bridge, "ask_name", {})
    assert message.status == "success", text(message)
    assert text(message) == "hello Ada"
    assert asked == ["What is your name?"]


async def test_push_elicitation_fails_on_the_modern_protocol(fastmcp: dict[str, Any]) -> None:
    async with MCPBridge({"app": fastmcp}, plugins=["elicitation"]) as bridge:
        assert (await bridge.session("app")).protocol_version == "2026-07-28"
        message = await invoke(bridge, "ask_name", {})
    assert message.status == "error"


async def test_a_wrong_bearer_token_is_refused(http_url: str) -> None:
    config = {"app": {"url": http_url, "headers": {"Authorization": "Bearer wrong"}}}
    with pytest.raises(MCPBridgeError):
        async with MCPBridge(config, plugins=[]) as bridge:
            await bridge.list_tools()
