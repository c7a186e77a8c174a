"""Header names and values the bridge refuses before the shared HTTP transport (RFC 9110), and
secrets kept out of errors, logs and CLI output (issue 14, points 4 and 5)."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import timeit
from pathlib import Path
from typing import Any

import h11
import httpx2
import pytest
from hypothesis import HealthCheck, example, given, settings, strategies as st

from mcpbridge import (
    ConfigError,
    InvalidHeader,
    MCPBridge,
    RedactingFilter,
    Settings,
    check_headers,
    describe,
    header_problem,
    install_log_redaction,
    load_settings,
    redact_text,
    redact_url,
)
from tests.helpers import ROOT

SECRET = "TOPSECRET-4f9c2a71e8"
RESERVED_HEADERS = {
    "content-length",
    "transfer-encoding",
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "upgrade",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
}
"""The headers the transport sets itself, refused in any case (docs/security.md lists them)."""
FIELD_VALUE = re.compile(r"(?:[\x21-\x7e](?:[\x20\x09\x21-\x7e]*[\x21-\x7e])?)?")
"""RFC 9110's field-value without obs-text: visible ASCII, with spaces or tabs only inside."""
TOKEN_CHARS = "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

BAD_VALUES = {
    "non-ASCII": "José",
    "trailing space": "alice ",
    "leading space": " alice",
    "trailing tab": "alice\t",
    "vertical tab": "a\x0bb",
    "form feed": "a\x0cb",
    "SOH": "a\x01b",
    "DEL": "a\x7fb",
    "NUL": "a\x00b",
    "CR": "a\rb",
    "LF": "a\nb",
    "CRLF injection": "a\r\nx-evil: 1",
    "trailing newline": "Bearer token\n",
    "lone surrogate": "x\ud800y",
    "emoji": "ok\U0001f600",
    "non-breaking space": "a\xa0b",
    "only a space": " ",
    "escape": "\x1b[31m",
}
GOOD_VALUES = [
    "",
    "alice",
    "Bearer abc.def-ghi_jkl",
    "a b",
    "a\tb",
    "a  b",
    "!~",
    "x" * 8000,
    "1",
    '"quoted"',
    "a,b;c=d",
]
BAD_NAMES = ["", "x user", "x:user", "x\nuser", "x\x00", "Jösé", "(x)", "x/y", "x@y", "x{", "x\t", " x"]
GOOD_NAMES = ["x", "X-User-Id", "authorization", "x_tenant", "a.b", "!#$%&'*+-.^_`|~", "X-" + "a" * 200]


def _h11_sends(name: str, value: str) -> None:
    """What the HTTP/1.1 stack does when the request is sent: raises on an illegal header."""
    connection = h11.Connection(h11.CLIENT)
    connection.send(h11.Request(method="POST", target="/mcp", headers=[("host", "example"), (name, value)]))


def _refusal(name: Any, value: Any) -> InvalidHeader | None:
    try:
        check_headers("s", {name: value})
    except InvalidHeader as exc:
        return exc
    return None


def _httpx_builds(name: str, value: str) -> None:
    httpx2.Request("POST", "http://example/mcp", headers={name: value})


# -- check_headers: examples ------------------------------------------------------------------


@pytest.mark.parametrize("value", GOOD_VALUES)
def test_good_values_pass_and_are_sendable(value: str) -> None:
    check_headers("crm", {"x-user-id": value})
    assert header_problem("x-user-id", value) is None
    _httpx_builds("x-user-id", value)
    _h11_sends("x-user-id", value)


@pytest.mark.parametrize(("why", "value"), BAD_VALUES.items(), ids=list(BAD_VALUES))
def test_bad_values_are_refused_naming_server_and_header_not_value(why: str, value: str) -> None:
    secret_value = value.replace("alice", SECRET) if "alice" in value else SECRET + value
    with pytest.raises(InvalidHeader) as caught:
        check_headers("crm", {"x-ok": "fine", "Authorization": secret_value})
    error = caught.value
    assert (error.server_name, error.header) == ("crm", "Authorization")
    text = str(error)
    assert "server 'crm'" in text
    assert "'Authorization'" in text
    assert "the server was not called" in text
    assert SECRET not in text


