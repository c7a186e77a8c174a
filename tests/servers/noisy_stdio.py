"""A stdio MCP server that misbehaves on its pipes on request: stray stdout lines, stderr chatter,
huge results, sudden death. Run as `python -m tests.servers.noisy_stdio`."""

from __future__ import annotations

import os
import sys

from mcp.server.mcpserver import MCPServer

# The SDK's stdio server diverts fd 1 to stderr; a duplicate taken first still reaches the wire,
# as a print() in an mcp 1.x or node server would.
WIRE = os.dup(1) if __name__ == "__main__" else 1


def build() -> MCPServer:
    server = MCPServer("noisy")

    @server.tool()
    def echo(text: str) -> str:
        """Echo the text back."""
        return text

    @server.tool()
    def stray_stdout(kind: str) -> str:
        """Write one stray line to stdout before answering: `utf8` (invalid UTF-8) or `text`."""
        os.write(WIRE, b"\xff\xfe\xfd not utf-8 \xc3\x28\n" if kind == "utf8" else b"hello from print()\n")
        return "after the stray line"

    @server.tool()
    def shout(text: str) -> str:
        """Write the text to stderr, then answer."""
        print(f"stderr says {text}", file=sys.stderr, flush=True)
        return text

    @server.tool(structured_output=False)
    def big(size: int) -> str:
        """A text result of `size` bytes."""
        return "x" * size

    @server.tool()
    def die(last_words: str) -> str:
        """Write last words to stderr and exit with status 3 at once."""
        print(last_words, file=sys.stderr, flush=True)
        os._exit(3)

    @server.tool()
    def pid() -> int:
        """The server's process id."""
        return os.getpid()

    return server


if __name__ == "__main__":
    print("noisy server starting", file=sys.stderr, flush=True)
    build().run("stdio")
