"""Pinned tool definitions (`pin_tools`): each tool's definition as first seen or last
accepted, per (server, MCP tool name), in memory and in a JSON file.

The file is what lets a person accept a change from another process (`mcpbridge pins
accept`): a running bridge reads it again whenever it has a tool to check, so an
acceptance reaches it at its next listing. A file that cannot be written leaves the pins in
memory (with a warning); one that cannot be read is an error, never an empty pin set.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeAlias

from mcpbridge import ConfigError

logger = logging.getLogger(__name__)

Definition: TypeAlias = dict[str, Any]
"""A tool as JSON (`Tool.model_dump(mode="json", by_alias=True, exclude_none=True)`)."""
Pins: TypeAlias = dict[str, dict[str, Definition]]
"""server → MCP tool name → pinned definition."""
FORMAT = 1


class PinStore:
    """The pins of one bridge, shared with every process that uses the same file."""

    def __init__(self, path: Path, max_tools: int) -> None:
        self.path = path
        self.max_tools = max_tools
        """The most pins per server: first-seen tools past it are not pinned."""
        self._pins: Pins = {}
        self._lock = asyncio.Lock()

    async def load(self) -> Pins:
        """The pins as the file says now (pins kept only in memory fill the gaps)."""
        async with self._lock:
            self._pins = _merged(self._pins, await asyncio.to_thread(self._read))
            return self._pins

    async def pin(self, server: str, definitions: Mapping[str, Definition], *, replace: bool) -> set[str]:
        """Pin `definitions` of `server`'s tools: accepted ones (`replace`), or first-seen ones,
        which never overwrite a pin another process wrote meanwhile, nor grow the server's
        pins past `max_tools`. Returns the names left unpinned (no room)."""
        async with self._lock:
            pins = _merged(self._pins, await asyncio.to_thread(self._read))
            own = pins.setdefault(server, {})
            unpinned = set()
            for name, definition in definitions.items():
                if replace or (name not in own and len(own) < self.max_tools):
                    own[name] = definition
                elif name not in own:
                    unpinned.add(name)
            self._pins = pins
            try:
                await asyncio.to_thread(self._write, pins)
            except OSError as exc:
                logger.warning(
                    "mcpbridge: cannot save pinned tool definitions to %s (%s); they are kept in memory for "
                    "this bridge only, so `mcpbridge pins accept` cannot reach it",
                    self.path,
                    exc,
                )
            return unpinned

    def _read(self) -> Pins:
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise ConfigError(f"cannot read the pinned tool definitions in {self.path}: {exc}") from None
        try:
            data = json.loads(text)
            servers = data["servers"] if data.get("format") == FORMAT else None
            if not isinstance(servers, dict) or not all(
                isinstance(tools, dict) and all(isinstance(d, dict) for d in tools.values())
                for tools in servers.values()
            ):
                raise ValueError(f'expected {{"format": {FORMAT}, "servers": {{server: {{tool: definition}}}}}}')
        except (ValueError, AttributeError, KeyError) as exc:
            raise ConfigError(
                f"{self.path} is not a file of pinned tool definitions ({exc}): fix it, or delete it to pin "
                "the tools' current definitions again"
            ) from None
        return servers

    def _write(self, pins: Pins) -> None:
        """Write atomically: a reader never sees half a file."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as file:
                json.dump({"format": FORMAT, "servers": pins}, file, indent=2, sort_keys=True)
            os.replace(temporary, self.path)
        except BaseException:
            os.unlink(temporary)
            raise


def _merged(memory: Pins, on_file: Pins) -> Pins:
    return {server: {**memory.get(server, {}), **on_file.get(server, {})} for server in {*memory, *on_file}}
