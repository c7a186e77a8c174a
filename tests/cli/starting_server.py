"""A stdio MCP server that is slow to start: it writes its process id to the file named by its
first argument, then never answers (tests interrupt the command waiting for it)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

if __name__ == "__main__":
    Path(sys.argv[1]).write_text(str(__import__("os").getpid()))
    time.sleep(3600)
