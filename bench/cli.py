"""How fast the `mcpbridge` command answers: `--help`, `--version` and `plugins` (every
installed plugin loaded, no config file), each the median wall time of fresh processes,
taking turns, beside two floors measured the same way:

- `python -c pass`: the interpreter alone;
- what any command that reads plugin settings needs at least: importing pydantic, building
  one settings model, and scanning the installed distributions' entry points.

Target: ≤ 0.2 s for each command (exit 1 when one misses it). The second floor says how much
of `plugins` is ours: plugin settings are pydantic models, built when their plugin loads.

The commands run with bytecode caching on (`PYTHONDONTWRITEBYTECODE` removed from their
environment), as an installed wheel runs: the dropped first round writes the `.pyc` files of
an editable checkout, so the timed rounds measure importing, not compiling, our modules.

    python bench/cli.py [--runs 15]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 0.2
EXECUTABLE = Path(sys.executable).with_name("mcpbridge")
FLOOR = """\
import importlib.metadata
from pydantic import BaseModel
class Settings(BaseModel):
    enabled: bool = True
Settings()
importlib.metadata.entry_points(group="mcpbridge")
"""
COMMANDS: dict[str, list[str]] = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "pydantic + a model + entry points": [sys.executable, "-c", FLOOR],
    "mcpbridge --help": [str(EXECUTABLE), "--help"],
    "mcpbridge --version": [str(EXECUTABLE), "--version"],
    "mcpbridge plugins": [str(EXECUTABLE), "plugins"],
}


def main(runs: int) -> int:
    times: dict[str, list[float]] = {name: [] for name in COMMANDS}
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as empty:  # no mcpbridge.toml to read
        for _ in range(runs + 1):  # the first round warms the file and bytecode caches, and is dropped
            for name, command in COMMANDS.items():
                started = time.perf_counter()
                subprocess.run(command, cwd=empty, env=env, check=True, capture_output=True)
                times[name].append(time.perf_counter() - started)
    failed = False
    print(f"{'command':<36}{'median s':>9}   target")
    for name, taken in times.items():
        median = statistics.median(taken[1:])
        target = f"≤ {TARGET_S:g}" if name.startswith("mcpbridge") else "(floor)"
        print(f"{name:<36}{median:>9.3f}   {target}")
        failed = failed or (name.startswith("mcpbridge") and median > TARGET_S)
    return 1 if failed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=15)
    raise SystemExit(main(parser.parse_args().runs))
