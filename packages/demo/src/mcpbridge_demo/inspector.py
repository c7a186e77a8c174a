"""The live web inspector: a small page on 127.0.0.1 that shows one card per tool call,
updated over Server-Sent Events with one delta per change (see `board`). Standard library
only — no build step, no CDN — so it runs wherever the agent runs.

    with serve(port=8765) as inspector:
        async for chunk in inspector.track(agent.astream(inputs, config, stream_mode=["updates", "custom"])):
            ...
"""

from __future__ import annotations

import argparse
import functools
import json
import threading
from collections.abc import AsyncIterable, AsyncIterator, Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from types import TracebackType
from typing import TYPE_CHECKING, Any

from mcpbridge_demo.board import CallBoard

if TYPE_CHECKING:
    from mcpbridge_events import AssembledToolCall, ToolCallAssembler

DEFAULT_PORT = 8765
KEEPALIVE_SECONDS = 15.0
_STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/style.css": ("style.css", "text/css; charset=utf-8"),
}
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})
# The page loads only its own script and style: even a tool output that escaped the
# page's textContent rendering could not run script.
_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'"


class Inspector:
    """Serves the page and publishes tool calls to it. Feed it stream chunks (`feed`,
    `track`) or finished `AssembledToolCall`s (`publish`). `on_run`, when given, is called
    (on a server thread) by the page's "Run demo" button. `assembler` keeps the calls (give
    your own for other limits than the ones the stream announces)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = DEFAULT_PORT,
        *,
        title: str = "mcpbridge inspector",
        on_run: Callable[[], None] | None = None,
        assembler: ToolCallAssembler | None = None,
    ) -> None:
        self.title = title
        self.on_run = on_run
        if assembler is None:  # imports mcp and LangChain: not for `mcpbridge inspect --help`
            from mcpbridge_events import ToolCallAssembler

            assembler = ToolCallAssembler()
        self.board = CallBoard()
        self.assembler = assembler
        self._host = host
        self._server = _Server((host, port), _Handler)
        self._server.inspector = self
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self._host}:{self._server.server_address[1]}/"

    def start(self) -> Inspector:
        if self._thread is None:
            serve_forever = functools.partial(self._server.serve_forever, poll_interval=0.1)
            self._thread = threading.Thread(target=serve_forever, name="mcpbridge-inspector", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        self.board.close()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
            self._thread = None
        self._server.server_close()

    def __enter__(self) -> Inspector:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def publish(self, call: AssembledToolCall) -> None:
        self.board.publish(call)

    def feed(self, chunk: Any) -> list[AssembledToolCall]:
        """One `astream` chunk in; the calls it changed are shown at once."""
        changed = self.assembler.feed(chunk)
        for call in changed:
            self.publish(call)
        return changed

    async def track(self, stream: AsyncIterable[Any]) -> AsyncIterator[Any]:
        """Pass `stream` through unchanged, showing its tool calls on the page on the way."""
        async for chunk in stream:
            self.feed(chunk)
            yield chunk


def serve(
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    *,
    title: str = "mcpbridge inspector",
    on_run: Callable[[], None] | None = None,
    assembler: ToolCallAssembler | None = None,
) -> Inspector:
    """Start an inspector in a background thread (`port=0` picks a free port; see `.url`)."""
    return Inspector(host, port, title=title, on_run=on_run, assembler=assembler).start()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    inspector: Inspector


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the page polls nothing, and a terminal full of GET lines helps no one."""

    def do_GET(self) -> None:
        if not self._trusted_host():
            return
        path = self.path.split("?", 1)[0]
        if path == "/events":
            self._events()
        elif path == "/calls":
            self._send(HTTPStatus.OK, json.dumps(self.server.inspector.board.snapshot()).encode(), "application/json")
        elif path in _STATIC:
            name, content_type = _STATIC[path]
            self._send(HTTPStatus.OK, resources.files(__package__).joinpath("static", name).read_bytes(), content_type)
        else:
            self._send(HTTPStatus.NOT_FOUND, b"not found", "text/plain")

    def do_POST(self) -> None:
        # The custom header makes a cross-site form or fetch need a CORS preflight, which
        # this server never grants: only the page itself can start a run.
        if not self._trusted_host() or self.path != "/run" or self.headers.get("X-Inspector") != "1":
            self._send(HTTPStatus.FORBIDDEN, b"forbidden", "text/plain")
            return
        on_run = self.server.inspector.on_run
        if on_run is None:
            self._send(HTTPStatus.NOT_FOUND, b"this inspector has no demo to run", "text/plain")
            return
        on_run()
        self._send(HTTPStatus.ACCEPTED, b"started", "text/plain")

    def _trusted_host(self) -> bool:
        """Refuse other Host names, so a web page using DNS rebinding cannot read the calls."""
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host in _LOOPBACK_HOSTS or host == self.server.inspector._host:
            return True
        self._send(HTTPStatus.FORBIDDEN, b"unexpected Host header", "text/plain")
        return False

    def _send(self, status: HTTPStatus, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", _CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _events(self) -> None:
        inspector = self.server.inspector
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        hello = json.dumps({"title": inspector.title, "canRun": inspector.on_run is not None})
        try:
            self._write(f"event: hello\ndata: {hello}\n\n")
            seen = 0
            while not inspector.board.closed:
                seen, changes = inspector.board.since(seen, KEEPALIVE_SECONDS)
                # an empty write finds clients that went away
                self._write(
                    "".join(f"event: {event}\ndata: {payload}\n\n" for event, payload in changes) or ": keep-alive\n\n"
                )
        except (BrokenPipeError, ConnectionResetError):
            return

    def _write(self, text: str) -> None:
        self.wfile.write(text.encode())
        self.wfile.flush()


def add_inspect_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """The options of `inspect` (for `mcpbridge inspect` and `python -m mcpbridge_demo`)."""
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT}; 0 = any free port)"
    )
    parser.add_argument("--delay", type=float, default=1.0, help="seconds each demo tool takes (default 1.0)")
    parser.add_argument(
        "--no-run", action="store_true", help="wait for the page's Run demo button instead of running at once"
    )
    return parser
