"""A hand-written legacy-protocol stdio server that frames answers the way node servers do
(`{"result": ..., "jsonrpc": "2.0", "id": N}`, id last). `big` answers with `size` bytes of text;
`garbled` answers with an invalid UTF-8 byte inside the result. Run as `python -m tests.servers.raw_stdio`."""

from __future__ import annotations

import json
import sys

TOOLS = [
    {"name": n, "inputSchema": {"type": "object", "properties": {"size": {"type": "integer"}}}}
    for n in ("big", "garbled")
]


def answer(request_id: object, result: dict[str, object]) -> bytes:
    return json.dumps({"result": result, "jsonrpc": "2.0", "id": request_id}).encode() + b"\n"


def main() -> None:
    out = sys.stdout.buffer
    for line in sys.stdin.buffer:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue
        if method == "initialize":
            info = {"name": "raw", "version": "1"}
            version = message["params"]["protocolVersion"]
            data = answer(request_id, {"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": info})
        elif method == "tools/list":
            data = answer(request_id, {"tools": TOOLS})
        elif method == "tools/call" and message["params"]["name"] == "big":
            text = "x" * message["params"]["arguments"]["size"]
            data = answer(request_id, {"content": [{"type": "text", "text": text}]})
        elif method == "tools/call":
            data = answer(request_id, {"content": [{"type": "text", "text": "@"}]}).replace(b"@", b"\xff")
        else:
            error = {"code": -32601, "message": method}
            data = json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error}).encode() + b"\n"
        out.write(data)
        out.flush()


if __name__ == "__main__":
    main()