def test_messages_say_what_is_wrong() -> None:
    def problem(value: str) -> str:
        found = header_problem("x-a", value)
        assert found is not None
        return found

    assert "non-ASCII" in problem("José")
    assert "percent-encode or base64" in problem("José")
    assert "starts or ends with a space or tab" in problem("alice ")
    assert "vertical tab" in problem("a\x0bb")
    assert "form feed" in problem("a\x0cb")
    assert "U+0001" in problem("\x01")
    assert "U+007F" in problem("\x7f")
    assert "line break" in problem("a\nb")
    assert "NUL" in problem("\x00")


@pytest.mark.parametrize("name", BAD_NAMES)
def test_bad_names_are_refused(name: str) -> None:
    with pytest.raises(InvalidHeader, match="not a valid HTTP header name|header name is empty"):
        check_headers("crm", {name: "v"})


@pytest.mark.parametrize("name", GOOD_NAMES)
def test_good_names_pass(name: str) -> None:
    check_headers("crm", {name: "v"})
    _h11_sends(name, "v")


@pytest.mark.parametrize("name", sorted(RESERVED_HEADERS))
def test_headers_the_transport_owns_are_refused_in_any_case(name: str) -> None:
    for spelled in (name, name.upper(), name.title()):
        with pytest.raises(InvalidHeader, match="set by the transport itself"):
            check_headers("crm", {spelled: "1"})


def test_non_text_names_and_values_are_refused() -> None:
    with pytest.raises(InvalidHeader, match="is a int; header values must be text"):
        check_headers("crm", {"x-a": 5})  # type: ignore[dict-item]
    with pytest.raises(InvalidHeader, match="is a bytes; header values must be text"):
        check_headers("crm", {"x-a": b"v"})  # type: ignore[dict-item]
    with pytest.raises(InvalidHeader, match="header name is a int"):
        check_headers("crm", {5: "v"})  # type: ignore[dict-item]


def test_invalid_header_is_a_tool_exception() -> None:
    """So a tool's `_call` turns it into an error ToolMessage, like invalid arguments."""
    from langchain_core.tools import ToolException

    from mcpbridge import MCPBridgeError

    assert issubclass(InvalidHeader, ToolException)
    assert issubclass(InvalidHeader, MCPBridgeError)


def test_check_headers_costs_about_a_microsecond_per_header() -> None:
    headers = {"authorization": "Bearer " + "a" * 40, "x-user-id": "user-12345", "x-tenant": "acme corp"}
    check_headers("crm", headers)
    number = 20_000
    best = min(timeit.repeat(lambda: check_headers("crm", headers), number=number, repeat=5))
    per_header = best / number / len(headers)
    # ~0.4 µs on a quiet machine; the bound leaves room for shared CI cores.
    assert per_header < 5e-6, f"{per_header * 1e6:.2f} µs per header"


# -- check_headers: properties ------------------------------------------------------------------

names = st.text(alphabet=TOKEN_CHARS, min_size=1, max_size=30).filter(lambda n: n.lower() not in RESERVED_HEADERS)
anything = st.text(max_size=60)
ascii_ish = st.text(alphabet=st.characters(max_codepoint=0x80), max_size=60)


@given(name=names, value=st.one_of(anything, ascii_ish))
@example(name="x-a", value="a\tb")
@example(name="x-a", value="\x7f")
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
def test_every_accepted_value_is_sent_by_httpx_and_h11(name: str, value: str) -> None:
    refused = _refusal(name, value)
    if refused is not None:
        assert refused.header == name
        assert header_problem(name, value) is not None
        return
    assert header_problem(name, value) is None
    _httpx_builds(name, value)
    _h11_sends(name, value)


