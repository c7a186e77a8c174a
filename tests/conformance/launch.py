"""What the conformance suite runs per scenario (`python -I -S launch.py URL`): hands its argv,
environment and stdio to the zygote (`zygote.py`, at `$MCPBRIDGE_CONFORMANCE_ZYGOTE`), which
forks `client.py` with them, and exits with the client's status."""

import json
import os
import socket
import sys

with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as zygote:
    zygote.connect(os.environ["MCPBRIDGE_CONFORMANCE_ZYGOTE"])
    request = {"argv": ["client.py", *sys.argv[1:]], "env": dict(os.environ)}
    socket.send_fds(zygote, [json.dumps(request).encode()], [0, 1, 2])
    status = zygote.recv(16)
sys.exit(int(status) if status else 1)
