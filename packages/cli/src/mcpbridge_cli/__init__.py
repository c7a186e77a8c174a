"""mcpbridge-cli: the `mcpbridge` command line (`plugins`, `tools`, `call` and the commands
that plugins declare), apart from the core, which a bridge does not need it for."""

from __future__ import annotations

from mcpbridge_cli.app import main

__all__ = ["main"]
