"""The drop-in's test servers over stdio, as `MultiServerMCPClient` connections."""

from __future__ import annotations

import sys
from typing import Any

from tests.helpers import ROOT


def stdio_connection(name: str = "math") -> dict[str, Any]:
    return {
        "transport": "stdio",
        "command": sys.executable,
        "args": ["-m", "tests.adapters.servers", name],
        "cwd": str(ROOT),
    }
