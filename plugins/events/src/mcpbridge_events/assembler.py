"""Fold a LangGraph stream into one `AssembledToolCall` per tool call — the Python side of
LangGraph JS `useStream().toolCalls`.

It reads whatever the stream carries: this plugin's lifecycle events (`stream_mode="custom"`),
LangGraph's own `stream_mode="tools"` events, and the AIMessages / ToolMessages in
`"updates"` or `"values"`, so it works with or without the plugin and gives the same objects.
"""

from __future__ import annotations

from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolMessage

from mcpbridge_events.lifecycle import EVENT_TYPE, output_of_message
from mcpbridge_events.limits import Limits, bounded, cut_text

Status = Literal["running", "finished", "error"]

_STREAM_MODES = frozenset({"values", "updates", "messages", "custom", "tools", "debug", "tasks", "checkpoints"})
_TOOLS_EVENTS = frozenset({"tool-started", "tool-output-delta", "tool-finished", "tool-error"})
READ_NOTES = frozenset({"mcpbridge_cache", "mcpbridge_retry", "mcpbridge_tasks", "mcpbridge_approval"})
"""The artifact entry types whose fields a call shows (`cached`, `attempts`, `task_id`,
`approval`): a call's notes when its stream did not announce the bridge's `note_types`."""


@dataclass
class ToolProgress:
    """The latest MCP progress notification of a call."""

    progress: float
    total: float | None = None
    message: str | None = None


