"""Fixtures of real third-party MCP servers (installed by `bash tests/thirdparty/install.sh`)
as bridge server configs; the helpers that restart or kill them are `tests.helpers.thirdparty`.

npm: `@modelcontextprotocol/server-everything` (stdio and streamable HTTP), `-filesystem`,
`-memory`, `-sequential-thinking`, `@playwright/mcp` (with Debian's Chromium), a server of our
own on the TypeScript SDK (`servers/`); PyPI: `mcp-server-time` and `mcp-server-git`, current
(mcp 2.x) and `2026.8.18` (mcp 1.x) releases, `mcp-server-fetch`, and FastMCP 4 serving
`servers/fastmcp_app.py`, each in a venv of its own. `local_site` serves a page on loopback.

Without node or the installed servers the tier is skipped locally; in CI (`CI=true`) or with
`MCPBRIDGE_TEST_REQUIRE_SERVICES=1` it fails instead.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.helpers.thirdparty import (
    EVERYTHING,
    FILESYSTEM,
    HERE,
    MEMORY,
    NodeHTTPServer,
    free_port,
    missing,
    need,
    node_stdio,
    python_server,
    required,
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    reason = missing()
    if reason is None or required():
        return
    skip = pytest.mark.skip(reason=reason)
    for item in items:
        if HERE in Path(str(item.path)).parents:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _installed() -> None:
    reason = missing()
    if reason is not None and required():
        pytest.fail(f"{reason}; CI runs the third-party tier", pytrace=False)


@pytest.fixture
def everything_stdio() -> dict[str, Any]:
    return node_stdio(EVERYTHING, "stdio")


@pytest.fixture
def filesystem(tmp_path: Path) -> dict[str, Any]:
    """server-filesystem allowed to use `tmp_path` only."""
    return node_stdio(FILESYSTEM, str(tmp_path))


@pytest.fixture
def memory(tmp_path: Path) -> dict[str, Any]:
    """server-memory with its knowledge graph in a file of this test's own."""
    return node_stdio(MEMORY, env={"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")})


@pytest.fixture
def time_server() -> Callable[[str], dict[str, Any]]:
    """`time_server(version)`: mcp-server-time in UTC."""
    return lambda version: python_server("mcp-server-time", version, "--local-timezone", "Etc/UTC")


@pytest.fixture
def git_repo(tmp_path: Path) -> Path:
    """A git repository with one commit (README.md)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Test",
        "GIT_AUTHOR_EMAIL": "test@example.com",
        "GIT_COMMITTER_NAME": "Test",
        "GIT_COMMITTER_EMAIL": "test@example.com",
    }
    (repo / "README.md").write_text("hello\n")
    for command in (["init", "-q", "-b", "main"], ["add", "README.md"], ["commit", "-q", "-m", "first commit"]):
        subprocess.run(["git", *command], cwd=repo, env=env, check=True)
    return repo


@pytest.fixture
def git_server(git_repo: Path) -> Callable[[str], dict[str, Any]]:
    """`git_server(version)`: mcp-server-git limited to `git_repo`."""
    return lambda version: python_server("mcp-server-git", version, "--repository", str(git_repo))


@pytest.fixture
def local_site(tmp_path: Path) -> Iterator[str]:
    """A static site on a loopback port (`tmp_path / "site"`), for servers that browse or fetch:
    its URL, ending in "/"."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(PAGE)
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


PAGE = """<!doctype html><html><head><title>Local test page</title></head><body>
<h1>Hello from the local page</h1><p>The answer is <b>forty-two</b>.</p>
<button onclick="document.getElementById('out').textContent = 'clicked!'">Press me</button>
<p id="out">not yet</p></body></html>"""


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def chromium() -> str:
    """Debian's Chromium (`MCPBRIDGE_TEST_CHROMIUM`, else `chromium` on PATH)."""
    found = os.environ.get("MCPBRIDGE_TEST_CHROMIUM") or shutil.which("chromium")
    if not found:
        if required():
            pytest.fail("chromium is missing; CI installs it", pytrace=False)
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return found


@pytest.fixture
def everything_http(tmp_path: Path) -> Iterator[NodeHTTPServer]:
    server = NodeHTTPServer(need(EVERYTHING), free_port(), tmp_path / "everything-http.log")
    server.start()
    try:
        yield server
    finally:
        server.kill()
