"""MCP servers for tests: in-process from plain functions, a Python script or module over
stdio, any MCPServer (or ASGI app) over streamable HTTP on a free loopback port."""

from __future__ import annotations

import contextlib
import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

if TYPE_CHECKING:
    import uvicorn

START_TIMEOUT_S = 30
"""Seconds a loaded machine may take to start (or stop) a test HTTP server."""


def make_server(
    *functions: Callable[..., Any], name: str = "test", annotations: Mapping[str, ToolAnnotations] | None = None
) -> MCPServer:
    """An in-process MCP server whose tools are the given plain functions (name = function
    name, description = docstring); `annotations` maps tool names to ToolAnnotations."""
    server = MCPServer(name)
    for function in functions:
        if function.__name__ == "<lambda>":
            raise ValueError("mcp_server() names each tool after its function: pass `def` functions, not lambdas")
        server.tool(annotations=(annotations or {}).get(function.__name__))(function)
    return server


def stdio_config(target: str | os.PathLike[str], *args: str, **options: Any) -> dict[str, Any]:
    """The config of a Python MCP server run over stdio by this interpreter: `target` is a
    script (a path, or a name ending in .py) or a dotted module name (run with `-m`); `args`
    follow it; `options` are further server keys (`cwd`, `env`, `mode`, ...)."""
    path = os.fspath(target)
    run = [path] if isinstance(target, os.PathLike) or path.endswith(".py") else ["-m", path]
    return {"command": sys.executable, "args": [*run, *args], **options}


class HTTPServer(NamedTuple):
    """An app served by uvicorn on 127.0.0.1 in a daemon thread (see `serve_http`)."""

    base_url: str
    server: uvicorn.Server
    thread: threading.Thread

    @property
    def url(self) -> str:
        """The MCP endpoint: `<base_url>/mcp`."""
        return f"{self.base_url}/mcp"

    @property
    def port(self) -> int:
        return int(self.base_url.rsplit(":", 1)[1])

    def stop(self) -> None:
        """Shut the server down (open streams get one second) and wait for its thread."""
        self.server.should_exit = True
        self.thread.join(timeout=START_TIMEOUT_S)


def serve_http(app: MCPServer | Any, port: int | None = None) -> HTTPServer:
    """Serve an MCPServer over streamable HTTP (or any ASGI app) on 127.0.0.1, on `port` or
    a free one, in a thread; returns once it accepts connections. Stop it with `.stop()`;
    serve again on the same `port` to play a server restart. Needs `uvicorn` installed."""
    import uvicorn

    if isinstance(app, MCPServer):
        app = app.streamable_http_app()
    if port is None:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port = sock.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="on", timeout_graceful_shutdown=1
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"uvicorn-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the test HTTP server did not start on port {port}")
        time.sleep(0.01)
    return HTTPServer(f"http://127.0.0.1:{port}", server, thread)


@contextlib.contextmanager
def serving(app: MCPServer | Any) -> Iterator[str]:
    """`with serving(server) as url:` the MCP endpoint's URL (`serve_http`) while the block
    runs; the server stops after it."""
    served = serve_http(app)
    try:
        yield served.url
    finally:
        served.stop()
