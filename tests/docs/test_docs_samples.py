"""Every code sample in README.md, docs/*.md and docs/plugins/*.md runs here.

- ```python blocks are executed, one fresh namespace per page, in page order (a block may use
  what an earlier block of its page defined); top-level `await` runs on the page's own event
  loop, in a temporary working directory shared by the page's blocks.
- A ```python block whose first line is `# file: <path>` is written to that path in the page's
  working directory (on sys.path) instead of being run, so later blocks and configs import it.
- ```python signature blocks (docs/hooks.md) are not code: tests/core/test_hooks_doc.py checks them.
- ```toml blocks are validated: a whole mcpbridge config (or a `[plugins.<name>]` fragment, given
  stand-in servers for the names it mentions) must pass `Settings` and each named plugin's
  own validation. A block whose first line is `# mcpbridge.toml` is also written to that file
  in the page's working directory, so later blocks can load it; one starting `# pyproject.toml`
  is a packaging fragment and only parsed.
- A `test_*` function a block defines is called, with its arguments taken from pytest's
  fixtures (mcpbridge.testing's `mcp_server`, `mcpbridge_factory`, `tool_call`, ...): a test
  shown on a page is a test that passes.
- The runnable plugins under docs/examples/ are importable (as if installed with `pip install -e`).
- `<!-- docs-test: skip (reason) -->` on the line before a fence skips that block, visibly.
- `<!-- docs-test: own-process (reason) -->` on the line before a fence runs that block alone,
  as a script in a new interpreter (for scripts that set process-wide state, such as the
  global OpenTelemetry providers, which can be set only once per process), with
  OTEL_EXPORTER_OTLP_ENDPOINT pointing at a local sink.
"""

from __future__ import annotations

import ast
import asyncio
import contextlib
import http.server
import importlib
import inspect
import os
import re
import subprocess
import sys
import tempfile
import threading
import tomllib
import types
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest

from mcpbridge import Settings

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "docs" / "plugins").glob("*.md"))]
FENCE = re.compile(r"^```(\w+)?[ \t]*(.*)$")
SKIP = re.compile(r"<!--\s*docs-test:\s*skip\s*\((.+)\)\s*-->")
FILE_HEADER = re.compile(r"# file: (\S+)\n")
"""A python block starting `# file: myapp/answers.py` is written there (in the page's working
directory, which is on sys.path) instead of being run: later blocks and config can import it."""
ALONE = re.compile(r"<!--\s*docs-test:\s*own-process\s*\((.+)\)\s*-->")
SETTINGS_KEYS = set(Settings.model_fields) - {"source"}
PLUGINS_KEYS = set(type(Settings().plugins).model_fields)
EXAMPLES = sorted((ROOT / "docs" / "examples").glob("*/src"))
STAND_IN_URL = "http://127.0.0.1:9/mcp"  # validation only: never connected to


