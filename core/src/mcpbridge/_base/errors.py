"""The errors of mcpbridge, one tree, and what keeps secrets out of their text and of logs.

    MCPBridgeError
    ├── ConfigError            bad configuration (file, environment, Python arguments)
    ├── PluginError            a plugin could not be found, loaded or configured
    ├── ServerRequestError     a server's error answer to a request that is not a tool call
    ├── ResumeConflictError    another worker already resumed this paused call; nothing ran
    ├── ClaimStoreError        a resumed call could not be claimed (store unreachable); nothing ran
    └── ToolCallError          one tool call failed (`mcpbridge._base.tool_errors`: a LangChain
                               ToolException; the rest, here, loads without LangChain)

An error's text often quotes a server, so it is made safe once, when the error is built: cut
to `MAX_MESSAGE_CHARS`, then cleared of URL credentials and of every secret the bridges of
this process know (`outward_text`). Secrets reach text as credentials in URLs (`redact_url`),
values the bridge knows are secret (`redact_text(text, secrets)`, in their escaped forms too)
and header values quoted by the HTTP stack (always hidden); `install_log_redaction()` applies
all three to the records of the HTTP stack, `mcp` and `mcpbridge`. Patterns that repeat run
on RE2, linear in the text (docs/security.md, docs/performance.md).

With what keeps importing cheap, for the plugin host and the CLI (which load neither mcp nor
LangChain): names a package gives but imports on first use (`lazy_exports`), and the
switches read from the environment.
"""

from __future__ import annotations

import importlib
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, quote_plus, unquote_plus, urlsplit, urlunsplit

import re2  # type: ignore[import-untyped]

if TYPE_CHECKING:
    from pydantic import ValidationError

MASK = "***"

SECRET_NAME = re.compile(
    r"token|key|secret|passw|pwd|auth|sig|code|credential|session|cookie|jwt|bearer|private|ticket|otp",
    re.IGNORECASE,
)
"""Parameter (and environment variable) names whose values are treated as secrets. Words
only, no repetition: at most 16 short tries a character, so linear on any name."""