@given(name=st.text(max_size=20), value=st.text(alphabet=TOKEN_CHARS, max_size=10))
@settings(max_examples=300)
def test_every_accepted_name_is_sent_by_httpx_and_h11(name: str, value: str) -> None:
    if _refusal(name, value) is not None:
        return
    _httpx_builds(name, value)
    _h11_sends(name, value)


@given(tail=st.text(min_size=1, max_size=40))
@settings(max_examples=300)
def test_a_refused_value_never_appears_in_the_error(tail: str) -> None:
    refused = _refusal("authorization", SECRET + tail)
    assert SECRET not in str(refused)
    assert SECRET not in repr(refused)


@given(value=anything)
@settings(max_examples=300)
def test_fast_path_agrees_with_the_rfc_grammar(value: str) -> None:
    """The C fast path (isascii/isprintable/strip) and the RFC 9110 grammar decide the same."""
    accepted = header_problem("x-a", value) is None
    fast = _refusal("x-a", value) is None
    assert accepted is fast is (FIELD_VALUE.fullmatch(value) is not None)


# -- redaction ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://user:pw@host:8080/mcp", "http://***@host:8080/mcp"),
        ("https://host/mcp?token=abc&x=1", "https://host/mcp?token=***&x=1"),
        (
            "https://host/mcp?api_key=abc&access_token=def&page=2",
            "https://host/mcp?api_key=***&access_token=***&page=2",
        ),
        ("https://host/cb?code=xyz&state=s", "https://host/cb?code=***&state=s"),
        (
            "https://h/p?X-Amz-Signature=a&X-Amz-Credential=b&v=1",
            "https://h/p?X-Amz-Signature=***&X-Amz-Credential=***&v=1",
        ),
        ("https://host/cb#access_token=xyz", "https://host/cb#access_token=***"),
        ("https://host/mcp?client_secret=s3&password=p", "https://host/mcp?client_secret=***&password=***"),
        ("http://127.0.0.1:8000/mcp", "http://127.0.0.1:8000/mcp"),
        ("http://host/mcp?q=token", "http://host/mcp?q=token"),
        ("not a url", "not a url"),
        ("http://u:p@[::1", "http://***@[::1"),
    ],
)
def test_redact_url(url: str, expected: str) -> None:
    assert redact_url(url) == expected


def test_redact_text_hides_urls_known_secrets_and_quoted_header_values() -> None:
    secret = f"Bearer {SECRET}\n"
    text = (
        f"Illegal header value b'Bearer {SECRET}\\n' for http://me:pw1@h/mcp?token=zz, "
        f"also {SECRET} and {secret!r} and Illegal header value b'other-9xk'"
    )
    redacted = redact_text(text, [secret])
    assert SECRET not in redacted
    assert "pw1" not in redacted
    assert "token=zz" not in redacted
    assert "other-9xk" not in redacted
    assert "http://***@h/mcp?token=***" in redacted
    assert redact_text("nothing to hide", ["x", ""]) == "nothing to hide"


