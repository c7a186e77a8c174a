"""`python -m mcpbridge_demo inspect [options]`: `mcpbridge inspect` without the mcpbridge CLI."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from mcpbridge_demo.inspector import add_inspect_arguments


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser("python -m mcpbridge_demo", description="mcpbridge live tool-call inspector")
    commands = parser.add_subparsers(dest="command", required=True)
    add_inspect_arguments(commands.add_parser("inspect", help="serve the inspector page and run the demo agent"))
    options = parser.parse_args(argv)
    from mcpbridge_cli.exits import run_command

    from mcpbridge_demo.inspector_demo import run_inspect  # imports mcp and LangChain: once the options are good

    return run_command(lambda: run_inspect(options), "python -m mcpbridge_demo")


if __name__ == "__main__":
    sys.exit(main())