@dataclass(frozen=True)
class Block:
    page: Path
    line: int
    lang: str
    info: str
    code: str
    skip: str | None
    alone: str | None

    @property
    def id(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def page_blocks(page: Path) -> list[Block]:
    """The page's python and toml blocks, except signature blocks."""
    blocks: list[Block] = []
    lines = page.read_text(encoding="utf-8").splitlines()
    index = 0
    while index < len(lines):
        match = FENCE.match(lines[index])
        if match is None:
            index += 1
            continue
        end = next((i for i in range(index + 1, len(lines)) if lines[i].startswith("```")), None)
        assert end is not None, f"{page}:{index + 1}: unclosed code fence"
        lang, info = match.group(1) or "", match.group(2).strip()
        if lang in ("python", "toml") and info != "signature":
            before = lines[index - 1] if index else ""
            skip, alone = SKIP.search(before), ALONE.search(before)
            code = "\n".join(lines[index + 1 : end]) + "\n"
            blocks.append(Block(page, index + 1, lang, info, code, skip and skip.group(1), alone and alone.group(1)))
        index = end + 1
    return blocks


ALL_BLOCKS = [block for page in PAGES for block in page_blocks(page)]


# -- toml ---------------------------------------------------------------------------


def stand_in_servers(value: Any, found: set[str] | None = None) -> set[str]:
    """Server names a plugin table mentions (`servers.<name>` tables, `server = "<name>"`)."""
    found = set() if found is None else found
    if isinstance(value, Mapping):
        for key, item in value.items():
            if key == "servers" and isinstance(item, Mapping):
                found.update(item)
            elif key == "server" and isinstance(item, str) and not set(item) & set("*?["):
                found.add(item)
            stand_in_servers(item, found)
    elif isinstance(value, list):
        for item in value:
            stand_in_servers(item, found)
    return found


def check_config(data: dict[str, Any]) -> None:
    """Validate an mcpbridge config (or fragment) with the core and with each plugin it configures."""
    from mcpbridge import MCPBridge

    unknown = set(data) - SETTINGS_KEYS
    assert not unknown, f"not an mcpbridge config: unknown top-level keys {sorted(unknown)}"
    if "servers" not in data:
        names = stand_in_servers(data.get("plugins", {}))
        data = {**data, "servers": {name: {"url": STAND_IN_URL} for name in sorted(names)}}
    servers = data["servers"].items()
    from_env = {name: {**table, "url": STAND_IN_URL} for name, table in servers if "${" in table.get("url", "")}
    data = {**data, "servers": {**data["servers"], **from_env}}  # a URL from the environment: one that fits
    settings = Settings.model_validate(data)
    plugins = [plugin_object(name) for name in sorted(set(data.get("plugins", {})) - PLUGINS_KEYS)]
    MCPBridge(settings=settings, plugins=plugins)  # runs every named plugin's mcpbridge_check_settings


def plugin_object(name: str) -> object:
    """An installed plugin by name, else a docs/examples plugin module (not installed here)."""
    if any(ep.name == name for ep in entry_points(group="mcpbridge")):
        return name
    return importlib.import_module(f"mcpbridge_{name}")


def run_toml(block: Block) -> None:
    data = tomllib.loads(block.code)
    first = block.code.splitlines()[0].strip() if block.code.strip() else ""
    if first == "# pyproject.toml":
        if "tool" in data and "mcpbridge" in data["tool"]:
            check_config(data["tool"]["mcpbridge"])
        return
    check_config(data)
    if first == "# mcpbridge.toml":
        Path("mcpbridge.toml").write_text(block.code, encoding="utf-8")


# -- pages --------------------------------------------------------------------------


@dataclass
class Page:
    """One page's shared namespace, event loop and working directory."""

    path: Path
    module: types.ModuleType = field(init=False)
    workdir: tempfile.TemporaryDirectory[str] = field(default_factory=tempfile.TemporaryDirectory)
    loop: asyncio.AbstractEventLoop | None = None
    done: dict[int, str | None] = field(default_factory=dict)  # block line → None (ok) or the error

    fixtures: pytest.FixtureRequest | None = None

    def __post_init__(self) -> None:
        # a real module, so dataclasses, pickling and pydantic can find the page's classes
        name = "docs_sample_" + re.sub(r"\W", "_", str(self.path.relative_to(ROOT)))
        self.module = types.ModuleType(name)
        sys.modules[name] = self.module

    @property
    def namespace(self) -> dict[str, Any]:
        return self.module.__dict__

    def run(self, block: Block) -> None:
        """Run `block`, after the page's earlier blocks (so `-k` on one block works too)."""
        for earlier in page_blocks(self.path):
            if earlier.line >= block.line:
                break
            if earlier.skip is None and earlier.alone is None and earlier.line not in self.done:
                with contextlib.suppress(Exception):
                    self.execute(earlier)
        self.execute(block)

    def execute(self, block: Block) -> None:
        self.done[block.line] = "failed"
        with self.inside():
            if block.lang == "toml":
                run_toml(block)
            elif written := FILE_HEADER.match(block.code):
                target = Path(written.group(1))
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(block.code, encoding="utf-8")
                importlib.invalidate_caches()
            else:
                before = dict(self.namespace)
                code = compile(block.code, block.id, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
                self.await_(eval(code, self.namespace))
                for name, value in self.namespace.items():
                    if name.startswith("test_") and inspect.isfunction(value) and before.get(name) is not value:
                        self.call_test(value)
        self.done[block.line] = None

    def await_(self, result: Any) -> Any:
        if not inspect.iscoroutine(result):
            return result
        if self.loop is None:
            self.loop = asyncio.new_event_loop()
        return self.loop.run_until_complete(result)

    def call_test(self, test: Any) -> None:
        """Run a pytest-style test function the page shows, with fixtures as arguments."""
        assert self.fixtures is not None, f"{test.__name__} needs pytest fixtures: run this page in-process"
        names = inspect.signature(test).parameters
        self.await_(test(**{name: self.fixtures.getfixturevalue(name) for name in names}))

    @contextlib.contextmanager
    def inside(self) -> Iterator[None]:
        before = os.getcwd()
        os.chdir(self.workdir.name)
        sys.path.insert(0, self.workdir.name)
        try:
            yield
        finally:
            sys.path.remove(self.workdir.name)
            os.chdir(before)

    def close(self) -> None:
        sys.modules.pop(self.module.__name__, None)
        if self.loop is not None:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()
        self.workdir.cleanup()


class _Sink(http.server.BaseHTTPRequestHandler):
    """Accepts anything POSTed (an OTLP collector that keeps nothing)."""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def run_alone(block: Block) -> None:
    """Run a self-contained script block in a new interpreter, in a temporary directory, with
    OTLP exporters pointed at a local sink."""
    sink = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
    threading.Thread(target=sink.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as workdir:
        script = Path(workdir) / "sample.py"
        script.write_text(block.code, encoding="utf-8")
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(str(src) for src in EXAMPLES),
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}",
        }
        try:
            child = subprocess.run(
                [sys.executable, str(script)], cwd=workdir, env=env, capture_output=True, text=True, timeout=300
            )
        finally:
            sink.shutdown()
            sink.server_close()
    if child.returncode != 0:
        pytest.fail(f"{block.id} failed in its own process:\n{child.stdout}\n{child.stderr}", pytrace=False)


# -- tests --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def pages() -> Iterator[dict[Path, Page]]:
    opened: dict[Path, Page] = {}
    path = os.environ.get("PATH", "")
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{path}"  # `python` is this interpreter
    sys.path[:0] = [str(src) for src in EXAMPLES]
    yield opened
    del sys.path[: len(EXAMPLES)]
    os.environ["PATH"] = path
    for page in opened.values():
        page.close()


@pytest.mark.parametrize("block", ALL_BLOCKS, ids=[block.id for block in ALL_BLOCKS])
def test_sample(
    block: Block,
    pages: dict[Path, Page],
    request: pytest.FixtureRequest,
) -> None:
    if block.skip is not None:
        pytest.skip(f"docs-test: skip ({block.skip})")
    if block.alone is not None:
        run_alone(block)
        return
    page = pages.setdefault(block.page, Page(block.page))
    page.fixtures = request
    page.run(block)


def test_samples_are_found() -> None:
    """The extractor sees the pages' samples (guards against a fence syntax change)."""
    ran = [b for b in ALL_BLOCKS if b.skip is None]
    assert len(ran) > 40, f"only {len(ran)} runnable samples found"
    assert len(ALL_BLOCKS) - len(ran) <= 5, "keep skipped samples few: " + ", ".join(b.id for b in ALL_BLOCKS if b.skip)
