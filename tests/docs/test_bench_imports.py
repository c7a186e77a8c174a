"""Every benchmark in bench/ still imports (its helpers moved with the tests before): the
benchmarks are not timed tests, but `make bench` must run."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import ROOT

BENCHMARKS = sorted(path.name for path in (ROOT / "bench").glob("*.py"))


@pytest.mark.parametrize("name", BENCHMARKS)
def test_the_benchmark_imports(name: str) -> None:
    module = name.removesuffix(".py")
    code = f"import sys; sys.path.insert(0, 'bench'); import {module}"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
