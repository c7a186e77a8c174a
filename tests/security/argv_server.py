"""A stdio server that quotes its own command line as it fails, as real servers do (a usage
error, a crash report): `--token` is required; with `--refuse` it fails at start with
argparse's usage error naming the token, else its `crash` tool prints the command line to
stderr and dies. Run it as `python -m tests.security.argv_server --token T [--refuse]`."""

from __future__ import annotations

import argparse
import os
import sys

from mcp.server.mcpserver import MCPServer


def build() -> MCPServer:
    server = MCPServer("argv")

    @server.tool()
    def crash() -> str:
        """Print the command line to stderr, then die."""
        sys.stderr.write(f"fatal: started as {' '.join(sys.argv[1:])}\n")
        sys.stderr.flush()
        os._exit(3)

    return server


def main() -> None:
    parser = argparse.ArgumentParser(prog="argv_server")
    parser.add_argument("--token", required=True)
    parser.add_argument("--refuse", action="store_true")
    options = parser.parse_args()
    if options.refuse:
        parser.error(f"the token {options.token} was refused")
    build().run()


if __name__ == "__main__":
    main()
