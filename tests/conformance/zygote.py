"""Start `client.py` for each scenario in ~50 ms instead of ~4 s of CPU: a process that has
imported it (mcp, LangChain, every installed plugin) forks one child per scenario. The suite
runs `launch.py`, which hands this process its argv, environment and stdio (the descriptors
themselves, over a Unix socket), waits, and exits with the child's status. The child is the
same client, run with the scenario's own URL and environment.

`python zygote.py SOCKET`: serves until killed."""

from __future__ import annotations

import importlib
import json
import os
import signal
import socket
import sys
import threading
from importlib.metadata import entry_points
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import client

for plugin in entry_points(group="mcpbridge"):  # what MCPBridge would import in each child
    importlib.import_module(plugin.value.split(":")[0])


def serve(connection: socket.socket) -> None:
    with connection:
        message, fds, _, _ = socket.recv_fds(connection, 1 << 20, 3)
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:  # the client: the launcher's stdio, argv and environment
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            os.environ.clear()
            os.environ.update(request["env"])
            sys.argv = request["argv"]
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            code = 0
            try:
                client.main()
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else 1
            except BaseException:
                import traceback

                traceback.print_exc()
                code = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        for fd in fds:
            os.close(fd)
        done = threading.Event()
        threading.Thread(target=_kill_when_gone, args=(connection.dup(), pid, done), daemon=True).start()
        _, status = os.waitpid(pid, 0)
        done.set()
        connection.send(str(os.waitstatus_to_exitcode(status)).encode())


def _kill_when_gone(connection: socket.socket, pid: int, done: threading.Event) -> None:
    """The suite killed the launcher (its timeout): end the client too."""
    with connection:
        if connection.recv(1) == b"" and not done.is_set():
            os.kill(pid, signal.SIGKILL)


def main() -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    server.bind(sys.argv[1])
    server.listen()
    print("ready", flush=True)
    while True:
        connection, _ = server.accept()
        threading.Thread(target=serve, args=(connection,), daemon=True).start()


if __name__ == "__main__":
    main()
