"""Cold first call: a fresh process imports its library, opens a stdio server, lists its
tools and calls `echo` once, then exits. Run several times per library, taking turns, against
the same server (tests/servers/basic.py, run by the project's python): the raw mcp 2.x SDK
(`mcp.Client`), langchain-mcp-adapters (`load_mcp_tools` on a `client.session`, in the venv
bench/adapters.py makes; `--no-adapters` leaves that column out), and mcpbridge bare
(`MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD=1`) and as installed (every plugin of this repository).

Prints the median wall time (the parent times each child from spawn to exit, interpreter
start included), CPU time (the child's own: steadier than wall time on a busy machine) and
peak RSS (each child's own `ru_maxrss`, the server process left out; a child's starts at its
parent's RSS, so this process imports nothing big), and their ratios. Targets: mcpbridge
default ≤ langchain-mcp-adapters in wall time and peak RSS, and within 0.4 s of the raw SDK.

Stdlib only at import time: the same file is the child (`--child NAME`), run by the
adapters' venv too. `--child bridge --modules` also lists the modules the child imported
(tests/core/test_cold_imports.py reads them)."""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SERVER = {"command": sys.executable, "args": ["-m", "tests.servers.basic"], "cwd": str(ROOT)}
ARGS = {"text": "hello"}
TARGET_OVER_RAW_S = 0.4
LIBRARIES = ("raw mcp", "adapters", "mcpbridge bare", "mcpbridge default")


async def raw(server: dict[str, Any]) -> None:
    from mcp import Client, StdioServerParameters

    async with Client(StdioServerParameters(**server)) as client:
        await client.list_tools()
        await client.call_tool("echo", ARGS)


async def adapters(server: dict[str, Any]) -> None:
    from langchain_mcp_adapters.client import MultiServerMCPClient  # type: ignore[import-not-found]
    from langchain_mcp_adapters.tools import load_mcp_tools  # type: ignore[import-not-found]

    async with MultiServerMCPClient({"bench": {"transport": "stdio", **server}}).session("bench") as session:
        tools = {tool.name: tool for tool in await load_mcp_tools(session)}
        await tools["echo"].ainvoke(ARGS)


async def bridge(server: dict[str, Any]) -> None:
    from mcpbridge import MCPBridge

    async with MCPBridge({"bench": server}) as opened:
        tools = {tool.name: tool for tool in await opened.list_tools()}
        await tools["echo"].ainvoke(ARGS)


CHILDREN = {"raw": raw, "adapters": adapters, "bridge": bridge}


def child(name: str, server: dict[str, Any], modules: bool) -> None:
    """Run one cold first call; print this process's peak RSS (and its modules) as JSON."""
    asyncio.run(CHILDREN[name](server))
    used = resource.getrusage(resource.RUSAGE_SELF)
    report: dict[str, Any] = {"rss_kb": used.ru_maxrss, "cpu_s": used.ru_utime + used.ru_stime}
    if modules:
        report["modules"] = sorted(sys.modules)
    print(json.dumps(report))


def commands(with_adapters: bool) -> dict[str, tuple[list[str], dict[str, str]]]:
    """Each library's child command and environment."""
    env = {k: v for k, v in os.environ.items() if k != "MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD"}
    server = ["--server", json.dumps(SERVER)]  # the project's python runs the server for all
    ours = [sys.executable, __file__, *server, "--child"]
    runs = {
        "raw mcp": ([*ours, "raw"], env),
        "mcpbridge bare": ([*ours, "bridge"], {**env, "MCPBRIDGE_DISABLE_PLUGIN_AUTOLOAD": "1"}),
        "mcpbridge default": ([*ours, "bridge"], env),
    }
    if with_adapters:  # the venv bench/adapters.py makes once (mcp 1.x), asked in a child: this process stays small
        made = "import sys; sys.path.insert(0, 'bench'); from adapters import adapters_python; print(adapters_python())"
        python = subprocess.run([sys.executable, "-c", made], cwd=ROOT, capture_output=True, text=True, check=True)
        runs["adapters"] = ([python.stdout.strip().splitlines()[-1], __file__, *server, "--child", "adapters"], env)
    return {name: runs[name] for name in LIBRARIES if name in runs}


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Wall seconds from spawn to exit, the child's CPU seconds and its peak RSS in KB."""
    started = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed:\n{done.stderr}")
    said = json.loads(done.stdout.splitlines()[-1])
    return seconds, float(said["cpu_s"]), int(said["rss_kb"])


def main(runs: int, with_adapters: bool) -> int:
    """Take turns, run by run; print medians and ratios; 1 when a target is missed."""
    todo = commands(with_adapters)
    samples: dict[str, list[tuple[float, float, int]]] = {name: [] for name in todo}
    timed(*todo["raw mcp"])  # a first run warms the OS's file cache for all alike
    for _ in range(runs):
        for name, (command, env) in todo.items():
            samples[name].append(timed(command, env))
    medians = {name: tuple(map(statistics.median, zip(*got, strict=True))) for name, got in samples.items()}
    raw_s, raw_cpu, raw_kb = medians["raw mcp"]
    print(f"{'library':<20}{'wall s':>8}{'cpu s':>7}{'peak MB':>9}{'/raw s':>8}{'/raw cpu':>9}{'/raw MB':>9}")
    for name, (seconds, cpu, kb) in medians.items():
        ratios = f"{seconds / raw_s:>8.2f}{cpu / raw_cpu:>9.2f}{kb / raw_kb:>9.2f}"
        print(f"{name:<20}{seconds:>8.2f}{cpu:>7.2f}{kb / 1024:>9.0f}{ratios}")
    ours_s, _, ours_kb = medians["mcpbridge default"]
    missed = ours_s - raw_s > TARGET_OVER_RAW_S
    if "adapters" in medians:
        theirs_s, _, theirs_kb = medians["adapters"]
        ratios = f"wall {ours_s / theirs_s:.2f}, peak {ours_kb / theirs_kb:.2f}"
        print(f"mcpbridge default / adapters: {ratios} (target ≤ 1 each)")
        missed = missed or ours_s > theirs_s or ours_kb > theirs_kb
    else:
        print("langchain-mcp-adapters left out (--no-adapters)")
    print(f"mcpbridge default - raw: {ours_s - raw_s:+.2f} s (target ≤ {TARGET_OVER_RAW_S})")
    return 1 if missed else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per library")
    parser.add_argument("--no-adapters", action="store_true", help="leave langchain-mcp-adapters out")
    parser.add_argument("--child", choices=sorted(CHILDREN), help=argparse.SUPPRESS)
    parser.add_argument("--modules", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--server", type=json.loads, default=SERVER, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(options.child, options.server, options.modules)
        raise SystemExit(0)
    raise SystemExit(main(options.runs, not options.no_adapters))
