"""Local TCP listeners that record every connection: one answers nothing and closes, one
accepts and never answers (a target that would freeze a blocking `urlopen`)."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class Listener:
    port: int
    connections: list[tuple[str, int]] = field(default_factory=list)


@contextlib.contextmanager
def listening(*, answer: bool) -> Iterator[Listener]:
    """A loopback listener on a free port; with `answer=False` accepted sockets stay open, silent."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(16)
    sock.settimeout(0.1)
    listener = Listener(port=sock.getsockname()[1])
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = sock.accept()
            except (TimeoutError, OSError):
                continue
            listener.connections.append(peer)
            if answer:
                conn.close()
            else:
                held.append(conn)

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield listener
    finally:
        stop.set()
        thread.join(timeout=2)
        for conn in held:
            conn.close()
        sock.close()
