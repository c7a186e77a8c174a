"""The tests go through public seams: a test file that imports `mcpbridge._...` or reads a
bridge's private attributes is one tests/README.md lists, with why, under "Tests of
internals"; each such reach makes the next change to the core's insides cost more."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.helpers import ROOT

TESTS = ROOT / "tests"
OUTSIDE = {".venvs", ".node", "node_modules", ".cache", "__pycache__"}
"""Folders under tests/ that hold installed third-party code, not our tests."""
PRIVATE_ATTRIBUTE = re.compile(r"\bbridge\._[a-z]\w*|\._connections\b")
"""A bridge's private attribute, as tests reached them (`bridge._connections`, `bridge._host`)."""
LISTED = re.compile(r"`(tests/[\w/.-]+\.py)`")


def private_reaches(source: str) -> set[str]:
    """The private names `source` reaches: `mcpbridge._...` modules it imports, and bridges'
    private attributes it reads."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mcpbridge._"):
            found.add(str(node.module))
        elif isinstance(node, ast.ImportFrom) and node.module == "mcpbridge":
            found.update(f"mcpbridge.{alias.name}" for alias in node.names if alias.name.startswith("_"))
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("mcpbridge._"))
    found.update(match.group().lstrip(".") for match in PRIVATE_ATTRIBUTE.finditer(source))
    return found


def reaching_files() -> dict[str, set[str]]:
    reaching = {}
    for path in sorted(TESTS.rglob("*.py")):
        if OUTSIDE & set(path.relative_to(TESTS).parts) or path == Path(__file__):
            continue
        if found := private_reaches(path.read_text(encoding="utf-8")):
            reaching[path.relative_to(ROOT).as_posix()] = found
    return reaching


def listed_files() -> set[str]:
    readme = (TESTS / "README.md").read_text(encoding="utf-8")
    _, _, internals = readme.partition("## Tests of internals")
    items = internals.partition("\n## ")[0].split("\n- ")[1:]  # the list, not the words before it
    return {path for item in items for path in LISTED.findall(item)}


def test_only_the_listed_tests_reach_private_names() -> None:
    reaching, listed = reaching_files(), listed_files()
    unlisted = {path: sorted(names) for path, names in reaching.items() if path not in listed}
    assert not unlisted, (
        f"these tests reach private names: {unlisted}; use the public API or mcpbridge.testing "
        "(SessionProbe for a server's session), or list the file in tests/README.md under "
        "'Tests of internals' with the reason"
    )
    stale = sorted(listed - set(reaching))
    assert not stale, f"tests/README.md lists {stale} under 'Tests of internals', which reach no private name"


def test_the_scan_sees_each_kind_of_reach() -> None:
    assert private_reaches("from mcpbridge._base.config import build_settings") == {"mcpbridge._base.config"}
    assert private_reaches("import mcpbridge._facade.tool_names as names") == {"mcpbridge._facade.tool_names"}
    assert private_reaches("from mcpbridge import _compat") == {"mcpbridge._compat"}
    assert private_reaches("x = bridge._connections['s'].connected") == {"bridge._connections"}
    assert private_reaches("x = opened._connections['s'].connected") == {"_connections"}
    assert private_reaches("x = client.bridge._host.infos") == {"bridge._host"}
    assert private_reaches("from mcpbridge import Settings\nfrom mcpbridge.testing import SessionProbe") == set()
    assert private_reaches('"""a docstring naming `mcpbridge._session.translate`"""') == set()
