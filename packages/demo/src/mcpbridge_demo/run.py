"""`mcpbridge demo`: sample servers over streamable HTTP, stdio and in-process, an agent
driven by a scripted model (or a real one with --model), and every installed plugin shown
at work: headers, cache, retry, approval, elicitation, tracing, events."""

from __future__ import annotations

import argparse
import asyncio
import logging
import socket
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from mcpbridge_cli.exits import run

from mcpbridge import ConfigError, MCPBridge
from mcpbridge.testing import make_agent, serve_http, stdio_config, tool_call_turn
from mcpbridge_demo import servers
from mcpbridge_demo.answers import answer
from mcpbridge_demo.report import PLUGIN_ROLES, CallRow, section, summary, table, trace_tree

PROMPT = (
    "Weather in Oslo (twice), 2 + 3 and 1 / 0, my contacts, the reservation service status, "
    "a table for two, then delete contact c2."
)
PLUGIN_SETTINGS: dict[str, dict[str, Any]] = {
    "headers": {"servers": {"crm": {"x-user-id": "context.user_id"}}},
    "retry": {"initial": 0.05, "max": 0.2, "error_patterns": ["temporarily unavailable"]},
    "cache": {"rules": [{"server": "weather", "tool": "get_forecast", "ttl": 60}]},
}


@dataclass
class DemoContext:
    """The agent's runtime context: who is asking (the headers plugin sends it to the CRM)."""

    user_id: str


def run_demo(*, yes: bool = False, model: str | None = None, ui: bool = False, http: int | None = None) -> int:
    logging.disable(logging.WARNING)
    if ui:  # `mcpbridge inspect` with its defaults
        from mcpbridge_demo.inspector import add_inspect_arguments
        from mcpbridge_demo.inspector_demo import run_inspect

        return run_inspect(add_inspect_arguments(argparse.ArgumentParser()).parse_args([]))
    if http is not None:
        return run(_serve(http))
    return run(_demo(model, yes))


async def _serve(port: int) -> int:
    """The sample servers over streamable HTTP on 127.0.0.1:`port`, until stopped."""
    try:
        with socket.socket() as probe:  # a port in use is this one line, not the server's log
            probe.bind(("127.0.0.1", port))
    except OSError as exc:
        raise ConfigError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror}; choose another --http PORT") from None
    served = serve_http(servers.http_app(), port or None)  # 0: any free port
    try:
        urls = {name: f"{served.base_url}/{name}/mcp" for name in servers.SERVERS}
        print(f"mcpbridge demo: the sample servers over streamable HTTP on {served.base_url} (Ctrl-C to stop)")
        for name, url in urls.items():
            print(f"  {name:<11} {url}")
        print("\nmcpbridge.toml:")
        print("\n".join(f'[servers.{name}]\nurl = "{url}"' for name, url in urls.items()), flush=True)
        await asyncio.Event().wait()
    finally:
        await asyncio.to_thread(served.stop)
    return 0


async def _demo(model_name: str | None, yes: bool) -> int:
    model = _model(model_name) if model_name else None
    installed = {ep.name: ep.module for ep in entry_points(group="mcpbridge")}
    spans = _collect_spans() if "otel" in installed else None
    crm = serve_http(servers.crm())
    try:
        async with MCPBridge(
            {
                "weather": servers.weather(),
                "calculator": stdio_config("mcpbridge_demo.servers", "calculator"),
                "crm": {"url": crm.url},
                "booking": servers.booking(),
                "flaky": servers.flaky(),
            },
            plugin_settings={name: table for name, table in PLUGIN_SETTINGS.items() if name in installed},
        ) as bridge:
            chain = [name for name in bridge.chain if name in installed and name != "demo"]
            _introduce(chain, tracing=spans is not None)
            tools = await bridge.list_tools()
            section("Tools (crm over streamable HTTP, calculator over stdio, the others in-process)")
            for tool in tools:
                meta = tool.metadata or {}
                hints = ", ".join(f"{k}={v}" for k, v in meta.get("annotations", {}).items()) or "-"
                print(f"  {meta['server_name']:<11} {tool.name:<16} {hints}")
            section(f"Agent ({'model ' + model_name if model_name else 'SCRIPTED model: no LLM is called'})")
            print(f"  user (ada): {PROMPT}")
            rows, events = await _converse(_agent(tools, model), yes)
    finally:
        crm.stop()
    section("Tool calls")
    table(rows)
    if events:
        print(f"  (the events plugin streamed {events} lifecycle events for these calls)")
    if spans is not None and "otel" in chain:
        section("Trace (OpenTelemetry spans, in-memory exporter)")
        trace_tree(spans())
    return 0


