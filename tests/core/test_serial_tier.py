"""`make test` runs most files on two workers at once and the `serial` ones alone after
them: a file that watches the event loop for blocks or uses Redis or PostgreSQL must be
marked, or it races another worker for the CPU or the data (CONTRIBUTING.md)."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT

NEEDS_QUIET = (
    "LoopWatch",
    "redis_url",
    "redis_settings",
    "postgres_url",
    "MCPBRIDGE_TEST_REDIS_URL",
    "MCPBRIDGE_TEST_POSTGRES_URL",
)
"""What a test file names when it measures the loop or uses a shared service."""


def marked_serial(source: str) -> bool:
    """Whether the module's own `pytestmark` holds `pytest.mark.serial`."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
            return "pytest.mark.serial" in ast.unparse(node.value)
    return False


def test_files_that_measure_time_or_share_a_service_run_alone() -> None:
    unmarked = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "tests").rglob("test_*.py"))
        if ".venvs" not in path.parts and ".cache" not in path.parts and path != Path(__file__)
        for source in [path.read_text()]
        if any(name in source for name in NEEDS_QUIET) and not marked_serial(source)
    ]
    assert not unmarked, f"add `pytestmark = pytest.mark.serial` to {unmarked}"


def test_the_check_reads_the_modules_own_mark() -> None:
    assert marked_serial("import pytest\npytestmark = [pytest.mark.slow, pytest.mark.serial]\n")
    assert not marked_serial('SERVER = """\npytestmark = pytest.mark.serial\n"""\n')
    assert not marked_serial("import pytest\npytestmark = pytest.mark.slow\n")