@dataclass(eq=False)
class AssembledToolCall:
    """One tool call as a UI shows it, updated in place while the run streams.

    Fields follow LangGraph JS `AssembledToolCall` in snake_case; `callId`, `id` and `args`
    are the JS aliases, and `to_js()` gives the JSON a front end expects. As in LangGraph JS,
    `name` is the name the model called (the events' `display_name`).
    """

    call_id: str
    name: str
    input: dict[str, Any] = field(default_factory=dict)
    namespace: list[str] = field(default_factory=list)
    status: Status = "running"
    output: Any = None
    error: str | None = None
    server_name: str | None = None
    """The configured server the call went to."""
    mcp_name: str | None = None
    """The server's own MCP tool name (the events' `name`; `name` here may carry a prefix)."""
    message_id: str | None = None
    """The id of the AIMessage that asked for this call."""
    progress: ToolProgress | None = None
    attempts: int | None = None
    """How many times the retry plugin tried the call (set once it retried or finished)."""
    cached: bool | None = None
    """True when the cache plugin answered the call, False on a recorded miss."""
    approval: str | None = None
    """The approval plugin's latest step for this call ("requested", "approved", ...)."""
    task_id: str | None = None
    """The id of the MCP task the call runs as (the tasks plugin)."""
    task_status: str | None = None
    """That task's latest status ("working", "input_required", "completed", ...)."""
    interrupted: bool = False
    """The run paused inside this call (an approval or elicitation waits for a person)."""
    updates: deque[dict[str, Any]] = field(default_factory=deque)
    """The latest notifications of the call (server log lines, what other plugins report), in
    order: at most `max_updates_per_call`, each text cut to `max_text_bytes`."""
    updates_dropped: int = 0
    """How many earlier updates of the call were not kept."""
    notes: list[dict[str, Any]] = field(default_factory=list)
    """The artifact entries other plugins added to the call, of the types the bridge's plugins
    declare (e.g. `{"type": "mcpbridge_cache", "hit": True}`)."""
    _limits: Limits = field(default_factory=Limits, init=False, repr=False)
    _note_types: frozenset[str] = field(default=READ_NOTES, init=False, repr=False)

    def __post_init__(self) -> None:
        self._set_limits(self._limits)

    @property
    def callId(self) -> str:  # JS alias
        return self.call_id

    @property
    def id(self) -> str:  # JS alias
        return self.call_id

    @property
    def args(self) -> dict[str, Any]:  # JS alias
        return self.input

    def to_js(self, *, with_updates: bool = True) -> dict[str, Any]:
        """The call as JSON for a front end, with LangGraph JS field names; `with_updates=False`
        leaves out `updates` and `updatesDropped` (what a change of the call's fields sends)."""
        progress = self.progress
        fields = {
            "name": self.name,
            "callId": self.call_id,
            "id": self.call_id,
            "namespace": list(self.namespace),
            "input": self.input,
            "args": self.input,
            "output": self.output,
            "status": self.status,
            "error": self.error,
            "serverName": self.server_name,
            "mcpName": self.mcp_name,
            "messageId": self.message_id,
            "progress": None if progress is None else vars(progress).copy(),
            "attempts": self.attempts,
            "cached": self.cached,
            "approval": self.approval,
            "taskId": self.task_id,
            "taskStatus": self.task_status,
            "interrupted": self.interrupted,
        }
        if with_updates:
            fields.update(updates=list(self.updates), updatesDropped=self.updates_dropped)
        return fields

    def _set_limits(self, limits: Limits) -> None:
        """Keep at most `limits.max_updates_per_call` updates from now on (the latest of those kept)."""
        self._limits = limits
        if not isinstance(self.updates, deque) or self.updates.maxlen != limits.max_updates_per_call:
            kept = deque(self.updates, maxlen=limits.max_updates_per_call)
            self.updates_dropped += len(self.updates) - len(kept)
            self.updates = kept

    def _restart(self) -> None:
        self.status, self.output, self.error, self.interrupted, self.progress = "running", None, None, False, None

    def _apply_update(self, update: str, data: Mapping[str, Any]) -> None:
        max_text = self._limits.max_text_bytes
        data = {str(k): bounded(v, max_text) for k, v in data.items()}
        if len(self.updates) == self.updates.maxlen:
            self.updates_dropped += 1
        self.updates.append({"update": cut_text(update, max_text), **data})
        if update == "retry.attempt" and isinstance(data.get("attempt"), int):
            self.attempts = max(self.attempts or 0, data["attempt"])
        elif update in ("cache.hit", "cache.miss"):
            self.cached = update == "cache.hit"
        elif update.startswith("approval."):
            self.approval = str(data["decision"]) if "decision" in data else update.removeprefix("approval.")
        elif update == "task.status":
            self.task_id, self.task_status = _text(data.get("task_id")), _text(data.get("status"))

    def _apply_notes(self, notes: Iterable[Mapping[str, Any]]) -> None:
        for note in notes:
            kind = str(note.get("type", ""))
            if kind not in self._note_types:
                continue
            if note not in self.notes:
                self.notes.append(dict(note))
            if kind == "mcpbridge_cache" and "hit" in note:
                self.cached = bool(note["hit"])
            elif kind == "mcpbridge_retry" and isinstance(note.get("attempts"), int):
                self.attempts = note["attempts"]
            elif kind == "mcpbridge_tasks" and isinstance(note.get("task_id"), str):
                self.task_id = note["task_id"]
            elif kind == "mcpbridge_approval":
                decision = note.get("decision", note.get("status"))
                if decision is not None:
                    self.approval = str(decision)


