"""Connection dicts as langchain-mcp-adapters takes them (tests/test_client.py and the
transport tests of test_tools.py there): SSE, timedelta timeouts, env expansion, headers,
auth and a custom HTTP client, against real servers."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from datetime import timedelta
from typing import Any

import httpx
import httpx2
import pytest

from mcpbridge.testing import serve_http
from tests.adapters import servers
from tests.helpers.adapters import stdio_connection


@pytest.fixture(scope="module")
def reach_sse_url() -> Iterator[str]:
    served = serve_http(servers.reach().sse_app())
    yield served.base_url + "/sse"
    served.stop()


@pytest.fixture(scope="module")
def reach_url() -> Iterator[str]:
    served = serve_http(servers.reach())
    yield served.url
    served.stop()


async def _text(tool: Any, args: dict[str, Any]) -> str:
    return str((await tool.ainvoke(args))[0]["text"])


async def test_sse_server_with_headers(make_client: Any, reach_sse_url: str) -> None:
    client = make_client({"reach": {"transport": "sse", "url": reach_sse_url, "headers": {"X-Static": "s"}}})
    tools = {t.name: t for t in await client.get_tools()}
    assert await _text(tools["header"], {"name": "x-static"}) == "s"


async def test_timedelta_timeouts(make_client: Any, reach_url: str) -> None:
    client = make_client(
        {
            "reach": {
                "transport": "streamable_http",
                "url": reach_url,
                "timeout": timedelta(seconds=7),
                "sse_read_timeout": timedelta(minutes=2),
                "terminate_on_close": True,
            }
        }
    )
    server = client.bridge.settings.servers["reach"]
    assert (server.connect_timeout, server.timeout) == (7.0, 120.0)
    assert len(await client.get_tools()) == 2


async def test_stdio_env_expands_braced_variables(make_client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ADAPTERS_TOKEN", "t0ken")
    connection = {**stdio_connection("reach"), "env": {"TOKEN": "${ADAPTERS_TOKEN}", "PRICE": "$5"}}
    tools = {t.name: t for t in await make_client({"reach": connection}).get_tools()}
    assert await _text(tools["env"], {"name": "TOKEN"}) == "t0ken"
    assert await _text(tools["env"], {"name": "PRICE"}) == "$5"  # a bare $ stays


class Token(httpx2.Auth):
    def auth_flow(self, request: httpx2.Request) -> Generator[httpx2.Request, httpx2.Response, None]:
        request.headers["Authorization"] = "Bearer abc"
        yield request


async def test_auth_and_custom_http_client(make_client: Any, reach_url: str) -> None:
    made: list[dict[str, Any]] = []

    def factory(
        headers: dict[str, str] | None = None, timeout: httpx2.Timeout | None = None, auth: httpx2.Auth | None = None
    ) -> httpx2.AsyncClient:
        made.append({"headers": headers, "auth": auth})
        return httpx2.AsyncClient(headers={**(headers or {}), "X-Client": "custom"}, timeout=timeout, auth=auth)

    client = make_client(
        {"reach": {"transport": "http", "url": reach_url, "auth": Token(), "httpx_client_factory": factory}}
    )
    tools = {t.name: t for t in await client.get_tools()}
    assert await _text(tools["header"], {"name": "authorization"}) == "Bearer abc"
    assert await _text(tools["header"], {"name": "x-client"}) == "custom"
    assert made
    assert isinstance(made[0]["auth"], Token)


@pytest.mark.parametrize("auth", [None, httpx.BasicAuth("ann", "pw")])
async def test_an_httpx_client_factory_is_carried_over(make_client: Any, reach_url: str, auth: Any) -> None:
    """The adapters' factories build an `httpx.AsyncClient`: its headers, timeout and auth
    reach the server through the httpx2 client built from it."""

    def factory(
        headers: dict[str, str] | None = None, timeout: httpx.Timeout | None = None, auth: httpx.Auth | None = None
    ) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            headers={**(headers or {}), "X-Client": "httpx"},
            timeout=timeout or httpx.Timeout(30.0),
            auth=auth,
            limits=httpx.Limits(max_keepalive_connections=5, max_connections=10),
        )

    connection = {"transport": "http", "url": reach_url, "httpx_client_factory": factory, "auth": auth}
    tools = {t.name: t for t in await make_client({"reach": connection}).get_tools()}
    assert await _text(tools["header"], {"name": "x-client"}) == "httpx"
    expected = "Basic YW5uOnB3" if auth is not None else "-"
    assert await _text(tools["header"], {"name": "authorization"}) == expected


async def test_what_cannot_be_carried_over_is_refused_by_name(make_client: Any, reach_url: str) -> None:
    def hooked(**_: Any) -> httpx.AsyncClient:
        return httpx.AsyncClient(event_hooks={"request": [lambda request: None]})

    client = make_client({"reach": {"transport": "http", "url": reach_url, "httpx_client_factory": hooked}})
    with pytest.raises(Exception, match="event hooks"):
        await client.get_tools()

    class Custom(httpx.Auth):
        pass

    with pytest.raises(ValueError, match=r"'auth' is a .*Custom.*httpx2\.Auth"):
        make_client({"reach": {"transport": "http", "url": reach_url, "auth": Custom()}})
    with pytest.raises(ValueError, match="WebSocket.*streamable HTTP"):
        make_client({"time": {"transport": "websocket", "url": "ws://127.0.0.1:9/ws"}})


def test_tool_calls_are_bounded_as_by_the_adapters(make_client: Any) -> None:
    """HTTP and SSE calls may take the adapters' `sse_read_timeout` (300 s) by default, stdio
    calls (which the adapters never bound) a day; `sse_read_timeout` or a client-wide
    `timeout` says otherwise."""
    http = {"transport": "http", "url": "http://127.0.0.1:9/mcp"}
    client = make_client({"h": http, "s": stdio_connection(), "r": {**http, "sse_read_timeout": 5}})
    assert [client.bridge.settings.server_timeout(name) for name in "hsr"] == [300.0, 86400.0, 5.0]
    assert make_client({"h": http, "s": stdio_connection()}, timeout=9).bridge.settings.server_timeout("s") == 9.0
