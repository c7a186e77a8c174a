"""mcpbridge-demo: `mcpbridge demo`, sample MCP servers over streamable HTTP, stdio and
in-process with an agent that shows every installed plugin at work, and `mcpbridge inspect`,
the live tool-call inspector page (`mcpbridge_demo.inspector`) with a scripted agent. The
sample servers are in `mcpbridge_demo.servers` (`python -m mcpbridge_demo.servers NAME`
serves one over stdio)."""

from __future__ import annotations

import argparse

from mcpbridge import AddCommand


def add_commands(add_command: AddCommand) -> None:
    """`mcpbridge demo` and `mcpbridge inspect` (declared in the entry-point group `mcpbridge.commands`)."""
    from mcpbridge_demo.inspector import add_inspect_arguments

    demo = add_command("demo", _run, "run the demo: sample servers and an agent, every installed plugin at work")
    demo.add_argument("--yes", action="store_true", help="approve every approval question")
    demo.add_argument("--model", help="use a real model through init_chat_model, e.g. openai:gpt-4.1-mini")
    demo.add_argument("--ui", action="store_true", help="open the live inspector page instead (`mcpbridge inspect`)")
    demo.add_argument(
        "--http",
        type=int,
        metavar="PORT",
        help="serve the sample servers over streamable HTTP on 127.0.0.1:PORT instead (0: any free port)",
    )
    add_inspect_arguments(add_command("inspect", _inspect, "serve the live tool-call inspector with a demo agent"))


def _run(options: argparse.Namespace) -> int:
    from mcpbridge_demo.run import run_demo

    return run_demo(yes=options.yes, model=options.model, ui=options.ui, http=options.http)


def _inspect(options: argparse.Namespace) -> int:
    from mcpbridge_demo.inspector_demo import run_inspect

    return run_inspect(options)