def _role(name: str) -> str:
    """What plugin `name` does in this demo, or else its distribution's own one-line summary."""
    if name in PLUGIN_ROLES:
        return PLUGIN_ROLES[name]
    found = next((point for point in entry_points(group="mcpbridge") if point.name == name), None)
    summary = found.dist.metadata["Summary"] if found is not None and found.dist is not None else None
    return (summary or "(a plugin whose distribution says nothing of itself)").removeprefix("mcpbridge plugin: ")


def _introduce(chain: Collection[str], tracing: bool) -> None:
    section("Plugins in the chain (outermost first)")
    for name in chain:
        print(f"  {name:<12} {_role(name)}")
    missing = [name for name in PLUGIN_ROLES if name not in chain]
    if missing:
        print("  Not installed or disabled — what each would add here:")
        for name in missing:
            print(f"    mcpbridge-{name:<12} {PLUGIN_ROLES[name]}")
    if "otel" in chain and not tracing:
        print("  (install opentelemetry-sdk to see the trace tree)")


def _model(name: str) -> Any:
    """The chat model `--model` names; a missing integration package is a one-line error."""
    from langchain.chat_models import init_chat_model

    try:
        return init_chat_model(name)
    except ImportError as exc:  # the message names the pip command
        raise ConfigError(f"--model {name}: {exc}") from None
    except Exception as exc:  # an unknown provider, a missing API key
        raise ConfigError(f"--model {name}: {type(exc).__name__}: {exc}") from None


def _agent(tools: list[Any], model: Any) -> Any:
    script = [
        tool_call_turn(
            ("get_forecast", {"city": "Oslo"}),
            ("add", {"a": 2, "b": 3}),
            ("divide", {"a": 1, "b": 0}),
            ("list_contacts", {}),
        ),
        tool_call_turn(("get_forecast", {"city": "Oslo"}), ("service_status", {})),
        tool_call_turn(("book_table", {"party_size": 2})),
        tool_call_turn(("delete_contact", {"contact_id": "c2"})),
        AIMessage("All done: see the table of tool calls below."),
    ]
    return make_agent(model or script, tools, context_schema=DemoContext)


async def _converse(agent: Any, yes: bool) -> tuple[list[CallRow], int]:
    from langgraph.types import Command

    config = {"configurable": {"thread_id": "demo"}}
    rows: list[CallRow] = []
    pending: dict[str, CallRow] = {}
    events = 0
    request: Any = {"messages": [("user", PROMPT)]}
    while True:
        stream = agent.astream(request, config, context=DemoContext("ada"), stream_mode=["updates", "custom"])
        async for mode, chunk in stream:
            if mode == "custom":
                events += 1
                continue
            for update in chunk.values():
                for message in (update or {}).get("messages", []) if isinstance(update, dict) else []:
                    _show(message, rows, pending)
        state = await agent.aget_state(config)
        if not state.interrupts:
            return rows, events
        request = Command(resume={i.id: await answer(i.value, yes=yes) for i in state.interrupts})


def _show(message: Any, rows: list[CallRow], pending: dict[str, CallRow]) -> None:
    """Print one streamed message; `pending` maps the current turn's call ids to their rows."""
    now = time.perf_counter()
    if isinstance(message, AIMessage):
        if message.tool_calls:
            pending.clear()
        for call in message.tool_calls:
            row = CallRow(call["name"], now)
            rows.append(row)
            pending[call["id"] or call["name"]] = row
            print(f"  → {call['name']}({call['args']})")
        if message.content and not message.tool_calls:
            print(f"  assistant: {message.content}")
    elif isinstance(message, ToolMessage):
        done = pending.get(message.tool_call_id)
        if done is not None:
            done.finish(message, now)
            print(f"  ← {done.name} [{done.status}] {summary(message, 400)}")


def _collect_spans() -> Callable[[], list[Any]] | None:
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    except ImportError:
        return None
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return lambda: list(exporter.get_finished_spans())
