"""Callers never share an entry, with no `partition_by`: the cache sits inside whatever sets a
call's headers (the headers plugin, `MCPBridge(interceptors=...)`), so its key covers the
`x-user-id` that reaches the server. docs/plugins/headers.md's example, with the cache on."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import ToolMessage
from mcp.server.mcpserver import Context, MCPServer

from mcpbridge import ConfigError, MCPBridge, ToolCallHandler, ToolCallRequest
from mcpbridge.testing import make_runtime, make_tool_call, tool_call_turn

CACHE_RULE = """
[[plugins.cache.rules]]
server = "crm"
tool = "list_contacts"
"""


def crm_server(calls: Counter[str]) -> MCPServer:
    """docs/plugins/headers.md's `crm`, counting the calls that reach it."""
    crm = MCPServer("crm")

    @crm.tool()
    def list_contacts(ctx: Context) -> str:
        """The caller's contacts."""
        user = (ctx.headers or {}).get("x-user-id", "anonymous")
        calls[user] += 1
        return f"contacts of user {user}: c1=Ada Lovelace, c2=Alan Turing"

    return crm


@pytest.fixture
def calls() -> Counter[str]:
    """Calls that reached the server, by the `x-user-id` they carried."""
    return Counter()


@pytest.fixture
def crm_url(mcp_http_url: Callable[[Any], str], calls: Counter[str]) -> str:
    return mcp_http_url(crm_server(calls))


@dataclass
class UserContext:
    user_id: str


async def ask(agent_factory: Callable[..., Any], bridge: MCPBridge, user_id: str) -> ToolMessage:
    """The doc's `ask`: one agent run by `user_id` that calls `list_contacts`; its ToolMessage."""
    agent = agent_factory(
        [tool_call_turn(("list_contacts", {}))], await bridge.list_tools(), context_schema=UserContext
    )
    result = await agent.ainvoke(
        {"messages": [("user", "Who are my contacts?")]},
        {"configurable": {"thread_id": user_id}},
        context=UserContext(user_id=user_id),
    )
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert message.status == "success", message.content
    return message


def answer(message: ToolMessage) -> tuple[str, bool]:
    """(the tool's text, whether the cache answered it)."""
    [entry] = [e for e in message.artifact or [] if e.get("type") == "mcpbridge_cache"]
    return message.text, entry["hit"]


def contacts(user: str) -> str:
    return f"contacts of user {user}: c1=Ada Lovelace, c2=Alan Turing"


async def three_asks(agent_factory: Callable[..., Any], bridge: MCPBridge, calls: Counter[str]) -> None:
    """123 (miss), 456 (a miss: not 123's entry), 123 again (a hit)."""
    assert answer(await ask(agent_factory, bridge, "123")) == (contacts("123"), False)
    assert answer(await ask(agent_factory, bridge, "456")) == (contacts("456"), False)
    again = await ask(agent_factory, bridge, "123")
    assert answer(again) == (contacts("123"), True)
    assert calls == {"123": 1, "456": 1}


async def test_the_headers_docs_example_with_the_cache_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, crm_url: str, calls: Counter[str], agent_factory: Any
) -> None:
    """The page's mcpbridge.toml as written, every installed plugin autoloaded, plus one cache
    rule for the crm tool and no partition_by."""
    monkeypatch.setenv("CRM_URL", crm_url)
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        '[servers.crm]\nurl = "${CRM_URL}"\n\n[plugins.headers.servers.crm]\nx-user-id = "context.user_id"\n'
        + CACHE_RULE
    )
    async with MCPBridge.from_config(config) as bridge:
        await three_asks(agent_factory, bridge, calls)


async def test_the_same_in_python(crm_url: str, calls: Counter[str], agent_factory: Any) -> None:
    bridge = MCPBridge(
        {"crm": {"url": crm_url}},
        plugins=["headers", "cache"],
        plugin_settings={
            "headers": {"servers": {"crm": {"x-user-id": "context.user_id"}}},
            "cache": {"rules": [{"server": "crm", "tool": "list_contacts"}]},
        },
    )
    async with bridge:
        await three_asks(agent_factory, bridge, calls)