_SPACE = r"\t-\r\x1c-\x1f\x85\p{Z}"
"""What Python calls whitespace (`str.isspace`), for RE2 (whose own class is ASCII only)."""
_URL = re2.compile(rf"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^{_SPACE}'\"<>`]+")
_QUOTED_HEADER = re2.compile(r"""Illegal header (?:value|name) b?(?:'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")
_USERINFO = re2.compile(rf"//[^/@{_SPACE}]*@")
MIN_SECRET = 3
"""Shorter known values are not searched for: replacing every `1` in a log line hides nothing."""
_URL_KEEPS = "".join(chr(i) for i in range(0x21, 0x7F) if chr(i) not in '"#<>?`{}')
"""What the HTTP client (httpx2) leaves as it is in a URL's path; in a query it keeps `?`, a
backtick and braces too, and it percent-encodes the rest (spaces, quotes, non-ASCII)."""

MAX_QUOTED_CHARS = 4000
"""The most characters of one server text the bridge quotes in a message (a stderr tail, an
error message); `capped` keeps its start and its end."""
_WHITESPACE = " \t\n\r\f\v"

LOGGERS = ("httpx", "httpx2", "httpcore", "httpcore2", "mcp", "mcpbridge")
"""Top-level loggers whose records are redacted (with their children and `mcpbridge_*`)."""


def _substitute(pattern: Any, text: str, replace: Callable[[str], str]) -> str:
    """Every match of the RE2 `pattern` in `text` replaced by `replace(matched text)`, through
    UTF-8 with `surrogatepass` (log messages may carry lone surrogates)."""

    def swap(match: Any) -> bytes:
        return replace(match.group(0).decode("utf-8", "surrogatepass")).encode("utf-8", "surrogatepass")

    replaced: bytes = pattern.sub(swap, text.encode("utf-8", "surrogatepass"))
    return replaced.decode("utf-8", "surrogatepass")


def redact_url(url: str) -> str:
    """`url` with its user info and secret-looking query / fragment values replaced by `***`.

    Never raises: text that does not parse as a URL comes back with its `user:pass@`
    part (if any) masked."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if "@" in netloc:
            netloc = MASK + "@" + netloc.rpartition("@")[2]
        query, fragment = _redact_params(parts.query), _redact_params(parts.fragment)
        if (netloc, query, fragment) == (parts.netloc, parts.query, parts.fragment):
            return url
        return urlunsplit((parts.scheme, netloc, parts.path, query, fragment))
    except ValueError:
        return _substitute(_USERINFO, url, lambda _: f"//{MASK}@")


def _redact_params(text: str) -> str:
    if "=" not in text:
        return text
    pieces = []
    for piece in re.split(r"([&;])", text):
        name, equals, _ = piece.partition("=")
        if equals and SECRET_NAME.search(unquote_plus(name)):
            piece = f"{name}={MASK}"
        pieces.append(piece)
    return "".join(pieces)


def secret_forms(secrets: Iterable[str]) -> list[str]:
    """The texts to search for: each secret as it is, stripped, as `repr` would escape it
    (str and bytes) and as a URL carries it, longest first so a longer form is
    replaced before its parts."""
    forms: set[str] = set()
    for secret in secrets:
        if not isinstance(secret, str):
            continue
        for form in (secret, secret.strip()):
            if len(form) >= MIN_SECRET:
                forms.update((form, repr(form)[1:-1], repr(form.encode("utf-8", "backslashreplace"))[2:-1]))
                # percent-encoded as the HTTP client logs it in a URL's path or query, fully encoded, and
                # form-encoded (`+` for a space): the forms in which a key in a URL reaches the client's
                # `HTTP Request:` line and the errors quoting the URL
                surrogates = "surrogatepass"  # log texts may carry lone surrogates (see `_substitute`)
                forms.update(
                    quote(form, safe=safe, errors=surrogates) for safe in (_URL_KEEPS, _URL_KEEPS + "?`{}", "")
                )
                forms.add(quote_plus(form, safe="", errors=surrogates))
        # each long word too: the credential of "Bearer <token>" on its own
        forms.update(word for word in secret.split() if len(word) >= 8)
    return sorted(forms, key=len, reverse=True)


def redact_text(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with URLs redacted (`redact_url`), header values quoted by the HTTP stack hidden,
    and every known secret in `secrets` (values of 3 or more characters, also in their
    escaped `repr` and percent-encoded forms) replaced by `***`."""
    return _redact(text, secret_forms(secrets))


def _redact(text: str, forms: Iterable[str]) -> str:
    for form in forms:
        if form in text:
            text = text.replace(form, MASK)
    if "://" in text:
        text = _substitute(_URL, text, redact_url)
    if "Illegal header" in text:
        # `Illegal header value b'...'` → `Illegal header value ***` (the first space past `Illegal header `)
        text = _substitute(_QUOTED_HEADER, text, lambda quoted: quoted[: quoted.index(" ", 15) + 1] + MASK)
    return text


def capped(text: str, limit: int = MAX_QUOTED_CHARS) -> str:
    """`text` cut to about `limit` characters: its start and its end, saying how much was
    left out between them. A word (text between whitespace) that the cut would split is left
    out whole: half a URL is no longer recognised as one, and would show its credentials."""
    if len(text) <= limit:
        return text
    half = limit // 2
    head, tail = text[:half], text[len(text) - half :]
    if text[half] not in _WHITESPACE:
        head = head[: max(head.rfind(space) for space in _WHITESPACE) + 1]
    if text[len(text) - half - 1] not in _WHITESPACE:
        starts = [found for found in (tail.find(space) for space in _WHITESPACE) if found >= 0]
        tail = tail[min(starts) :] if starts else ""
    return f"{head}… ({len(text) - len(head) - len(tail)} characters left out) …{tail}"


def shown(text: Any, limit: int = 80) -> str:
    """A server-controlled string (a `$ref`, a pattern, a tool name) shortened to `limit`
    characters and quoted, for a message or a log line: one line, whatever it holds."""
    text = str(text)
    return repr(text if len(text) <= limit else text[:limit] + "…")


def outward_text(text: str, limit: int = MAX_QUOTED_CHARS) -> str:
    """`text` as the bridge may show it outside (to the model, in spans, events, logs and the
    CLI): cut to `limit` characters (`capped`) before any pattern runs, then redacted with
    every secret the bridges of this process know (`install_log_redaction`)."""
    forms = _installed.forms if _installed is not None else ()
    return _redact(capped(text, limit), forms)


class RedactingFilter(logging.Filter):
    """Redacts URLs with credentials, quoted header values and known secrets in the records
    it sees (message, arguments and exception text); never drops a record.

    Attach it to your own handlers too: `handler.addFilter(RedactingFilter(secrets))`."""

    def __init__(self, secrets: Iterable[str] = (), *, loggers: Iterable[str] | None = None) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self.forms: list[str] = []
        """The texts searched for (`secret_forms` of `secrets`)."""
        self._lock = threading.Lock()
        self._roots = tuple(loggers) if loggers is not None else None
        self.add_secrets(secrets)

    @property
    def secrets(self) -> frozenset[str]:
        """The values hidden so far."""
        return frozenset(self._secrets)

    def add_secrets(self, secrets: Iterable[str]) -> None:
        """Also hide these values from now on (e.g. the static headers of a new bridge)."""
        with self._lock:
            if new := {s for s in secrets if isinstance(s, str)} - self._secrets:
                self._secrets |= new
                self.forms = secret_forms(self._secrets)

    def filter(self, record: logging.LogRecord) -> bool:
        """Rewrite `record` in place (if its logger is one of `loggers`), so no handler or
        formatter can print a secret from it."""
        # `record.name` may be None: `logging.makeLogRecord()` (structlog uses it) builds records without one
        root = (record.name or "").partition(".")[0]
        if self._roots is not None and root not in self._roots and not root.startswith("mcpbridge_"):
            return True
        forms = self.forms
        try:
            message = record.getMessage()
        except Exception:  # a record whose arguments do not fit its format: leave it to logging
            return True
        redacted = _redact(message, forms)
        if redacted != message:
            record.msg, record.args = redacted, ()
        if record.exc_info and not record.exc_text:
            record.exc_text = _redact(logging.Formatter().formatException(record.exc_info), forms)
        elif record.exc_text:
            record.exc_text = _redact(record.exc_text, forms)
        return True


_installed: RedactingFilter | None = None
_install_lock = threading.Lock()


def install_log_redaction(secrets: Iterable[str] = ()) -> RedactingFilter:
    """Redact every record of the `LOGGERS` from now on, in this process; add `secrets` to
    the values hidden. Idempotent: the first call installs, later calls only add secrets.

    Works at record creation (a wrapped log record factory), so it covers child loggers
    created later and every handler, including ones the application adds afterwards."""
    global _installed
    with _install_lock:
        if _installed is None:
            installed = RedactingFilter(loggers=LOGGERS)
            previous = logging.getLogRecordFactory()

            def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
                record = previous(*args, **kwargs)
                installed.filter(record)
                return record

            logging.setLogRecordFactory(factory)
            _installed = installed
        _installed.add_secrets(secrets)
        return _installed


MAX_MESSAGE_CHARS = 2 * MAX_QUOTED_CHARS
"""The longest error text: the bridge's own words and a quoted server text or two."""


def error_text(text: str) -> str:
    """`text` made safe to show as an error's: for errors the bridge writes as text rather
    than raises (an error result of its own)."""
    return outward_text(text, MAX_MESSAGE_CHARS)


class MCPBridgeError(Exception):
    """Base class of every error mcpbridge raises on its own; its text arguments are made
    safe to show (see above) as it is built, so `str()` and `repr()` are too."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(error_text(arg) if isinstance(arg, str) else arg for arg in args))


class ConfigError(MCPBridgeError, ValueError):
    """The configuration (file, environment or Python arguments) is invalid."""

    @classmethod
    def unknown_server(cls, name: str, configured: Iterable[str]) -> ConfigError:
        """A server name that is not configured: refused, as a typo would act on nothing."""
        return cls(f"unknown server {name!r}; configured servers: {', '.join(configured) or 'none'}")


class PluginError(MCPBridgeError):
    """A plugin could not be found, loaded or configured."""


class ServerRequestError(MCPBridgeError):
    """A server answered a request that is not a tool call (`resources/read`, `prompts/get`,
    ...) with an error, or with a result that cannot be used. `server_name`, `request` (e.g.
    `"resources/read of 'file:///a.txt'"`) and the MCP error `code` (None for an unusable
    result) say which."""

    def __init__(self, server_name: str, request: str, problem: str, *, code: int | None = None) -> None:
        super().__init__(f"MCP server {server_name!r} answered {request} with an error: {problem}")
        self.server_name, self.request, self.code = server_name, request, code


class ResumeConflictError(MCPBridgeError):
    """A paused call (approval, elicitation) was resumed here, but another worker had already
    resumed the same interrupt and claimed its execution: this resume sent nothing. Not a
    `ToolException`, so the agent writes no result for it: the losing `graph.invoke` raises,
    and the thread's state holds the winner's result. `holder` names the winning worker."""

    def __init__(self, message: str, *, server_name: str, name: str, thread_id: str, holder: str) -> None:
        super().__init__(message)
        self.server_name, self.name, self.thread_id, self.holder = server_name, name, thread_id, holder


class ClaimStoreError(MCPBridgeError):
    """The store where workers claim resumed calls failed; the call was not sent, and the
    same resume can be sent again once the store is reachable."""


def validation_problems(exc: ValidationError, *, unknown_key: str = "unknown key") -> list[tuple[str, str]]:
    """What pydantic found wrong, as (dotted key, message) pairs for a `ConfigError`: the
    message without pydantic's "Value error, " prefix, and `unknown_key` for a key the model
    does not have."""
    return [
        (
            ".".join(str(part) for part in error["loc"]),
            unknown_key if error["type"] == "extra_forbidden" else error["msg"].removeprefix("Value error, "),
        )
        for error in exc.errors()
    ]


def root_cause(exc: BaseException) -> BaseException:
    """`exc`, or for an exception group its first exception's root cause."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


def describe(exc: BaseException) -> str:
    """A one-line description of the root cause (`root_cause`)."""
    exc = root_cause(exc)
    text = str(exc) or type(exc).__name__
    return f"{type(exc).__name__}: {text}" if text != type(exc).__name__ else text


def lazy_exports(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """A module `__getattr__` for `package`: each name of `homes` (name → module) is imported
    from its module when first read, then kept in the package. Use it as
    `__getattr__ = lazy_exports(__name__, {...})` and import the same names under
    `TYPE_CHECKING` for type checkers."""

    def __getattr__(name: str) -> Any:
        if (home := homes.get(name)) is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__


def env_flag(name: str) -> bool:
    """Whether the environment variable `name` is on (1, true, yes or on)."""
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def tracing() -> bool:
    """Whether `MCPBRIDGE_TRACE_HOOKS` asks to print hook calls and interceptor layers."""
    return env_flag("MCPBRIDGE_TRACE_HOOKS")
