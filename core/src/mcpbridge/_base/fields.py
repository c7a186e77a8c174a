"""What settings values and HTTP headers may hold: `${ENV}` expansion, the one rule for the
config file and for tables given in Python, with the secrets it brings in; and the header
names and values the bridge agrees to send (RFC 9110, section 5).

A value taken from the environment is a secret wherever it goes: people put tokens there,
and a token in a stdio server's `args` or a key in a URL's path reaches error texts and the
HTTP client's request log as easily as a header does. So every value expansion reads from
the environment is noted here (`environment_secret`; `note_env_value` notes those a rule of
one's own reads), and a server's table that holds one makes it one of that bridge's known
secrets (`secrets_in_table`, through `Settings.secret_values()`), hidden in every error,
log line, span, event and CLI output; so are the other secrets a server's table holds
(static header values, secret-named `env` values, a URL's credentials: `secrets_in_servers`).

Every HTTP server shares one HTTP client between all callers, so a header the client cannot
send (a non-ASCII value, a trailing space, a vertical tab) fails inside the transport and can
take the session down for everyone. Headers are therefore checked before they reach the
transport, whoever set them (`check_headers`, beside the `InvalidHeader` it raises). The rules
are stricter than the HTTP client's own, never looser, so anything accepted here is also
accepted by httpx2 and h11:

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

import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from pydantic import BaseModel

from mcpbridge._base.errors import MIN_SECRET, SECRET_NAME, ConfigError, redact_url

_ENV_PATTERN = re.compile(r"\$\$\{|\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")

ENV_SECRET_MIN = 8
"""The shortest value of a variable whose name does not look secret that counts as a secret:
hiding every `8080`, `debug` or `true` in a log line would hide nothing and garble the rest."""

_taken: set[str] = set()
_taken_lock = threading.Lock()


def environment_secret(name: str, value: str) -> bool:
    """Whether `value`, read from the environment variable `name`, is a secret: a value of at
    least `ENV_SECRET_MIN` characters (spaces at its ends aside), or, when the name looks secret
    (`TOKEN`, `API_KEY`, `PASSWORD`, ... see `SECRET_NAME`), of at least `MIN_SECRET`."""
    length = len(value.strip())
    return length >= ENV_SECRET_MIN or (length >= MIN_SECRET and SECRET_NAME.search(name) is not None)


def note_env_value(name: str, value: str) -> str:
    """`value`, read from the environment variable `name` for a server's config by a `${VAR}`
    rule of your own (one that keeps an unset variable as written, say), noted as this
    module's expansion notes its values: a secret when `environment_secret` counts it, which
    every bridge whose server table holds it hides (`Settings.secret_values()`)."""
    if environment_secret(name, value):
        with _taken_lock:
            _taken.add(value)
    return value


def secrets_in_table(table: Any) -> set[str]:
    """The values taken from the environment (those `environment_secret` counts) that some
    string of `table` (a server's raw or dumped table: strings, mappings, lists) holds."""
    with _taken_lock:
        taken = tuple(_taken)
    if not taken:
        return set()
    return {value for text in _strings(table) for value in taken if value in text}


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping | list | tuple):
        for item in value.values() if isinstance(value, Mapping) else value:
            yield from _strings(item)


def expand_env(value: Any, source: str, key: str = "") -> Any:
    """Replace `${NAME}` (or `${NAME:-default}`) in every string with the environment's value;
    `$${` stands for a literal `${`. The one rule for the file and for dicts given in Python
    (`MCPBridge(servers=..., plugin_settings=...)`); built `ServerConfig`/`Settings` objects
    are the result of this step and are taken as they are. Values read from the environment
    are noted as secrets (see the module's docstring); a default is the file's own text."""
    if isinstance(value, str):

        def substitute(match: re.Match[str]) -> str:
            name, default = match.group(1), match.group(2)
            if name is None:
                return "${"
            found = os.environ.get(name)
            if found is None:
                if default is None:
                    raise ConfigError(
                        f"{source}: `{key}` uses ${{{name}}} but {name} is not set in the environment "
                        f"(set it, or write ${{{name}:-default}})"
                    )
                return default
            return note_env_value(name, found)

        return _ENV_PATTERN.sub(substitute, value)
    if isinstance(value, Mapping):
        return {k: expand_env(v, source, f"{key}.{k}" if key else str(k)) for k, v in value.items()}
    if isinstance(value, list):
        return [expand_env(v, source, f"{key}[{i}]") for i, v in enumerate(value)]
    return value


def secrets_in_servers(servers: Mapping[str, Any]) -> set[str]:
    """Secret-looking strings of raw or dumped server tables (best effort: tables only)."""
    found: set[str] = set()
    for table in servers.values():
        if isinstance(table, BaseModel):
            table = table.model_dump()
        if not isinstance(table, Mapping):
            continue
        headers, env, url = table.get("headers"), table.get("env"), table.get("url")
        if isinstance(headers, Mapping):
            found.update(value for value in headers.values() if isinstance(value, str))
        if isinstance(env, Mapping):
            found.update(v for k, v in env.items() if isinstance(v, str) and SECRET_NAME.search(str(k)))
        if isinstance(url, str) and redact_url(url) != url:
            found.update(_url_secrets(url))
        found.update(secrets_in_table(table))
    return found


def _url_secrets(url: str) -> list[str]:
    try:
        parts = urlsplit(url)
        found = [parts.password] if parts.password else []
        for text in (parts.query, parts.fragment):  # `;` separates too, as `redact_url` reads it
            found += [value for name, value in parse_qsl(text.replace(";", "&")) if value and SECRET_NAME.search(name)]
    except ValueError:
        return []
    return found


HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
HEADER_VALUE = re.compile(r"(?:[\x21-\x7e](?:[\x20\x09\x21-\x7e]*[\x21-\x7e])?)?")

RESERVED_HEADERS = frozenset(
    # framing and connection management: a wrong value desynchronises or closes the connection
    {"content-length", "transfer-encoding", "host", "te", "trailer"}
    | {"connection", "keep-alive", "proxy-connection", "upgrade"}
    # the MCP streamable-HTTP session itself: a wrong value ends the session for every caller
    | {"mcp-session-id", "mcp-protocol-version", "last-event-id"}
)
"""Header names the transport owns; setting them from config or per call is refused."""

_CONTROL_NAMES = {0: "NUL", 10: "line feed (LF)", 11: "vertical tab", 12: "form feed", 13: "carriage return (CR)"}


def header_problem(name: object, value: object = None) -> str | None:
    """What makes `name` (and `value`, unless None) unsendable, or None when both are fine.

    The text names the header and never contains the value."""
    if not isinstance(name, str):
        return f"a header name is a {type(name).__name__}; header names must be text"
    if not name:
        return "a header name is empty"
    if HEADER_NAME.fullmatch(name) is None:
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
    if value is None or (isinstance(value, str) and HEADER_VALUE.fullmatch(value) is not None):
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