async def x_user_id(request: ToolCallRequest, handler: ToolCallHandler) -> Any:
    """A direct interceptor doing the headers plugin's job: `x-user-id` from `context.user_id`."""
    context = request.runtime.context if request.runtime is not None else None
    user = getattr(context, "user_id", None) or (context.get("user_id") if isinstance(context, dict) else None)
    return await handler(request.override(headers={**(request.headers or {}), "x-user-id": user}) if user else request)


async def test_a_header_set_by_a_direct_interceptor(crm_url: str, calls: Counter[str], agent_factory: Any) -> None:
    bridge = MCPBridge(
        {"crm": {"url": crm_url}},
        plugins=["cache"],
        interceptors=[x_user_id],
        plugin_settings={"cache": {"rules": [{"server": "crm", "tool": "list_contacts"}]}},
    )
    async with bridge:
        await three_asks(agent_factory, bridge, calls)


@pytest.mark.parametrize("plugins", [["headers", "cache"], ["cache"]])
async def test_many_users_at_once_never_get_another_users_contacts(
    crm_url: str, calls: Counter[str], plugins: list[str]
) -> None:
    users = [str(n) for n in range(100)]
    settings: dict[str, Any] = {"cache": {"rules": [{"server": "crm", "tool": "list_contacts"}]}}
    if "headers" in plugins:
        settings["headers"] = {"servers": {"crm": {"x-user-id": "context.user_id"}}}
    direct = [] if "headers" in plugins else [x_user_id]
    bridge = MCPBridge({"crm": {"url": crm_url}}, plugins=plugins, interceptors=direct, plugin_settings=settings)
    async with bridge:
        [tool] = await bridge.list_tools()

        async def one(user: str) -> tuple[str, str, bool]:
            message = await tool.ainvoke(make_tool_call(tool, {}, runtime=make_runtime(UserContext(user))))
            return (user, *answer(message))

        first = await asyncio.gather(*(one(user) for user in users))
        second = await asyncio.gather(*(one(user) for user in reversed(users)))
    assert [(user, text) for user, text, _ in first + second if text != contacts(user)] == []
    assert [hit for _, _, hit in first] == [False] * len(users)
    assert [hit for _, _, hit in second] == [True] * len(users)
    assert calls == dict.fromkeys(users, 1)


# -- the order that would let callers share ----------------------------------------------


def order_config(tmp_path: Path, crm_url: str, order: list[str]) -> Path:
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        f'[servers.crm]\nurl = "{crm_url}"\n\n[plugins]\norder = {order!r}\n\n'.replace("'", '"')
        + '[plugins.headers.servers.crm]\nx-user-id = "context.user_id"\n'
        + CACHE_RULE
    )
    return config


@pytest.mark.parametrize("order", [["cache", "headers"], ["cache"]])
def test_an_order_that_puts_headers_inside_the_cache_is_refused(tmp_path: Path, crm_url: str, order: list[str]) -> None:
    """`[plugins] order` overrides declared positions: an order that puts the headers plugin
    inside the cache (explicitly, or by naming the cache first) is refused when the bridge is
    built, with what to do instead."""
    with pytest.raises(ConfigError) as refused:
        MCPBridge.from_config(order_config(tmp_path, crm_url, order), plugins=["cache", "headers"])
    message = str(refused.value)
    assert "headers" in message, message
    assert "cache" in message, message
    assert "order" in message, message  # says which setting to change


async def test_the_fix_the_refusal_gives_works(
    tmp_path: Path, crm_url: str, calls: Counter[str], agent_factory: Any
) -> None:
    with pytest.raises(ConfigError) as refused:
        MCPBridge.from_config(order_config(tmp_path, crm_url, ["cache", "headers"]), plugins=["cache", "headers"])
    assert 'put "cache" last in [plugins] order' in str(refused.value)
    config = order_config(tmp_path, crm_url, ["headers", "cache"])
    async with MCPBridge.from_config(config, plugins=["cache", "headers"]) as bridge:
        await three_asks(agent_factory, bridge, calls)


async def test_an_order_with_the_cache_innermost_is_accepted(
    tmp_path: Path, crm_url: str, calls: Counter[str], agent_factory: Any
) -> None:
    config = order_config(tmp_path, crm_url, ["headers", "interceptors", "cache"])
    async with MCPBridge.from_config(config, plugins=["cache", "headers"]) as bridge:
        await three_asks(agent_factory, bridge, calls)
