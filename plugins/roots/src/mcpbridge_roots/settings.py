"""`[plugins.roots]`: the roots of each server, `file://` URIs only.

[plugins.roots]
servers = { fs = ["file:///srv/project", { uri = "file:///home/ann/notes", name = "notes" }] }
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from mcpbridge import ServerName


class RootConfig(BaseModel):
    """One root: a `file://` URI and an optional name shown to the server."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    uri: str
    name: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_string(cls, data: Any) -> Any:
        return {"uri": data} if isinstance(data, str) else data

    @field_validator("uri")
    @classmethod
    def _file_uri(cls, uri: str) -> str:
        parts = urlsplit(uri)
        if parts.scheme != "file" or not parts.path.startswith("/"):
            raise ValueError(
                f"root {uri!r} is not a file:// URI with an absolute path (MCP roots are file:// URIs only), "
                'e.g. "file:///home/me/project"'
            )
        if parts.query or parts.fragment:
            raise ValueError(f"root {uri!r} has a query or fragment, which a file:// root cannot have")
        return uri


class RootsSettings(BaseModel):
    """The plugin's settings: which servers are told the client has roots, and their first roots."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    servers: dict[ServerName, list[RootConfig]] = Field(default_factory=dict)
    """Server → its roots (`file://` URIs, or `{uri, name}` tables), answered on `roots/list`
    and in a modern server's rounds; change them with `mcpbridge_roots.set_roots()`. A server
    not listed is not told the client has roots (`[]`: it has, and none yet)."""
