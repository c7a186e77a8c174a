"""What a server says about itself when its session opens: name, version, title and the
instructions meant for a model's system prompt."""

from __future__ import annotations

from dataclasses import dataclass

from mcp.client.session import ClientSession


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """What a server says about itself when the session opens (initialize / discover)."""

    server_name: str
    """The configured name of the server."""
    name: str | None
    version: str | None
    title: str | None
    instructions: str | None
    """How to use the server, meant for a model's system prompt; None when it gave none."""
    protocol_version: str | None


def server_info(server_name: str, session: ClientSession) -> ServerInfo:
    implementation = session.server_info
    return ServerInfo(
        server_name=server_name,
        name=implementation.name if implementation else None,
        version=implementation.version if implementation else None,
        title=implementation.title if implementation else None,
        instructions=session.instructions,
        protocol_version=session.protocol_version,
    )
