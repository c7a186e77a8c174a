"""The langchain-mcp-adapters side of bench/adapters.py, run by its own venv's python (mcp
1.x cannot share the project's venv). Stdlib only at import time, so bench/adapters.py can
import `interleaved` and the benches' import test stays green; the adapters are imported
only in `main`.

Protocol: argv[1] is the stdio server config (JSON: command, args, cwd). The worker
answers one JSON line with the versions, then, for each line `N` read from stdin, runs N
interleaved calls and answers one JSON line {label: [seconds, ...]}. An empty line or EOF ends it.
`--profile FILE` instead cProfiles a stretch of the adapters' `ainvoke(args)` into FILE."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

ARGS = {"text": "hello"}
Call = Callable[[], Awaitable[Any]]


def tool_call(i: int = 0) -> dict[str, Any]:
    """The echo call as a LangChain ToolCall (what an agent's ToolNode passes)."""
    return {"type": "tool_call", "name": "echo", "args": ARGS, "id": f"bench-{i}"}


async def interleaved(calls: Mapping[str, Call], rounds: int) -> dict[str, list[float]]:
    """Seconds of each call, `rounds` times, taking them in turn call by call so that drift
    on a busy machine hits every one equally."""
    samples: dict[str, list[float]] = {label: [] for label in calls}
    for _ in range(rounds):
        for label, call in calls.items():
            t0 = time.perf_counter()
            await call()
            samples[label].append(time.perf_counter() - t0)
    return samples


async def serve_rounds(calls: Mapping[str, Call], versions: dict[str, str]) -> None:
    """Answer the parent's rounds on stdout until it sends an empty line."""
    print(json.dumps(versions), flush=True)
    loop = asyncio.get_running_loop()
    while line := (await loop.run_in_executor(None, sys.stdin.readline)).strip():
        print(json.dumps(await interleaved(calls, int(line))), flush=True)


async def main(server: dict[str, Any], profile: str | None) -> None:
    from importlib.metadata import version

    from langchain_mcp_adapters.client import MultiServerMCPClient  # type: ignore[import-not-found]
    from langchain_mcp_adapters.tools import load_mcp_tools  # type: ignore[import-not-found]

    client = MultiServerMCPClient({"bench": {"transport": "stdio", **server}})
    async with client.session("bench") as session:
        echo = {tool.name: tool for tool in await load_mcp_tools(session)}["echo"]

        async def raw() -> Any:
            return await session.call_tool("echo", ARGS)

        async def adapters_args() -> Any:
            return await echo.ainvoke(ARGS)

        async def adapters_toolcall() -> Any:
            return await echo.ainvoke(tool_call())

        calls = {"raw": raw, "args": adapters_args, "toolcall": adapters_toolcall}
        if profile:
            await profiled(adapters_args, profile)
            return
        await serve_rounds(calls, {name: version(name) for name in ("langchain-mcp-adapters", "mcp", "langchain-core")})


async def profiled(call: Call, out: str, rounds: int = 2000) -> None:
    """cProfile `rounds` calls of `call` after a warm-up, stats dumped to `out`."""
    import cProfile

    await interleaved({"warmup": call}, 100)
    profiler = cProfile.Profile()
    profiler.enable()
    await interleaved({"profiled": call}, rounds)
    profiler.disable()
    profiler.dump_stats(out)


if __name__ == "__main__":
    profile = sys.argv[sys.argv.index("--profile") + 1] if "--profile" in sys.argv else None
    asyncio.run(main(json.loads(sys.argv[1]), profile))
