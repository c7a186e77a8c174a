"""Our stdio client transport: the mcp SDK's `stdio_client` with a reader that survives real servers.

The SDK's reader re-splits its whole buffer on every chunk (quadratic in the size of a
result), and one invalid UTF-8 byte kills it. Here stdout is read as bytes and split only
where a new chunk has a newline; a bad line costs one warning, not the session; a line over
`max_message_bytes` is discarded as it arrives and fails its own request at once; the
server's stderr goes to a logger per server instead of the user's terminal.

Writes never make a caller wait for the pipe: the SDK starts a request's clock only once its
write returns, so a server that stops reading its stdin would hold every call (and every
call queued behind it) past its timeout. Messages queue instead, the writer feeds the pipe
in pieces, and `write_stalled()` says how long the piece under way has waited; the
connection drops a session whose server stopped reading (`abandon()`). On close, the
server's whole process group ends with it (`process_group`).

The spawning, the environment and the shutdown sequence are the SDK's (`mcp.client.stdio`),
written with its public helpers only: `get_default_environment`, and on Windows the job-object
process of `mcp.os.win32.utilities`.
"""

from __future__ import annotations

import json
import logging
import math
import re
import subprocess
import sys
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Any

import anyio
import anyio.lowlevel
import anyio.to_thread
import mcp.types as types
from anyio.abc import ByteReceiveStream, ByteSendStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.client.stdio import get_default_environment
from mcp.os.win32.utilities import ServerProcess, create_windows_process, get_windows_executable_command
from mcp.shared.message import SessionMessage

from mcpbridge._base.errors import capped
from mcpbridge._session.process_group import drain, stop_server, wait_for_exit
from mcpbridge._session.sendable import unsendable_text

logger = logging.getLogger(__name__)
_Send = MemoryObjectSendStream[SessionMessage | Exception]
TransportStreams = tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
"""What entering an mcp `Transport` gives: the session's read and write streams."""

_PEEK = 4096  # bytes kept from each end of a dropped line to find its JSON-RPC id
_STDERR_TAIL_LINES = 20
_STDERR_LINE_MAX = 65536  # a longer stderr "line" is logged in pieces rather than held whole
_STDERR_GRACE = 0.5  # after stdout ends, time for the last stderr lines before the stream closes
_EXIT_POLL = 0.2
_EXIT_IDLE = 1.0  # after the process exits, stdout silence that ends the read stream
_WRITE_PIECE = 65536  # bytes handed to the pipe at a time; each one taken is progress
_WRITER_FLUSH = 0.5  # on close, time for queued messages to reach stdin (the SDK's)

_VALUE = rb'(?:-?\d+|"(?:[^"\\]|\\.)*")'
# Python servers put "id" before "result"/"error" (head); node servers put it last (tail).
_HEAD = re.compile(rb'\s*\{((?:\s*"(?:jsonrpc|id)"\s*:\s*' + _VALUE + rb"\s*,)*)\s*\"(result|error|method)\"")
_ID = re.compile(rb'"id"\s*:\s*(' + _VALUE + rb")")
_TAIL = re.compile(rb'"id"\s*:\s*(' + _VALUE + rb')\s*(?:,\s*"jsonrpc"\s*:\s*"2\.0"\s*)?\}\s*\Z')


@dataclass
class _Oversized:
    size: int
    head: bytes
    tail: bytes


