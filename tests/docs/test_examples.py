"""The plugins that people copy pass their own tests: plugins/_template and every example
under docs/examples/ with a `tests/` folder. Each runs in a new pytest process, with its
`src/` on the path as if installed with `pip install -e`, the way its author would run it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT

PLUGINS = [ROOT / "plugins" / "_template", *sorted(p.parent for p in (ROOT / "docs" / "examples").glob("*/tests"))]


@pytest.mark.parametrize("plugin", PLUGINS, ids=[plugin.name for plugin in PLUGINS])
def test_the_plugins_own_tests_pass(plugin: Path) -> None:
    path = os.pathsep.join(filter(None, [str(plugin / "src"), os.environ.get("PYTHONPATH")]))
    child = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(plugin / "tests")],
        cwd=plugin,
        env={**os.environ, "PYTHONPATH": path},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert child.returncode == 0, f"{plugin.relative_to(ROOT)}:\n{child.stdout}\n{child.stderr}"
    assert " passed" in child.stdout, child.stdout
    assert " skipped" not in child.stdout, child.stdout
