"""Every benchmark in bench/ still imports (its helpers moved with the tests before): the
benchmarks are not timed tests, but `make bench` must run. One interpreter imports them all
in turn (each would otherwise pay for importing mcp and LangChain again) and reports each."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.helpers import ROOT

BENCHMARKS = sorted(path.stem for path in (ROOT / "bench").glob("*.py"))

_IMPORT_EACH = """
import importlib, json, sys, traceback
sys.path.insert(0, "bench")
failures = {}
for module in json.loads(sys.argv[1]):
    try:
        importlib.import_module(module)
    except BaseException:
        failures[module] = traceback.format_exc()[-2000:]
print(json.dumps(failures))
"""


@pytest.fixture(scope="module")
def import_failures() -> dict[str, str]:
    """Each benchmark that does not import, with its traceback."""
    done = subprocess.run(
        [sys.executable, "-c", _IMPORT_EACH, json.dumps(BENCHMARKS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    failures: dict[str, str] = json.loads(done.stdout.splitlines()[-1])
    return failures


@pytest.mark.parametrize("module", BENCHMARKS)
def test_the_benchmark_imports(module: str, import_failures: dict[str, str]) -> None:
    assert module not in import_failures, import_failures[module]
