"""Per-call latency of mcpbridge against langchain-mcp-adapters on a persistent stdio
session, same echo server (tests/servers/basic.py, mcp 2.x, run by the project's python).

The adapters need mcp < 2, so they run in a venv of their own, made once and cached in
bench/.venvs/adapters-<version>/ (git-ignored), by bench/_adapters_worker.py: the raw mcp 1.x
`ClientSession.call_tool` and the tool from `load_mcp_tools(session)` on `client.session(name)`.
This process measures the raw mcp 2.x session and mcpbridge's `MCPTool.ainvoke`, bare core
(`plugins=[]`) and default install, each on the raw session it holds. The processes take
turns, round by round; within a turn, calls are interleaved call by call. Both call shapes:
`ainvoke(args)` (the headline) and `ainvoke(ToolCall)`.

Target: mcpbridge / adapters per call ≤ 0.6, both installs, `ainvoke(args)`."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import subprocess
import sys
from collections.abc import Sequence
from contextlib import AsyncExitStack
from functools import partial
from pathlib import Path
from typing import Any

from _adapters_worker import ARGS, Call, interleaved, profiled, tool_call
from _common import ROOT, stdio_config

from mcpbridge import MCPBridge

logging.disable(logging.INFO)
VERSION = "0.3.2"
VENV = ROOT / "bench" / ".venvs" / f"adapters-{VERSION}"
WORKER = Path(__file__).resolve().parent / "_adapters_worker.py"
TARGET = 0.6
INSTALLS: dict[str, Sequence[str] | None] = {"bare": [], "default": None}
SHAPES = ("args", "toolcall")


def adapters_python() -> Path:
    """The adapters venv's python, made on first use (a stamp holds the version)."""
    python, stamp = VENV / "bin" / "python", VENV / ".installed"
    if not (stamp.exists() and stamp.read_text() == VERSION):
        print(f"making {VENV.relative_to(ROOT)} (once)", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(VENV)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
        subprocess.run([*pip, f"langchain-mcp-adapters=={VERSION}"], check=True)
        stamp.write_text(VERSION)
    return python


class Worker:
    """The adapters' process: one persistent session, rounds on request."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process, self.stdin, self.stdout = process, process.stdin, process.stdout

    @classmethod
    async def start(cls, server: dict[str, Any]) -> tuple[Worker, dict[str, str]]:
        """The started worker and the versions it runs."""
        pipe, command = asyncio.subprocess.PIPE, [str(adapters_python()), str(WORKER), json.dumps(server)]
        worker = cls(await asyncio.create_subprocess_exec(*command, stdin=pipe, stdout=pipe))
        return worker, await worker._answer()

    async def round(self, calls: int) -> dict[str, list[float]]:
        self.stdin.write(f"{calls}\n".encode())
        await self.stdin.drain()
        return await self._answer()  # type: ignore[no-any-return]

    async def stop(self) -> None:
        self.stdin.write(b"\n")
        await self.stdin.drain()
        await self.process.wait()

    async def _answer(self) -> Any:
        line = await self.stdout.readline()
        if not line:
            raise RuntimeError(f"the adapters worker ended (exit {await self.process.wait()})")
        return json.loads(line)


async def bridge_calls(stack: AsyncExitStack, server: dict[str, Any]) -> dict[str, dict[str, Call]]:
    """For each install: its raw mcp 2.x session (the bridge's own) and its tool, both shapes."""
    installs: dict[str, dict[str, Call]] = {}
    for install, plugins in INSTALLS.items():
        bridge = await stack.enter_async_context(MCPBridge({"bench": server}, plugins=plugins))
        echo = {tool.name: tool for tool in await bridge.list_tools()}["echo"]
        session = await bridge.session("bench")
        installs[install] = {
            "raw": partial(session.call_tool, "echo", ARGS, allow_input_required=True),
            "args": partial(echo.ainvoke, ARGS),
            "toolcall": partial(echo.ainvoke, tool_call()),
        }
    return installs


Samples = dict[str, list[float]]


async def main(rounds: int, calls_per_round: int, warmup: int) -> int:
    """Turns: the adapters' process, then each install in this one (each on its own server
    process, so that no call in a stretch wakes a server that sat idle)."""
    server = stdio_config()
    worker, versions = await Worker.start(server)
    turns: list[tuple[Samples, Samples]] = []
    async with AsyncExitStack() as stack:
        installs = await bridge_calls(stack, server)
        await worker.round(warmup)
        for calls in installs.values():
            await interleaved(calls, warmup)
        for _ in range(rounds):
            theirs = await worker.round(calls_per_round)
            ours = {}
            for install, calls in installs.items():
                samples = await interleaved(calls, calls_per_round)
                ours.update({f"{install} {label}": seconds for label, seconds in samples.items()})
            turns.append((ours, theirs))
    await worker.stop()
    return report(versions, turns)


def report(versions: dict[str, str], turns: list[tuple[Samples, Samples]]) -> int:
    """Print each median (all turns pooled) and ratio, the headline's range over the turns;
    1 when the headline misses its target."""
    ours, theirs = (_medians([turn[side] for turn in turns]) for side in (0, 1))
    print(", ".join(f"{name} {v}" for name, v in versions.items()), "| mcpbridge on mcp", _mcp_version())
    print(f"{'library':<24}{'call':<10}{'raw µs':>8}{'µs':>8}{'/raw':>7}")
    rows = [("langchain-mcp-adapters", shape, theirs["raw"], theirs[shape]) for shape in SHAPES]
    rows += [(f"mcpbridge {i}", shape, ours[f"{i} raw"], ours[f"{i} {shape}"]) for i in INSTALLS for shape in SHAPES]
    for library, shape, raw, median in rows:
        print(f"{library:<24}{shape:<10}{raw * 1e6:>8.0f}{median * 1e6:>8.0f}{median / raw:>7.2f}")
    failed = False
    for install in INSTALLS:
        ratios = {shape: ours[f"{install} {shape}"] / theirs[shape] for shape in SHAPES}
        per_turn = [_medians([a])[f"{install} args"] / _medians([b])["args"] for a, b in turns]
        print(
            f"mcpbridge {install} / adapters per call: args {ratios['args']:.2f} (turns {min(per_turn):.2f}"
            f" to {max(per_turn):.2f}), toolcall {ratios['toolcall']:.2f} (target args ≤ {TARGET})"
        )
        failed = failed or ratios["args"] > TARGET
    return 1 if failed else 0


def profile(out: Path, top: int) -> int:
    """cProfile `ainvoke(args)` of the adapters (in their venv) and of both installs; print
    each one's `top` entries by own time."""
    import pstats

    out.mkdir(parents=True, exist_ok=True)
    server = stdio_config()
    command = [str(adapters_python()), str(WORKER), json.dumps(server), "--profile", str(out / "adapters.prof")]
    subprocess.run(command, check=True)

    async def ours() -> None:
        async with AsyncExitStack() as stack:
            installs = await bridge_calls(stack, server)
            for install, calls in installs.items():
                await profiled(calls["args"], str(out / f"mcpbridge-{install}.prof"))

    asyncio.run(ours())
    for name in ("adapters", *(f"mcpbridge-{install}" for install in INSTALLS)):
        print(f"== {name}")
        pstats.Stats(str(out / f"{name}.prof")).sort_stats("tottime").print_stats(top)
    return 0


def _medians(turns: list[Samples]) -> dict[str, float]:
    """Median seconds of each label over `turns` pooled."""
    return {label: statistics.median(s for turn in turns for s in turn[label]) for label in turns[0]}


def _mcp_version() -> str:
    from importlib.metadata import version

    return version("mcp")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=60, help="turns of each process")
    parser.add_argument("--calls", type=int, default=30, help="calls of each kind per turn")
    parser.add_argument("--warmup", type=int, default=50)
    parser.add_argument("--profile", type=Path, metavar="DIR", help="cProfile instead, stats in DIR")
    parser.add_argument("--top", type=int, default=25, help="entries printed per profile")
    options = parser.parse_args()
    if options.profile:
        raise SystemExit(profile(options.profile, options.top))
    raise SystemExit(asyncio.run(main(options.rounds, options.calls, options.warmup)))
