"""What a client sends, one JSON-RPC method per message, to count handshakes: `MethodLog(app)`
wraps any streamable HTTP app (`.methods` in order); over stdio,
`python -m tests.servers.method_log LOGFILE` is the legacy-protocol `raw_jsonrpc` server
writing each method it receives to LOGFILE, a line each."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from typing import Any

from tests.servers import raw_jsonrpc


@dataclass
class MethodLog:
    app: Any
    methods: list[str] = field(default_factory=list)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages = [await receive()]
        while messages[-1].get("more_body"):
            messages.append(await receive())
        try:
            self.methods.append(json.loads(b"".join(m.get("body", b"") for m in messages)).get("method", "(answer)"))
        except ValueError:
            self.methods.append("(not JSON)")

        async def replay() -> dict[str, Any]:
            return messages.pop(0) if messages else await receive()

        await self.app(scope, replay, send)


def run_stdio(log: str) -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{message.get('method', '(answer)')}\n")
        for reply in raw_jsonrpc.handle(message):
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    run_stdio(sys.argv[1])
