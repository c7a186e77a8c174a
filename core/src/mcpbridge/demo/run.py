"""`mcpbridge demo`: sample servers over HTTP, stdio and in-process, an agent driven by a
scripted model (or a real one), and every tool call printed as it happens."""

from __future__ import annotations

import asyncio
import logging
import socket
import sys
import threading
import time
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from mcpbridge.bridge import MCPBridge
from mcpbridge.demo import servers
from mcpbridge.demo.model import ScriptedChatModel, tool_call_turn

PROMPT = "What's the weather in Oslo, what is 2 + 3, and what is 1 / 0? Then list my contacts."


def run_demo(*, yes: bool = False, model: str | None = None, ui: bool = False) -> int:
    logging.disable(logging.INFO)
    if ui:
        return _inspector()
    return asyncio.run(_demo(model))


def _inspector() -> int:
    from mcpbridge.config import Settings
    from mcpbridge.plugins import PluginHost

    inspect = PluginHost(Settings()).commands().get("inspect")
    if inspect is None:
        print("mcpbridge demo --ui needs the events plugin: pip install 'mcpbridge-events[demo]'", file=sys.stderr)
        return 1
    return int(inspect([]) or 0)


async def _demo(model_name: str | None) -> int:
    url, stop = _serve_http(servers.weather())
    try:
        async with MCPBridge(
            {
                "weather": {"url": url},
                "calculator": {"command": sys.executable, "args": ["-m", "mcpbridge.demo.servers", "calculator"]},
                "crm": servers.crm(),
            }
        ) as bridge:
            _section("Plugins (outermost first)")
            print("  " + (" → ".join(bridge.plugins.order) + " → server"))
            if not bridge.plugins.enabled:
                print("  Only the core is installed. pip install mcpbridge-headers, -retry, -cache, -otel,")
                print("  -approval, -elicitation or -events to add their behaviour to this chain.")
            tools = await bridge.list_tools()
            _section("Tools (weather over streamable HTTP, calculator over stdio, crm in-process)")
            for tool in tools:
                meta = tool.metadata or {}
                hints = ", ".join(f"{k}={v}" for k, v in meta.get("annotations", {}).items()) or "-"
                print(f"  {meta['server']:<11} {tool.name:<15} {hints}")
            agent = _agent(tools, model_name)
            _section(f"Agent ({'model ' + model_name if model_name else 'SCRIPTED model: no LLM is called'})")
            print(f"  user: {PROMPT}")
            rows = await _run(agent)
            _section("Tool calls")
            print(f"  {'tool':<15}{'status':<9}{'ms':>7}  result")
            for name, status, ms, text in rows:
                print(f"  {name:<15}{status:<9}{ms:>7.1f}  {text}")
    finally:
        stop()
    return 0


def _agent(tools: list[Any], model_name: str | None) -> Any:
    from langchain.agents import create_agent
    from langgraph.checkpoint.memory import InMemorySaver

    if model_name:
        from langchain.chat_models import init_chat_model

        model: Any = init_chat_model(model_name)
    else:

        def summary(messages: list[Any]) -> AIMessage:
            results = [m for m in messages if isinstance(m, ToolMessage)]
            return AIMessage(f"I made {len(results)} tool calls; see the table below.")

        model = ScriptedChatModel(
            turns=[
                tool_call_turn(
                    ("get_forecast", {"city": "Oslo"}), ("add", {"a": 2, "b": 3}), ("divide", {"a": 1, "b": 0})
                ),
                tool_call_turn(("list_contacts", {})),
                summary,
            ]
        )
    return create_agent(model, tools, checkpointer=InMemorySaver())


async def _run(agent: Any) -> list[tuple[str, str, float, str]]:
    rows: list[tuple[str, str, float, str]] = []
    started: dict[str, float] = {}
    config = {"configurable": {"thread_id": "demo"}}
    async for update in agent.astream({"messages": [("user", PROMPT)]}, config, stream_mode="updates"):
        for node in update.values():
            for message in (node or {}).get("messages", []):
                if isinstance(message, AIMessage):
                    for call in message.tool_calls:
                        started[call["id"] or ""] = time.perf_counter()
                        print(f"  → {call['name']}({call['args']})")
                    if message.content:
                        print(f"  assistant: {message.content}")
                elif isinstance(message, ToolMessage):
                    elapsed = (time.perf_counter() - started.get(message.tool_call_id or "", time.perf_counter())) * 1e3
                    text = _text(message)
                    print(f"  ← {message.name} [{message.status}] {text}")
                    rows.append((message.name or "?", message.status, elapsed, text))
    return rows


def _text(message: ToolMessage) -> str:
    if isinstance(message.content, str):
        return message.content[:70]
    parts = [b.get("text", f"<{b.get('type')}>") for b in message.content if isinstance(b, dict)]
    return " ".join(parts).replace("\n", " ")[:70]


def _section(title: str) -> None:
    print(f"\n== {title}")


def _serve_http(app_server: Any) -> tuple[str, Any]:
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(app_server.streamable_http_app(), host="127.0.0.1", port=port, log_level="error")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.01)

    def stop() -> None:
        server.should_exit = True
        thread.join(timeout=5)

    return f"http://127.0.0.1:{port}/mcp", stop
