"""Server text as a terminal may show it, for everything an `mcpbridge` command prints from a
server (names, descriptions, results, the errors that quote them), these and the ones other
distributions declare: a server cannot drive the user's terminal, so no clear screen,
clipboard write (OSC 52), concealed or reordered text."""

from __future__ import annotations

import unicodedata


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
