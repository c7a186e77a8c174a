"""A stdio MCP server that is slow to start: it writes its process id to the file named by its
first argument, then reads its stdin without ever answering, until the client closes it (tests
stop the command waiting for it)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

if __name__ == "__main__":
    Path(sys.argv[1]).write_text(str(os.getpid()))
    sys.stdin.buffer.read()
