"""The MCP vocabulary every layer speaks: the client capabilities a server may ask of the
client, the `Client` options and request methods through which each is answered, and the
marker for an option that answers modern-protocol servers only."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

Capability: TypeAlias = Literal["elicitation", "sampling", "roots", "tasks"]
"""A client capability of the MCP protocol that a plugin can answer for servers ("tasks":
running task-augmented tool calls, `execution.taskSupport`)."""

CALLBACKS: Mapping[str, Capability] = MappingProxyType(
    {"elicitation_callback": "elicitation", "sampling_callback": "sampling", "list_roots_callback": "roots"}
)
"""The mcp `Client` option through which a plugin answers each capability a server asks
of the client by a request of its own (`mcpbridge_client_options`)."""

METHODS: Mapping[str, Capability] = MappingProxyType(
    {"elicitation/create": "elicitation", "sampling/createMessage": "sampling", "roots/list": "roots"}
)
"""Which client capability answers each request method a server may put in a round."""


def capability_of(asked: Any) -> Capability | None:
    """The capability that answers one request of a round (None for a method nobody knows)."""
    return METHODS.get(str(getattr(asked, "method", "")))


@dataclass(frozen=True, slots=True)
class ModernOnly:
    """A client option (from `mcpbridge_client_options`) that only answers servers on the
    modern protocol, e.g. an elicitation callback that has no way to answer a legacy
    server's mid-call question. It is offered to modern servers only, so a legacy server is
    never told the client can do what it cannot: in `auto` mode it is added once the
    handshake found the server modern (one handshake either way)."""

    value: Any