class _Lines:
    """Splits a byte stream into lines in linear time; an oversized line keeps only its ends."""

    def __init__(self, limit: int | None) -> None:
        self._limit = limit
        self._parts: list[bytes] = []
        self._size = 0
        self._head: bytes | None = None  # set while discarding an oversized line
        self._tail = b""

    def feed(self, chunk: bytes) -> list[bytes | _Oversized]:
        """The lines that `chunk` completes."""
        *ends, rest = chunk.split(b"\n")
        done = [self._end(piece) for piece in ends]
        if rest:
            self._add(rest)
        return done

    def _add(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._head is not None:
            self._tail = piece[-_PEEK:] if len(piece) >= _PEEK else (self._tail + piece)[-_PEEK:]
        elif self._limit is not None and self._size > self._limit:
            whole = b"".join([*self._parts, piece])
            self._head, self._tail, self._parts = whole[:_PEEK], whole[-_PEEK:], []
        else:
            self._parts.append(piece)

    def _end(self, piece: bytes) -> bytes | _Oversized:
        """The line that `piece` ends."""
        self._add(piece)
        line = b"".join(self._parts) if self._head is None else _Oversized(self._size, self._head, self._tail)
        self._parts, self._size, self._head, self._tail = [], 0, None, b""
        return line


def _response_id(head: bytes, tail: bytes) -> int | str | None:
    """The id of the response a line was meant to be, if its ends show it is one."""
    kind = _HEAD.match(head)
    if kind is None or kind[2] == b"method":
        return None
    found = _ID.search(kind[1]) or _TAIL.search(tail)
    try:
        value = json.loads(found[1]) if found else None
    except ValueError:
        return None
    return value if type(value) in (int, str) else None  # not a bool, float or null


class StdioTransport:
    """Runs an MCP server as a subprocess; an mcp `Transport` (pass it to `mcp.Client`). Single use."""

    def __init__(
        self,
        command: str,
        args: list[str],
        env: dict[str, str] | None = None,
        cwd: str | None = None,
        *,
        server_name: str,
        max_message_bytes: int | None = None,
    ) -> None:
        self.command, self.args, self.env, self.cwd = command, args, env, cwd
        self.server_name, self.max_message_bytes = server_name, max_message_bytes
        self._stderr: deque[str] = deque(maxlen=_STDERR_TAIL_LINES)
        self._process: ServerProcess | None = None
        self._cm: AbstractAsyncContextManager[TransportStreams] | None = None
        self._closing = False
        self._abandoned = False
        self._last_read = 0.0
        self._piece_since: float | None = None
        """When the piece of stdin being written started waiting; None while nothing waits."""

    @property
    def returncode(self) -> int | None:
        """The server's exit status once it has exited, else None."""
        return self._process.returncode if self._process is not None else None

    @property
    def pid(self) -> int | None:
        """The server's process id once started."""
        return self._process.pid if self._process is not None else None

    def write_stalled(self) -> float:
        """Seconds the write under way has waited for the server to read its stdin (0 when
        nothing waits)."""
        since = self._piece_since
        return 0.0 if since is None else time.monotonic() - since

    def abandon(self) -> None:
        """The server stopped reading its stdin: on close, end it without waiting for it to
        act on stdin EOF, which it would never read."""
        self._abandoned = True

    def stderr_tail(self) -> str:
        """The server's last stderr lines, to show in an error when it dies: at most
        `MAX_QUOTED_CHARS` of them (their start and their end), as the bridge quotes a server."""
        return capped("\n".join(self._stderr))

    def end_reason(self) -> str:
        """Why the session ended, for an error: the server exited (with this code and these last stderr lines)."""
        code = self.returncode
        reason = "the server process exited" + (f" with code {code}" if code is not None else "")
        tail = self.stderr_tail()
        return f"{reason}; its last stderr lines:\n{tail}" if tail else reason

    async def __aenter__(self) -> TransportStreams:
        if self._cm is not None:
            raise RuntimeError("a StdioTransport can be entered only once; make a new one to reconnect")
        self._cm = self._run()
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc_info: Any) -> bool | None:
        assert self._cm is not None
        return await self._cm.__aexit__(*exc_info)

    @asynccontextmanager
    async def _run(self) -> AsyncIterator[TransportStreams]:
        """The SDK's stdio_client, with our stdout reader, a stderr reader and an exit watcher."""
        env = get_default_environment() | (self.env or {})
        if sys.platform == "win32":  # pragma: no cover
            command = await anyio.to_thread.run_sync(
                get_windows_executable_command, self.command, abandon_on_cancel=True
            )
            process = await create_windows_process(command, self.args, env, subprocess.PIPE, self.cwd)
        else:
            process = await anyio.open_process(
                [self.command, *self.args], env=env, cwd=self.cwd, stderr=subprocess.PIPE, start_new_session=True
            )
        # No awaits until the task group is entered, or a cancellation would leak the process.
        self._process = process
        read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
        write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](math.inf)  # see the docstring
        writer_done, stderr_done, reader_scope = anyio.Event(), anyio.Event(), anyio.CancelScope()

        async def read_stdout() -> None:
            try:
                async with read_writer:
                    with reader_scope:
                        await self._pump(process, read_writer, stderr_done)
            finally:
                await drain(process)

        async def write_stdin() -> None:
            assert process.stdin
            try:
                async with write_reader:
                    async for message in write_reader:
                        try:
                            data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                        except ValueError as exc:  # not UTF-8 JSON (a lone surrogate): fail it, not the session
                            await self._refuse(message.message, exc, read_writer)
                            continue
                        await self._write(process.stdin, data.encode())
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await read_writer.aclose()  # the server may live on: end the session rather than hang it
            finally:
                writer_done.set()

        async def read_stderr() -> None:
            try:
                await self._log_stderr(getattr(process, "stderr", None))
            finally:
                stderr_done.set()

        async def watch_exit() -> None:
            """Ends the read stream when the server exits, even if a descendant holds its stdout open."""
            while True:
                await anyio.sleep(_EXIT_POLL)
                if process.returncode is not None and anyio.current_time() - self._last_read >= _EXIT_IDLE:
                    reader_scope.cancel()
                    return

        async with anyio.create_task_group() as tg:
            for task in (read_stdout, write_stdin, read_stderr, watch_exit):
                tg.start_soon(task)
            try:
                yield read_stream, write_stream
            finally:
                self._closing = True
                with anyio.CancelScope(shield=True):  # the SDK's shutdown, every wait bounded
                    read_stream.close()
                    write_stream.close()
                    with anyio.move_on_after(0 if self._abandoned else _WRITER_FLUSH):
                        await writer_done.wait()
                    await stop_server(process, graceful=not self._abandoned)
                    with anyio.move_on_after(_STDERR_GRACE):
                        await stderr_done.wait()
                    for stream in (read_stream, write_stream, read_writer, write_reader):
                        await stream.aclose()
                    await anyio.lowlevel.checkpoint()
                tg.cancel_scope.cancel()
        await anyio.lowlevel.cancel_shielded_checkpoint()

    async def _write(self, stdin: ByteSendStream, data: bytes) -> None:
        """Hands `data` to the pipe a piece at a time, noting when each piece began to wait."""
        try:
            for start in range(0, len(data), _WRITE_PIECE):
                self._piece_since = time.monotonic()
                await stdin.send(data[start : start + _WRITE_PIECE])
        finally:
            self._piece_since = None

    async def _refuse(self, message: types.JSONRPCMessage, exc: ValueError, send: _Send) -> None:
        """A message that cannot be written (the session's door refuses requests and
        notifications first, `refusing_unsendable`; an answer to a server's request may still
        come here): a request is answered with an error at once (its caller need not wait for a
        timeout), anything else is dropped with a warning."""
        request_id = message.id if isinstance(message, types.JSONRPCRequest) else None
        await _fail(
            send, request_id, types.INVALID_PARAMS, f"mcpbridge: {unsendable_text(message, self.server_name, exc)}"
        )

    async def _pump(self, process: ServerProcess, send: _Send, stderr_done: anyio.Event) -> None:
        """Reads stdout until EOF, delivering one message per complete line."""
        assert process.stdout
        lines = _Lines(self.max_message_bytes)
        try:
            while True:
                chunk = await process.stdout.receive()
                self._last_read = anyio.current_time()
                for line in lines.feed(chunk):
                    await self._deliver(line, send)
        except anyio.EndOfStream:
            # Let the exit status and last stderr lines arrive before the session sees the end.
            with anyio.move_on_after(_STDERR_GRACE):
                await stderr_done.wait()
            await wait_for_exit(process, _STDERR_GRACE)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass  # our shutdown closed stdout, or the session is gone
        except OSError:
            if not self._closing:
                logger.warning("reading stdout of MCP server %r failed", self.server_name, exc_info=True)

    async def _deliver(self, line: bytes | _Oversized, send: _Send) -> None:
        """Sends one line on as a message; a line that cannot be one fails its request, if it names one."""
        if isinstance(line, _Oversized):
            problem = (
                f"result of {line.size} bytes exceeds max_result_bytes={self.max_message_bytes}"
                f" for server {self.server_name!r}"
            )
            head, tail = line.head, line.tail
        elif not line.strip():
            return
        else:
            try:
                message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
            except ValueError:
                what = "a JSON-RPC message" if line.decode(errors="replace").encode() == line else "valid UTF-8"
                problem = f"MCP server {self.server_name!r} sent a stdout line of {len(line)} bytes that is not {what}"
                head, tail = line[:_PEEK], line[-_PEEK:]
            else:
                await send.send(SessionMessage(message))
                return
        await _fail(send, _response_id(head, tail), types.INTERNAL_ERROR, problem)

    async def _log_stderr(self, stream: ByteReceiveStream | None) -> None:
        """Logs each stderr line at INFO on `mcpbridge.server.<name>` and keeps the last few."""
        if stream is None:  # pragma: no cover - the Windows fallback process
            return
        log = logging.getLogger(f"mcpbridge.server.{self.server_name}")
        pending = b""
        with suppress(anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            async for chunk in stream:
                *complete, pending = (pending + chunk).split(b"\n")
                if len(pending) > _STDERR_LINE_MAX:
                    complete, pending = [*complete, pending], b""
                for raw in complete:
                    self._stderr.append(raw.rstrip(b"\r").decode(errors="replace"))
                    log.info("%s", self._stderr[-1])
        if pending:
            self._stderr.append(pending.rstrip(b"\r").decode(errors="replace"))
            log.info("%s", self._stderr[-1])


async def _fail(send: _Send, request_id: types.RequestId | None, code: int, problem: str) -> None:
    """Answer request `request_id` with an error at once (its caller need not wait for a
    timeout); a message that names no request is dropped. Either way, one warning."""
    logger.warning("%s; %s", problem, "dropped it" if request_id is None else f"failing request {request_id!r}")
    if request_id is not None:
        error = types.ErrorData(code=code, message=problem)
        await send.send(SessionMessage(types.JSONRPCError(jsonrpc="2.0", id=request_id, error=error)))
