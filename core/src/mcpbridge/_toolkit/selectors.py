"""Which tools a rule applies to: one grammar for choosing servers and tools in settings, the
same in every plugin, and one reading of a tool's MCP annotations.

A `ToolSelector` has a `server` and a `tool` pattern: shell-style globs (`*`, `?`,
`[abc]`, case-sensitive) on the configured server name and on the server's own MCP tool
name (never the prefixed display name, so a prefix cannot dodge a rule). Both default to
`*`. A server pattern that matches no configured server is refused when the bridge is
built, so a typo cannot silently select nothing. `ServerName` is an exact configured
server name (for per-server tables).

`tool_hints` reads the annotations with the MCP spec's defaults for a missing hint:
`readOnlyHint` false, `destructiveHint` true (it only means something when the tool is not
read-only), `idempotentHint` false, `openWorldHint` true. Annotations are the server's
claims, not guarantees: use them for defaults that a person can override in the config,
never as a security boundary on their own. Where they contradict themselves (`readOnlyHint`
and `destructiveHint` both true), the unsafe claim wins, for every policy alike.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, ValidationInfo, model_validator

if TYPE_CHECKING:  # mcp is slow to import: settings models use selectors without it
    from mcp.types import Tool

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


@dataclass(frozen=True, slots=True)
class ToolHints:
    """What a tool says about itself; missing hints take the MCP spec's defaults."""

    read_only: bool = False
    destructive: bool = True
    """Never true for a read-only tool."""
    idempotent: bool = False
    """True for a read-only tool too: repeating a call without side effects is safe."""
    open_world: bool = True
    annotated: bool = False
    """Whether the tool declares `readOnlyHint` or `destructiveHint` at all (policies may
    treat a tool that says nothing differently from one that says "destructive")."""


def tool_hints(tool: Tool | None) -> ToolHints:
    """The hints of `tool` (all defaults for None or a tool without annotations); a tool that
    claims to be both read-only and destructive is read as destructive, not read-only and
    idempotent only if it says so."""
    if tool is None or (given := tool.annotations) is None:
        return _UNANNOTATED
    return _reading(given.read_only_hint, given.destructive_hint, given.idempotent_hint, given.open_world_hint)


@functools.cache
def _reading(
    read_only_hint: bool | None, destructive_hint: bool | None, idempotent_hint: bool | None, open_world: bool | None
) -> ToolHints:
    """One shared reading per combination of hints (policies ask on every call)."""
    read_only = read_only_hint is True and destructive_hint is not True
    return ToolHints(
        read_only=read_only,
        destructive=not read_only and destructive_hint is not False,
        idempotent=read_only or idempotent_hint is True,
        open_world=open_world is not False,
        annotated=read_only_hint is not None or destructive_hint is not None,
    )


_UNANNOTATED = ToolHints()