class ToolCallAssembler:
    """Keeps `tool_calls`: one `AssembledToolCall` per call id, in the order the calls were
    asked for. Feed it every chunk of `agent.astream(..., stream_mode=[...])` — any mix of
    "custom", "tools", "updates", "values" and "messages", with or without `subgraphs=True`.

        assembler = ToolCallAssembler()
        async for call in assembler.track(agent.astream(inputs, config, stream_mode=["updates", "custom"])):
            print(call.name, call.status)
    """

    def __init__(self, *, max_updates_per_call: int | None = None, max_text_bytes: int | None = None) -> None:
        """Each call keeps at most `max_updates_per_call` updates (the latest) and cuts each text
        to `max_text_bytes`; left out, a call takes what its `started` event announces (the
        bridge's `[plugins.events]` settings), else the defaults (200 and 4096)."""
        self._chosen = (max_updates_per_call, max_text_bytes)
        self._default = self._limits_of(None)  # checks the chosen values at once
        self._calls: dict[str, AssembledToolCall] = {}

    @property
    def tool_calls(self) -> list[AssembledToolCall]:
        return list(self._calls.values())

    def get(self, call_id: str) -> AssembledToolCall | None:
        return self._calls.get(call_id)

    def for_message(self, message: AIMessage) -> list[AssembledToolCall]:
        """The calls one AIMessage asked for, in its order (those seen so far)."""
        ids = [call["id"] for call in message.tool_calls if call.get("id")]
        return [self._calls[i] for i in ids if i in self._calls]

    async def track(self, stream: AsyncIterable[Any]) -> AsyncIterator[AssembledToolCall]:
        """Feed every chunk of `stream`; yield each call whenever it changes."""
        async for chunk in stream:
            for call in self.feed(chunk):
                yield call

    def feed(self, chunk: Any) -> list[AssembledToolCall]:
        """Take one stream chunk; return the calls it changed."""
        changed = {call.call_id: call for call in self._dispatch(*_unwrap(chunk))}
        return list(changed.values())

    # -- what a chunk may be ----------------------------------------------------------

    def _dispatch(self, namespace: list[str], data: Any) -> Iterable[AssembledToolCall]:
        if isinstance(data, Mapping) and data.get("type") == EVENT_TYPE and "tool_call_id" in data:
            return [self._lifecycle(data)]
        if isinstance(data, Mapping) and data.get("event") in _TOOLS_EVENTS and "tool_call_id" in data:
            return [self._tools_event(namespace, data)]
        if isinstance(data, tuple) and len(data) == 2 and isinstance(data[0], BaseMessage):
            return self._messages([data[0]], namespace)  # stream_mode="messages": (message, metadata)
        if isinstance(data, BaseMessage):
            return self._messages([data], namespace)
        if isinstance(data, Mapping):
            return self._state(data, namespace)
        return []

    def _lifecycle(self, event: Mapping[str, Any]) -> AssembledToolCall:
        kind = event["event"]
        call = self._ensure(str(event["tool_call_id"]), str(event.get("display_name") or ""), [])
        if kind == "started":
            call._restart()
            call._set_limits(self._limits_of(event.get("limits")))
            if isinstance(event.get("note_types"), list):
                call._note_types = frozenset(map(str, event["note_types"]))
            call.name = str(event.get("display_name") or call.name)
            call.server_name, call.mcp_name = event.get("server_name"), event.get("name")
            call.message_id = event.get("message_id") or call.message_id
            if event.get("input") is not None:
                call.input = dict(event["input"])
            call.namespace = list(event.get("namespace") or call.namespace)
        elif kind == "progress":
            message = event.get("message")
            if isinstance(message, str):
                message = cut_text(message, call._limits.max_text_bytes)
            call.progress = ToolProgress(event.get("progress") or 0, event.get("total"), message)
        elif kind == "update":
            call._apply_update(str(event.get("update")), event.get("data") or {})
        elif kind == "interrupted":
            call.interrupted = True
        elif kind == "finished":
            call.status, call.output, call.interrupted = "finished", event.get("output"), False
        elif kind == "error":
            call.status, call.error, call.interrupted = "error", str(event.get("error")), False
        call._apply_notes(event.get("notes") or ())
        return call

    def _tools_event(self, namespace: list[str], event: Mapping[str, Any]) -> AssembledToolCall:
        kind = event["event"]
        call = self._ensure(str(event["tool_call_id"]), str(event.get("tool_name") or ""), namespace)
        if kind == "tool-started":
            call._restart()
            call.name = str(event.get("tool_name") or call.name)
            if isinstance(event.get("input"), Mapping):
                call.input = dict(event["input"])
        elif kind == "tool-finished" and isinstance(event.get("output"), ToolMessage):
            self._reconcile(call, event["output"])
        elif kind == "tool-error":  # LangGraph writes the error's text as `message`, none for an interrupt
            call.status, call.error = "error", str(event.get("message", ""))
        return call

    def _state(self, data: Mapping[str, Any], namespace: list[str]) -> list[AssembledToolCall]:
        """An "updates" chunk ({node: {"messages": [...]}}) or a "values" chunk ({"messages": [...]})."""
        touched: list[AssembledToolCall] = []
        if "__interrupt__" in data:
            for call in self._calls.values():
                if call.status == "running" and not call.interrupted:
                    call.interrupted = True
                    touched.append(call)
        for value in (data, *data.values()):
            if isinstance(value, Mapping) and "messages" in value:
                touched += self._messages(_as_list(value["messages"]), namespace)
        return touched

    def _messages(self, messages: Iterable[Any], namespace: list[str]) -> list[AssembledToolCall]:
        touched: list[AssembledToolCall] = []
        for message in messages:
            if isinstance(message, ToolMessage) and message.tool_call_id:
                call = self._ensure(message.tool_call_id, message.name or "", namespace)
                if self._reconcile(call, message):
                    touched.append(call)
            elif isinstance(message, AIMessage) and not isinstance(message, AIMessageChunk):
                for asked in message.tool_calls:
                    asked_id = asked.get("id")
                    if asked_id and asked_id not in self._calls:
                        call = self._ensure(asked_id, asked["name"], namespace)
                        call.input, call.message_id = dict(asked["args"]), message.id
                        touched.append(call)
        return touched

    def _reconcile(self, call: AssembledToolCall, message: ToolMessage) -> bool:
        """Settle a call from its ToolMessage; False when it already says the same."""
        before = (call.status, call.output, call.error, len(call.notes))
        call.name = call.name or message.name or ""
        if message.status == "error":
            call.status, call.error = "error", message.text
        else:
            call.status, call.output = "finished", output_of_message(message)
        call.interrupted = False
        if isinstance(message.artifact, list):
            call._apply_notes(entry for entry in message.artifact if isinstance(entry, Mapping))
        return before != (call.status, call.output, call.error, len(call.notes))

    def _ensure(self, call_id: str, name: str, namespace: list[str]) -> AssembledToolCall:
        call = self._calls.get(call_id)
        if call is None:
            call = self._calls[call_id] = AssembledToolCall(call_id=call_id, name=name, namespace=list(namespace))
            call._set_limits(self._default)
        return call

    def _limits_of(self, announced: Any) -> Limits:
        """This assembler's choice, else what the stream announced, else the defaults."""
        stream = Limits.from_event(announced) or Limits()
        updates, text = self._chosen
        return Limits(
            stream.max_updates_per_call if updates is None else updates, stream.max_text_bytes if text is None else text
        )


def _unwrap(chunk: Any) -> tuple[list[str], Any]:
    """(namespace, payload) from `(ns, mode, data)`, `(mode, data)`, `(ns, data)`, a v2 stream
    part `{"type": mode, "ns": ns, "data": data}`, or a bare payload."""
    if isinstance(chunk, tuple):
        if len(chunk) == 3 and isinstance(chunk[0], tuple) and chunk[1] in _STREAM_MODES:
            return list(chunk[0]), chunk[2]
        if len(chunk) == 2 and isinstance(chunk[0], str) and chunk[0] in _STREAM_MODES:
            return [], chunk[1]
        if len(chunk) == 2 and isinstance(chunk[0], tuple) and all(isinstance(p, str) for p in chunk[0]):
            return list(chunk[0]), chunk[1]
    if isinstance(chunk, Mapping) and chunk.get("type") in _STREAM_MODES and "data" in chunk and "ns" in chunk:
        return list(chunk.get("ns") or ()), chunk["data"]
    return [], chunk


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else [value]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)
