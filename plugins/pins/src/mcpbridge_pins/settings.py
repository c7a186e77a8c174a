"""`[plugins.pins]`: which servers' tools are pinned, and where the pins are kept.

[plugins.pins]
pin_tools = true                 # every server's tools; or a list: ["github"]
file = "mcpbridge.pins.json"     # relative to the config file's directory
max_tools = 5000                 # the most definitions kept per server (pinned, and in memory)
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from mcpbridge import ServerName

DEFAULT_FILE = "mcpbridge.pins.json"
DEFAULT_MAX_TOOLS = 5000


class PinsSettings(BaseModel):
    """Changed definitions are always noticed; `pin_tools` also holds them back."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pin_tools: bool | list[ServerName] = False
    """Pin each tool's definition when first seen and leave out a tool whose definition
    changes after, until a person accepts it: every server's tools (True) or these servers'."""
    file: str = Field(default=DEFAULT_FILE, min_length=1)
    """Where pinned definitions are kept, relative to the config file's directory (the
    working directory without one), shared by every process that uses the same file."""
    max_tools: int = Field(default=DEFAULT_MAX_TOOLS, ge=1)
    """The most tool definitions kept per server, so that a server renaming its tools at
    every listing grows neither the pins file nor the bridge's memory: at most this many
    pins per server (a tool first seen once they are all taken is left out, unpinned), and
    in memory the tools of the server's latest listing and, up to this many in all, those it
    listed before (the oldest forgotten first)."""

    def pins(self, server: str) -> bool:
        return self.pin_tools if isinstance(self.pin_tools, bool) else server in self.pin_tools

    @property
    def pinning(self) -> bool:
        return bool(self.pin_tools)

    def path(self, source: str | None) -> Path:
        """`file`, relative to the config file `source` (the working directory without one)."""
        base = Path(source).parent if source else Path.cwd()
        return base / self.file
