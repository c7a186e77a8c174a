"""The loopback sign-in server, a bridge signed in to it through the plugin, an agent, and the
person who opens the authorization URL (httpx, no redirect followed) and reads the code."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import mcpbridge_auth
import pytest
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from mcpbridge import MCPBridge
from mcpbridge.testing import make_agent, tool_call_turn
from tests.helpers import service_url
from tests.servers.signin_server import SignInServer, running

CALLBACK = "http://127.0.0.1:9/oauth/callback"
"""The app's callback: nothing listens there, the person reads the redirect's Location."""


@dataclass
class UserContext:
    user_id: str | None


@pytest.fixture(params=["redis", "postgres"])
def shared_store(request: pytest.FixtureRequest) -> str:
    """A store every worker of a test shares: Redis, then PostgreSQL."""
    if request.param == "redis":
        return service_url("MCPBRIDGE_TEST_REDIS_URL", "a redis-server")
    return service_url("MCPBRIDGE_TEST_POSTGRES_URL", "PostgreSQL (`bash tests/services/postgres.sh start`)")


@pytest.fixture
def signin() -> Iterator[SignInServer]:
    with running() as server:
        yield server


def bridge(server: SignInServer, **settings: Any) -> MCPBridge:
    """A bridge whose server `crm` is the sign-in server, each person signing in to it."""
    return MCPBridge(
        {"crm": {"url": server.url}},
        plugins=[mcpbridge_auth],
        plugin_settings={"auth": {"servers": ["crm"], "redirect_uri": CALLBACK, **settings}},
    )


def answer_with_tool_output(messages: list[BaseMessage]) -> AIMessage:
    outputs = [str(m.content) for m in messages if isinstance(m, ToolMessage)]
    return AIMessage(f"tool said: {' | '.join(outputs)}")


def agent(tools: list[Any], *calls: tuple[str, dict[str, Any]]) -> Any:
    return make_agent([tool_call_turn(*calls), answer_with_tool_output], tools, context_schema=UserContext)


async def open_as(person: str | None, authorization_url: str) -> dict[str, str]:
    """What the app's callback receives after `person` consents: `code` and `state`."""
    url = authorization_url + (f"&login_hint={person}" if person else "")
    async with httpx2.AsyncClient(follow_redirects=False) as http:
        response = await http.get(url)
    assert response.status_code in (302, 303, 307), response.text
    location = response.headers["location"]
    assert location.startswith(CALLBACK), location
    query = parse_qs(urlsplit(location).query)
    return {"code": query["code"][0], "state": query["state"][0]}


@pytest.fixture
def person() -> Callable[..., Any]:
    return open_as


def saved(checkpointer: Any) -> bytes:
    """Everything an `InMemorySaver` holds, as it would be stored: every serialized blob,
    checkpoint and write, joined (to search for what must never be saved)."""
    found: list[bytes] = []

    def walk(value: Any) -> None:
        if isinstance(value, bytes):
            found.append(value)
        elif isinstance(value, str):
            found.append(value.encode())
        elif isinstance(value, dict):
            for key, item in value.items():
                walk(key)
                walk(item)
        elif isinstance(value, list | tuple | set):
            for item in value:
                walk(item)

    walk((dict(checkpointer.storage), dict(checkpointer.writes), dict(checkpointer.blobs)))
    assert found, "the checkpointer holds nothing: the search below would prove nothing"
    return b"\n".join(found)
