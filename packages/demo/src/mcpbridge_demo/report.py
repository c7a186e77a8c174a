"""What the demo prints: sections, the final table of tool calls, the trace tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolMessage

PLUGIN_ROLES = {
    "events": "streams every call's lifecycle to UIs (stream_mode='custom'); `mcpbridge inspect`",
    "otel": "one OpenTelemetry span per call, parent of the mcp SDK's and the server's spans",
    "approval": "asks a person before destructive tools run (delete_contact)",
    "cache": "answers the repeated read-only forecast without calling the server",
    "elicitation": "lets the booking server ask the user for a date mid-call",
    "tasks": "runs long tools as MCP tasks with live status (the research card of `mcpbridge demo --ui`)",
    "retry": "retries the flaky read-only tool with backoff",
    "headers": "sends x-user-id from the agent's context to the CRM server",
}


def section(title: str) -> None:
    print(f"\n== {title}")


@dataclass
class CallRow:
    name: str
    started: float
    status: str = "running"
    ended: float | None = None
    notes: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    def finish(self, message: ToolMessage, now: float) -> None:
        self.status, self.ended, self.text = message.status, now, summary(message)
        for entry in message.artifact or []:
            if isinstance(entry, dict) and str(entry.get("type", "")).startswith("mcpbridge_"):
                self.notes[entry["type"].removeprefix("mcpbridge_")] = entry


def summary(message: ToolMessage, width: int = 60) -> str:
    if isinstance(message.content, str):
        text = message.content
    else:
        text = " ".join(b.get("text", f"<{b.get('type')}>") for b in message.content if isinstance(b, dict))
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def table(rows: list[CallRow]) -> None:
    print(f"  {'tool':<16}{'status':<9}{'attempts':>9}{'cache':>7}{'ms':>8}  result")
    for row in rows:
        attempts = row.notes.get("retry", {}).get("attempts", 1)
        cache = row.notes.get("cache")
        cached = "-" if cache is None else ("hit" if cache.get("hit") else "miss")
        ms = (row.ended - row.started) * 1e3 if row.ended is not None else 0.0
        print(f"  {row.name:<16}{row.status:<9}{attempts:>9}{cached:>7}{ms:>8.1f}  {row.text}")


def trace_tree(spans: list[Any], root_prefix: str = "execute_tool") -> None:
    """Print finished OpenTelemetry spans as a tree, one trace per tool call (the
    connections' own discover / list spans are left out)."""
    by_parent: dict[int | None, list[Any]] = {}
    ids = {span.context.span_id for span in spans}
    for span in sorted(spans, key=lambda s: s.start_time or 0):
        parent = span.parent.span_id if span.parent is not None and span.parent.span_id in ids else None
        by_parent.setdefault(parent, []).append(span)

    def show(span: Any, depth: int) -> None:
        ms = ((span.end_time or 0) - (span.start_time or 0)) / 1e6
        status = span.status.status_code.name.lower()
        print(f"  {'  ' * depth}{span.name}  [{ms:.1f} ms, {status}]")
        for child in by_parent.get(span.context.span_id, []):
            show(child, depth + 1)

    for root in by_parent.get(None, []):
        if root.name.startswith(root_prefix):
            show(root, 0)
