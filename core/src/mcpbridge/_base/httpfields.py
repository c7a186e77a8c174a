"""HTTP header names and values the bridge agrees to send (RFC 9110, section 5).

Every HTTP server shares one HTTP client between all callers, so a header the client cannot
send (a non-ASCII value, a trailing space, a vertical tab) fails inside the transport and can
take the session down for everyone. Headers are therefore checked before they reach the
transport, whoever set them: the server config, a plugin or any interceptor.

The rules are stricter than the HTTP client's own, never looser, so anything accepted here is
also accepted by httpx2 and h11:

- a name is an RFC 9110 token (letters, digits and ``!#$%&'*+-.^_`|~``), and not one of the
  headers the transport sets itself (framing and the MCP session headers);
- a value is visible ASCII (``%x21-7E``), with single spaces or tabs allowed inside but not at
  either end; control characters (NUL, CR, LF, VT, FF, ``\\x01``, DEL, ...) and non-ASCII
  text are refused. HTTP clients send header values as ASCII: percent-encode or base64 other
  text.

Messages name the server and the header and say what is wrong; they never quote the value,
which is often a credential.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mcpbridge._base.tool_errors import InvalidHeader

_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VALUE = re.compile(r"(?:[\x21-\x7e](?:[\x20\x09\x21-\x7e]*[\x21-\x7e])?)?")

RESERVED_HEADERS = frozenset(
    # framing and connection management: a wrong value desynchronises or closes the connection
    {"content-length", "transfer-encoding", "host", "te", "trailer"}
    | {"connection", "keep-alive", "proxy-connection", "upgrade"}
    # the MCP streamable-HTTP session itself: a wrong value ends the session for every caller
    | {"mcp-session-id", "mcp-protocol-version", "last-event-id"}
)
"""Header names the transport owns; setting them from config or per call is refused."""

_CONTROL_NAMES = {0: "NUL", 10: "line feed (LF)", 11: "vertical tab", 12: "form feed", 13: "carriage return (CR)"}


def check_headers(server: str, headers: Mapping[str, str]) -> None:
    """Raise `InvalidHeader` for the first header of `headers` that cannot be sent safely.

    Cheap enough for every tool call (docs/performance.md): call it before the request reaches
    the transport."""
    good = _good_names
    for name, value in headers.items():
        if name not in good:
            if type(name) is not str or _NAME.fullmatch(name) is None or name.lower() in RESERVED_HEADERS:
                raise _invalid(server, str(name), header_problem(name) or "invalid header name")
            if len(good) < _MAX_GOOD_NAMES:
                good.add(name)
        # Fast path in C: visible ASCII and spaces, no space at either end (strip returns the
        # same object when it removes nothing). Tabs inside a value take the regex.
        if type(value) is str and value.isascii() and value.isprintable() and value.strip(" ") is value:
            continue
        if type(value) is not str or _VALUE.fullmatch(value) is None:
            raise _invalid(server, name, header_problem(name, value) or "invalid header value")


def _invalid(server: str, name: str, problem: str) -> InvalidHeader:
    """The error for a header that cannot be sent, imported on this path only: it is a
    LangChain `ToolException`, which the config (these rules' other user) need not load."""
    from mcpbridge._base.tool_errors import InvalidHeader

    return InvalidHeader(server, name, problem)


_good_names: set[str] = set()
"""Header names already accepted (names repeat: a handful per server), so the name check is
one set lookup on the hot path. Bounded, so names made up per call cannot grow it forever."""
_MAX_GOOD_NAMES = 4096


def header_problem(name: object, value: object = None) -> str | None:
    """What makes `name` (and `value`, unless None) unsendable, or None when both are fine.

    The text names the header and never contains the value."""
    if not isinstance(name, str):
        return f"a header name is a {type(name).__name__}; header names must be text"
    if not name:
        return "a header name is empty"
    if _NAME.fullmatch(name) is None:
        shown = repr(name if len(name) <= 40 else name[:40] + "...")
        return (
            f"header name {shown} is not a valid HTTP header name "
            "(an RFC 9110 token: ASCII letters, digits and !#$%&'*+-.^_`|~, no spaces or colons)"
        )
    if name.lower() in RESERVED_HEADERS:
        return (
            f"header {name!r} is set by the transport itself; setting it from the config or per call "
            "would break the shared session"
        )
    if value is None or (isinstance(value, str) and _VALUE.fullmatch(value) is not None):
        return None
    if not isinstance(value, str):
        return f"the value of header {name!r} is a {type(value).__name__}; header values must be text"
    return f"the value of header {name!r} {value_problem(value)}"


def value_problem(value: str) -> str:
    """Why `value` cannot be sent, described without quoting it."""
    if not value.isascii():
        return (
            "contains non-ASCII characters, which HTTP clients send only as ASCII: "
            "percent-encode or base64 it (and decode it in the server)"
        )
    for char in value:
        code = ord(char)
        if (code < 0x20 and code != 9) or code == 0x7F:
            what = _CONTROL_NAMES.get(code, f"U+{code:04X}")
            kind = "a line break" if code in (10, 13) else "a control character"
            return f"contains {kind} ({what}), which HTTP header values cannot carry"
    return "starts or ends with a space or tab, which HTTP strips or refuses: strip the value first"
