"""What a client sends, message by message, to count handshakes and read what it declares:
`MethodLog(app)` wraps any streamable HTTP app (`.messages`, `.methods` in order); over stdio,
`python -m tests.servers.method_log LOGFILE` is the legacy-protocol `raw_jsonrpc` server
writing each message it receives to LOGFILE as a JSON line (`logged(LOGFILE)` reads them)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.servers import raw_jsonrpc


@dataclass
class MethodLog:
    app: Any
    messages: list[dict[str, Any]] = field(default_factory=list)

    @property
    def methods(self) -> list[str]:
        return [message.get("method", "(answer)") for message in self.messages]

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages = [await receive()]
        while messages[-1].get("more_body"):
            messages.append(await receive())
        self.messages.append(json.loads(b"".join(m.get("body", b"") for m in messages)))

        async def replay() -> dict[str, Any]:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


def run_stdio(log: str) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        with open(log, "a", encoding="utf-8") as out:
            out.write(json.dumps(message) + "\n")
        for reply in raw_jsonrpc.handle(message):
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def logged(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


if __name__ == "__main__":
    run_stdio(sys.argv[1])
