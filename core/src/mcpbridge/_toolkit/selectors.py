"""One grammar for choosing servers and tools in settings, the same in every plugin.

A `ToolSelector` has a `server` and a `tool` pattern: shell-style globs (`*`, `?`,
`[abc]`, case-sensitive) on the configured server name and on the server's own MCP tool
name (never the prefixed display name, so a prefix cannot dodge a rule). Both default to
`*`. A server pattern that matches no configured server is refused when the bridge is
built, so a typo cannot silently select nothing. `ServerName` is an exact configured
server name (for per-server tables).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, ValidationInfo, model_validator

S = TypeVar("S", bound="ToolSelector")


def _configured(info: ValidationInfo) -> Mapping[str, Any] | None:
    """The configured servers, when the core validates settings (None in plain Python use)."""
    context = info.context
    return context.get("servers") if isinstance(context, Mapping) else None


def _known_server(name: str, info: ValidationInfo) -> str:
    servers = _configured(info)
    if servers is not None and name not in servers:
        raise ValueError(
            f"server {name!r} is not configured; configured servers: {', '.join(sorted(servers)) or 'none'}"
        )
    return name


ServerName = Annotated[str, AfterValidator(_known_server)]
"""A configured server's name; anything else is refused when the bridge is built."""


class ToolSelector(BaseModel):
    """Selects calls by `(server, tool)` globs; subclass it for rules that carry more keys."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    server: str = Field(default="*", min_length=1)
    """Glob on the configured server name."""
    tool: str = Field(default="*", min_length=1)
    """Glob on the server's own MCP tool name (not the display name)."""
    _match: tuple[re.Pattern[str], re.Pattern[str]] = PrivateAttr()

    @model_validator(mode="after")
    def _compile(self, info: ValidationInfo) -> ToolSelector:
        servers = _configured(info)
        if servers is not None and not any(fnmatch.fnmatchcase(name, self.server) for name in servers):
            raise ValueError(
                f"server pattern {self.server!r} matches no configured server; "
                f"configured servers: {', '.join(sorted(servers)) or 'none'}"
            )
        self._match = (re.compile(fnmatch.translate(self.server)), re.compile(fnmatch.translate(self.tool)))
        return self

    def selects(self, server_name: str, name: str) -> bool:
        """Whether this selector chooses the MCP tool `name` of server `server_name`."""
        server, tool = self._match
        return server.match(server_name) is not None and tool.match(name) is not None


def selected(selectors: Iterable[S], server_name: str, name: str) -> Iterator[S]:
    """The selectors (rules) that choose `(server_name, name)`, in their order."""
    return (selector for selector in selectors if selector.selects(server_name, name))
