"""What `mcpbridge call` and `mcpbridge tools` show while they wait: a call's MCP progress
and the servers still starting. On a terminal, a tqdm bar (a counter with the server's
message when it gives no total); otherwise plain lines. Both go to stderr, so stdout keeps
only the result. Every text from a server is shown through `terminal_text`."""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Iterable
from typing import IO, Any

from mcpbridge_cli.terminal import terminal_text


def _live(stream: IO[str]) -> bool:
    """Bars only where a person watches: stdout and the bar's stream are both terminals (of
    some width: tqdm draws nothing on one that reports 0 columns)."""
    if not (sys.stdout.isatty() and stream.isatty()):
        return False
    try:
        return os.get_terminal_size(stream.fileno()).columns > 0
    except (OSError, ValueError):
        return False


class CallProgress:
    """An interceptor for one CLI call: it listens to the call's `"progress"` events."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self._bar: Any = None

    async def __call__(self, request: Any, handler: Any) -> Any:
        try:
            return await handler(request.override(observers=(*request.observers, self._heard)))
        finally:
            self.close()

    def _heard(self, event: str, data: dict[str, Any]) -> None:
        if event != "progress":
            return
        done, total, message = _whole(data.get("progress", 0)), _whole(data.get("total")), data.get("message")
        said = terminal_text(message) if message else ""
        if not _live(self.stream):
            of = f"/{total:g}" if isinstance(total, int | float) else ""
            print(f"progress: {done:g}{of}{f' {said}' if said else ''}", file=self.stream, flush=True)
            return
        if self._bar is None:
            from tqdm import tqdm  # type: ignore[import-untyped]

            self._bar = tqdm(total=total, file=self.stream, leave=False, dynamic_ncols=True, unit="step")
        if total is not None and self._bar.total != total:
            self._bar.total = total
        self._bar.n = done
        self._bar.set_description_str(said, refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _whole(number: Any) -> Any:
    """3.0 as 3 (MCP progress is a JSON number; counters read better without ".0")."""
    return int(number) if isinstance(number, float) and number.is_integer() else number


async def watch_starting(
    names: Iterable[str], starts: Iterable[asyncio.Future[Any]], stream: IO[str] | None = None
) -> None:
    """Show which of the servers `names` are still starting until each of `starts` (one per
    server, in the same order) is done, failed or not."""
    out = stream if stream is not None else sys.stderr
    waiting = dict(zip(starts, names, strict=True))
    began, bar = time.monotonic(), None
    if _live(out):
        from tqdm import tqdm

        bar = tqdm(total=len(waiting), file=out, leave=False, dynamic_ncols=True, unit="server")
    try:
        while waiting:
            if bar is not None:
                bar.set_description_str("starting: " + ", ".join(terminal_text(n) for n in waiting.values()))
            done, _ = await asyncio.wait(list(waiting), return_when=asyncio.FIRST_COMPLETED)
            for start in done:
                name = waiting.pop(start)
                state = "ready" if not start.cancelled() and start.exception() is None else "failed"
                if bar is not None:
                    bar.update(1)
                else:
                    print(
                        f"server {terminal_text(name)}: {state} ({time.monotonic() - began:.1f} s)",
                        file=out,
                        flush=True,
                    )
    finally:
        if bar is not None:
            bar.close()
