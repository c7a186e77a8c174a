"""A server whose tools declare output schemas and answer inside and outside them, one
with a pattern that backtracks exponentially on Python's `re` (`^(a+)+$` on "aaa…!")."""

from __future__ import annotations

import sys
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel, Field

EVIL = "^(a+)+$"
EVIL_TEXT = "a" * 26 + "!"
"""Seconds on Python's `re` (each further "a" doubles it: 28 take ~15 s, 40 hours); on RE2,
microseconds."""


class Word(BaseModel):
    value: Annotated[str, Field(pattern=EVIL)]


class Count(BaseModel):
    count: int


def build() -> MCPServer:
    server = MCPServer("shaped")

    @server.tool()
    def evil() -> Word:
        """Structured content that breaks the output schema's pattern, the slow way for `re`."""
        return Word.model_construct(value=EVIL_TEXT)

    @server.tool()
    def fits(text: str = "aaa") -> Word:
        """Structured content inside the output schema."""
        return Word(value=text)

    @server.tool()
    def counted(n: int) -> Count:
        """`n` as structured content inside the output schema."""
        return Count(count=n)

    return server


if __name__ == "__main__":
    build().run(sys.argv[1] if len(sys.argv) > 1 else "stdio")
