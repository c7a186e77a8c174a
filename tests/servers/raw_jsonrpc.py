"""A hand-written MCP server (legacy protocol, JSON-RPC by hand) whose tools misbehave in
the exact ways real servers do: their own error codes, malformed results, progress.

Run as a script for stdio, or serve `http_app()` for streamable HTTP (JSON responses)."""

from __future__ import annotations

import json
import sys
import time
import uuid
from typing import Any

TOOLS = [
    "echo",  # {"text": ...} → the text
    "rate_limited",  # the server's own -32000 error
    "server_timeout",  # the server's own -32001 error, sent at once
    "content_not_list",  # result.content is a string
    "unknown_content",  # a content item of an unknown type
    "result_not_object",  # "result": 5
    "progress",  # two progress notifications, then "done"
    "slow",  # answers after {"seconds": ...}
    "reply",  # answers with {"result": ...} exactly as given: any JSON, valid MCP or not
]


DECLARED: set[str] = set()
"""Client capabilities declared at `initialize`: `ask` is offered only to clients that said
they do elicitation (as server-everything does). One process serves one stdio session."""


def _tool(name: str) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}}


def _text(text: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}]}


def handle(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The messages to send back for one incoming message (notifications get none)."""
    if "id" not in message:
        return []
    ident, method = message["id"], message.get("method")
    params = message.get("params") or {}

    def result(value: Any) -> list[dict[str, Any]]:
        return [{"jsonrpc": "2.0", "id": ident, "result": value}]

    def error(code: int, text: str) -> list[dict[str, Any]]:
        return [{"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": text}}]

    if method == "initialize":
        DECLARED.update((params.get("capabilities") or {}).keys())
        return result(
            {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "raw", "version": "1"},
            }
        )
    if method == "tools/list":
        offered = [*TOOLS, *(["ask"] if "elicitation" in DECLARED else [])]
        return result({"tools": [_tool(name) for name in offered]})
    if method != "tools/call":
        return error(-32601, f"Method not found: {method}")
    name, args = params.get("name"), params.get("arguments") or {}
    if name == "echo":
        return result(_text(str(args.get("text", ""))))
    if name == "rate_limited":
        return error(-32000, "rate limited: try again in 1 s")
    if name == "server_timeout":
        return error(-32001, "upstream database timed out")
    if name == "content_not_list":
        return result({"content": "oops"})
    if name == "unknown_content":
        return result({"content": [{"type": "hologram", "data": "?"}]})
    if name == "result_not_object":
        return result(5)
    if name == "progress":
        token = (params.get("_meta") or {}).get("progressToken")
        notes = [
            {"jsonrpc": "2.0", "method": "notifications/progress", "params": {"progressToken": token, "progress": p}}
            for p in (1, 2)
        ]
        return [*notes, *result(_text("done"))]
    if name == "reply":
        return result(args.get("result"))
    if name == "slow":
        time.sleep(float(args.get("seconds", 1)))
        return result(_text("done"))
    return error(-32602, f"unknown tool {name}")


def run_stdio() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        for reply in handle(json.loads(line)):
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()


def http_app() -> Any:
    """A Starlette app answering POST /mcp with JSON; each start has new session ids, and an
    unknown `Mcp-Session-Id` gets 404 as the streamable HTTP spec says."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    sessions: set[str] = set()

    async def endpoint(request: Request) -> Response:
        if request.method != "POST":
            return Response(status_code=405)
        message = await request.json()
        session = request.headers.get("mcp-session-id")
        headers = {}
        if message.get("method") == "initialize":
            session = uuid.uuid4().hex
            sessions.add(session)
            headers["mcp-session-id"] = session
        elif session not in sessions:
            return JSONResponse(
                {"jsonrpc": "2.0", "id": message.get("id"), "error": {"code": -32600, "message": "Session not found"}},
                status_code=404,
            )
        replies = [reply for reply in handle(message) if "id" in reply]
        if not replies:
            return Response(status_code=202, headers=headers)
        return JSONResponse(replies[-1], headers=headers)

    return Starlette(routes=[Route("/mcp", endpoint, methods=["GET", "POST", "DELETE"])])


if __name__ == "__main__":
    run_stdio()