def test_log_redaction_covers_the_http_stack_with_real_httpx_messages(
    http_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """The HTTP client's own INFO line (full URL) and its `Illegal header value b'...'` error,
    logged as the core logs transport errors, reach no handler unredacted."""
    install_log_redaction([f"Bearer {SECRET} "])
    caplog.set_level(logging.DEBUG)
    host = http_url.removeprefix("http://")
    with httpx2.Client() as client:
        client.get(f"http://alice:{SECRET}@{host}?token={SECRET}&page=1")
        with pytest.raises(httpx2.LocalProtocolError) as caught:
            client.post(http_url, headers={"authorization": f"Bearer {SECRET} \x0b"})
    logging.getLogger("mcpbridge._session.connections").debug("transport error: %s", describe(caught.value))
    logging.getLogger("mcp.client.streamable_http").warning("failed", exc_info=caught.value)
    assert "HTTP Request: GET http://***@" in caplog.text
    assert "token=***&page=1" in caplog.text
    assert "transport error: LocalProtocolError: Illegal header value ***" in caplog.text
    assert SECRET not in caplog.text
    assert SECRET not in "".join(record.getMessage() + (record.exc_text or "") for record in caplog.records)


def test_log_redaction_is_installed_once_and_leaves_other_loggers_alone(caplog: pytest.LogCaptureFixture) -> None:
    first = install_log_redaction()
    factory = logging.getLogRecordFactory()
    assert install_log_redaction(["another-secret-value"]) is first
    assert logging.getLogRecordFactory() is factory
    caplog.set_level(logging.INFO)
    logging.getLogger("mcpbridge_headers").info("x %s", "another-secret-value")
    logging.getLogger("myapp").info("y %s", "another-secret-value")
    assert [r.getMessage() for r in caplog.records] == ["x ***", "y another-secret-value"]


def test_log_redaction_leaves_records_built_without_a_logger_name_intact() -> None:
    """`logging.makeLogRecord()` (structlog's formatter, LangGraph's server) calls the record
    factory with no name and sets the fields afterwards: that must still build a record."""
    install_log_redaction()
    record = logging.makeLogRecord({"name": "structlog", "msg": "run %s", "args": ("started",)})
    assert record.getMessage() == "run started"


def test_redacting_filter_on_a_handler(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("tests.security.own")
    handler = logging.Handler()
    seen: list[str] = []
    handler.emit = lambda record: seen.append(record.getMessage())  # type: ignore[method-assign]
    handler.addFilter(RedactingFilter([SECRET]))
    logger.addHandler(handler)
    try:
        logger.warning("calling https://h/x?sig=abc with %s", SECRET)
    finally:
        logger.removeHandler(handler)
    assert seen == ["calling https://h/x?sig=*** with ***"]


# -- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value", [f"Bearer {SECRET}\n", f"Bearer {SECRET} ", f"Bearer {SECRET}\x0b", f"Bearer {SECRET}é"]
)
def test_bad_static_header_is_a_config_error_without_the_value(value: str) -> None:
    with pytest.raises(ConfigError) as caught:
        MCPBridge({"weather": {"url": "http://h/mcp", "headers": {"Authorization": value}}}, plugins=[])
    text = str(caught.value)
    assert "servers.weather.headers" in text
    assert "header 'Authorization' = \"***\"" in text
    assert SECRET not in text
    assert caught.value.__cause__ is None
    assert caught.value.__suppress_context__


def test_no_config_error_echoes_header_env_or_url_secrets() -> None:
    cases: list[dict[str, Any]] = [
        {"url": "http://h/mcp", "headers": {"Bad Name": SECRET}},
        {"url": "http://h/mcp", "headers": {"content-length": SECRET}},
        {"url": "http://h/mcp", "headers": {"Authorization": [SECRET]}},
        {"url": f"http://u:{SECRET}@h/mcp?token={SECRET}", "headers": {"x-a": SECRET}, "mode": "nope"},
        {"command": "x", "env": {"API_KEY": [SECRET]}},
        {"command": "x", "env": {"API_KEY": SECRET}, "headers": {"x-a": SECRET}},
        {"url": f"http://u:{SECRET}@h/mcp", "command": "x", "env": {"TOKEN": SECRET}},
        {"url": "http://h/mcp", "headers": {"x-a": SECRET}, "max_result_bytes": 0, "timeout": SECRET},
    ]
    for table in cases:
        with pytest.raises(ConfigError) as caught:
            MCPBridge({"s": table}, plugins=[])
        assert SECRET not in str(caught.value), table


def test_direct_python_construction_hides_inputs_too() -> None:
    from pydantic import ValidationError

    from mcpbridge import ServerConfig

    with pytest.raises(ValidationError) as caught:
        ServerConfig(url="http://h/mcp", headers={"Authorization": f"Bearer {SECRET}\n"})
    assert SECRET not in str(caught.value)


def test_secret_values_lists_what_logs_must_hide() -> None:
    settings = Settings(
        servers={
            "w": {
                "url": f"http://u:pw-{SECRET}@h/mcp?token=t-{SECRET}&page=2",
                "headers": {"X-Key": f"k-{SECRET}"},
            },
            "s": {"command": "x", "env": {"API_TOKEN": f"e-{SECRET}", "ROOT": "/srv/files"}},
        }
    )
    assert settings.secret_values() == {f"pw-{SECRET}", f"t-{SECRET}", f"k-{SECRET}", f"e-{SECRET}"}


def test_a_secret_after_a_semicolon_in_a_url_is_a_known_secret_too() -> None:
    """`redact_url` reads `;` as a parameter separator; the known secrets did not, so a token
    after one was hidden in the URL but shown wherever else it appeared (a server echoing it)."""
    settings = Settings(servers={"w": {"url": f"http://h/mcp?page=2;token=t-{SECRET}#a=1;key=f-{SECRET}"}})
    assert settings.secret_values() == {f"t-{SECRET}", f"f-{SECRET}"}


def test_toml_with_a_newline_in_an_env_token_fails_at_load(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("API_TOKEN", SECRET + "\n")
    config = tmp_path / "mcpbridge.toml"
    config.write_text('[servers.x]\nurl = "http://h/mcp"\nheaders = { Authorization = "Bearer ${API_TOKEN}" }\n')
    with pytest.raises(ConfigError, match=r"servers\.x\.headers: header 'Authorization' = \"\*\*\*\"") as caught:
        load_settings(config)
    assert SECRET not in str(caught.value)
    assert "line break" in str(caught.value)


def _cli(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mcpbridge_cli", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_stderr_has_no_secret_for_a_bad_static_header(tmp_path: Path) -> None:
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        '[servers.x]\nurl = "http://h/mcp"\nheaders = { Authorization = "Bearer ${API_TOKEN}" }\n'
        "[plugins]\nautoload = false\n"
    )
    done = _cli("tools", "--config", str(config), cwd=tmp_path, env={"API_TOKEN": SECRET + "\n"})
    assert done.returncode == 1
    assert "servers.x.headers: header 'Authorization' = \"***\"" in done.stderr
    assert SECRET not in done.stderr + done.stdout


def test_cli_errors_show_server_urls_redacted(tmp_path: Path) -> None:
    """A server that cannot be reached: the error and any log line show its URL without
    credentials."""
    config = tmp_path / "mcpbridge.toml"
    config.write_text(
        f'[servers.x]\nurl = "http://alice:{SECRET}@127.0.0.1:9/mcp?token={SECRET}"\n'
        "connect_timeout = 5\n[plugins]\nautoload = false\n"
    )
    done = _cli("tools", "--config", str(config), cwd=tmp_path, env={})
    assert done.returncode == 1
    assert "mcpbridge: error:" in done.stderr
    assert SECRET not in done.stderr + done.stdout


def test_documented_limits_are_settings() -> None:
    settings = Settings(servers={"a": {"url": "http://h/mcp", "max_argument_bytes": 10}, "b": {"command": "x"}})
    assert settings.server_max_argument_bytes("a") == 10
    assert settings.server_max_argument_bytes("b") == 4 * 1024 * 1024
    assert settings.server_max_result_bytes("b") == 64 * 1024 * 1024
    override = Settings(max_result_bytes=1000, servers={"b": {"command": "x"}})
    assert override.server_max_result_bytes("b") == 1000
    for bad in (0, -1, "lots"):
        with pytest.raises(ConfigError, match="max_argument_bytes"):
            MCPBridge({"a": {"url": "http://h/mcp", "max_argument_bytes": bad}}, plugins=[])
    assert json.loads(json.dumps(settings.model_dump(include={"max_argument_bytes", "max_result_bytes"})))
