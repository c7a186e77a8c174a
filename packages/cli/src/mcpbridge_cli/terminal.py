"""Server text as a terminal may show it, for everything an `mcpbridge` command prints from a
server (names, descriptions, results, the errors that quote them), these and the ones other
distributions declare: a server cannot drive the user's terminal, so no clear screen,
clipboard write (OSC 52), concealed or reordered text."""

from __future__ import annotations

import unicodedata
from typing import Any


class _Escapes(dict[int, str]):
    """A `str.translate` table filled as it goes: each character is looked at once, so
    escaping costs linear time and a dictionary lookup a character."""

    _UNSEEN = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
    """Controls (C0, DEL, C1), format characters (bidi overrides, zero-width ones), lone
    surrogates (which stdout cannot even encode) and line / paragraph separators."""

    def __init__(self, kept: str) -> None:
        super().__init__()
        self._kept = kept

    def __missing__(self, code: int) -> str:
        char = chr(code)
        unseen = unicodedata.category(char) in self._UNSEEN and char not in self._kept
        self[code] = shown = repr(char)[1:-1] if unseen else char
        return shown


_ONE_LINE, _LINES = _Escapes(""), _Escapes("\n\t")


def terminal_text(text: object, *, lines: bool = False) -> str:
    """Server text as a terminal may show it: every control, format or separator character
    written as its escape (ESC as `\\x1b`, U+202E as `\\u202e`); newlines and tabs stay in
    multi-line text (`lines`)."""
    text = str(text)
    return text if text.isprintable() else text.translate(_LINES if lines else _ONE_LINE)


async def ask(prompt: str) -> str | None:
    """A line typed in answer to `prompt` (written to stderr, so stdout keeps only results),
    read without blocking the event loop: Ctrl-C ends the command at once, as anywhere else.
    None at the end of input (Ctrl-D, a closed pipe)."""
    import asyncio
    import os
    import sys

    print(prompt, end="", file=sys.stderr, flush=True)
    loop, fd, line = asyncio.get_running_loop(), sys.stdin.fileno(), b""
    while not line.endswith(b"\n"):
        try:
            await _readable(loop, fd)
        except asyncio.CancelledError:  # stopped at the question: what follows starts a new line
            print(file=sys.stderr, flush=True)
            raise
        except (NotImplementedError, PermissionError):  # Windows consoles, regular files: they never wait long
            typed = await asyncio.to_thread(sys.stdin.readline)
            return typed.strip() if typed else None
        chunk = os.read(fd, 4096)
        if not chunk:
            print(file=sys.stderr)  # the prompt's line ends
            return line.decode(errors="replace").strip() or None
        line += chunk
    return line.decode(errors="replace").strip()


async def _readable(loop: Any, fd: int) -> None:
    """Returns once `fd` can be read without blocking."""
    ready = loop.create_future()

    def readable() -> None:
        if not ready.done():
            ready.set_result(None)

    loop.add_reader(fd, readable)
    try:
        await ready
    finally:
        loop.remove_reader(fd)
