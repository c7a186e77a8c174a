"""`mcpbridge call SERVER TOOL [ARGUMENTS...]`: one tool call, as an agent makes it. The call
runs in a one-node LangGraph graph with a checkpointer, so a plugin may pause it: an approval
question is asked at the terminal ("allow? [y/N]", or approved by `--yes`) and the call
resumes with the approval plugin's documented decision."""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any

from mcpbridge import ConfigError
from mcpbridge_cli.terminal import terminal_text

ARGUMENTS_FORMS = 'a JSON object (\'{"city": "Oslo"}\') or key=value pairs (city=Oslo count=3)'

APPROVE = {"type": "approve"}
"""The approval plugin's decisions (docs/plugins/approval.md), as plain values: the CLI
imports no plugin."""
DECLINED = {"type": "reject", "message": "The user declined at the terminal."}


def add_call_arguments(call: argparse.ArgumentParser) -> None:
    call.add_argument("server")
    call.add_argument("tool", help="the server's own (unprefixed) tool name")
    call.add_argument("arguments", nargs="*", metavar="ARGUMENTS", help=f"the tool's arguments: {ARGUMENTS_FORMS}")
    call.add_argument("--yes", action="store_true", help="approve the call if a plugin asks (for scripts)")
    call.add_argument("--artifact", action="store_true", help="print the ToolMessage artifact too")
    call.add_argument("--json", action="store_true", help="print status, content and artifact as JSON")


def parse_arguments(given: list[str]) -> dict[str, Any]:
    """The tool's arguments from the command line: one JSON object, or key=value pairs whose
    values are JSON when they parse as JSON (3, true, [1, 2]) and strings otherwise."""
    if len(given) == 1 and given[0].lstrip().startswith("{"):
        try:
            arguments = json.loads(given[0])
        except (ValueError, RecursionError) as exc:  # not JSON, an integer over 4,300 digits, too deep
            raise ConfigError(f"arguments must be {ARGUMENTS_FORMS}; the JSON object does not parse: {exc}") from None
        if isinstance(arguments, dict):
            return arguments
    arguments = {}
    for pair in given:
        key, equals, text = pair.partition("=")
        if not (equals and key):
            raise ConfigError(f"arguments must be {ARGUMENTS_FORMS}; {terminal_text(pair)!r} is neither")
        try:
            arguments[key] = json.loads(text)
        except (ValueError, RecursionError):
            arguments[key] = text
    return arguments


async def call(bridge: Any, options: argparse.Namespace, arguments: dict[str, Any]) -> Any:
    """The ToolMessage of the call, its pauses answered at the terminal."""
    from typing import TypedDict

    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import StateGraph
    from langgraph.types import Command

    class State(TypedDict, total=False):
        message: Any

    async def node(state: State) -> State:
        return {"message": await bridge.call_tool(options.server, options.tool, arguments)}

    graph: Any = StateGraph(State).add_node("call", node).set_entry_point("call").compile(checkpointer=InMemorySaver())
    config: Any = {"configurable": {"thread_id": "mcpbridge-call"}}
    request: Any = {}
    while True:
        done = await graph.ainvoke(request, config)
        paused = (await graph.aget_state(config)).interrupts
        if not paused:
            return done["message"]
        request = Command(resume={pause.id: await _answer(pause.value, options.yes) for pause in paused})


async def _answer(value: Any, yes: bool) -> dict[str, Any]:
    from mcpbridge_cli.terminal import ask

    kind = value.get("type") if isinstance(value, dict) else None
    if kind != "mcp_approval":
        raise ConfigError(f"the call paused for {terminal_text(kind)!r}, which `mcpbridge call` cannot answer")
    shown = terminal_text(f"{value.get('server_name')}/{value.get('name')}({json.dumps(value.get('arguments'))})")
    if yes:
        print(f"approved {shown} (--yes)", file=sys.stderr)
        return APPROVE
    reply = await ask(f"{shown} needs approval: allow? [y/N] ")
    return APPROVE if (reply or "").lower() in {"y", "yes"} else DECLINED


def show(message: Any, options: argparse.Namespace, redacted: Any) -> int:
    """Print the ToolMessage: status, content (each text as an indented block), the artifact
    with --artifact; all as JSON with --json. The exit status: 0 on success, 1 on an error."""
    blocks = message.content if isinstance(message.content, list) else [message.content]
    if options.json:
        shown = {"status": message.status, "content": message.content, "artifact": message.artifact}
        print(json.dumps(shown, indent=2, default=str))
    else:
        print(f"status: {message.status}")
        print("content:")
        for block in blocks:
            text = block.get("text") if isinstance(block, dict) and block.get("type") == "text" else block
            said = redacted(str(text)) if message.status == "error" else terminal_text(text, lines=True)
            print(textwrap.indent(said, "  ", lambda line: True))
        if options.artifact:
            print("artifact:")
            print(json.dumps(message.artifact, indent=2, default=str))
    return 0 if message.status == "success" else 1
