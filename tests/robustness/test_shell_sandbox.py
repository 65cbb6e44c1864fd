"""A hostile student's commands against a live server, through kubectl's exec websocket: the server
stops on SIGTERM within 5 s with a runaway command inside, and forty execs from one user leave
everyone else's requests unaffected (docs/shell.md)."""

from __future__ import annotations

import base64
import os
import signal
import socket
import time
import urllib.parse
import urllib.request

from tests.robustness.test_stop import STOP_SECONDS, stopped_within
from tests.scaleout import workloads
from tests.scaleout.support import free_port, wait_for
from tests.support.auth import teacher_headers

# An exponential-time pattern for a backtracking engine (seconds at 25 a's, doubling with each).
CATASTROPHIC = "echo " + "a" * 40 + "b | grep -E '(a+)+$'"
RUNAWAY = "while true; do :; done"


def open_exec(port: int, pod: str, script: str) -> tuple[socket.socket, int]:
    """kubectl's pods/exec websocket (v5.channel.k8s.io, the teacher's bearer token), opened and
    left open: (the socket, the handshake's HTTP status: 101 when the command runs)."""
    query = urllib.parse.urlencode(
        {"command": ["sh", "-c", script], "stdout": "true", "stderr": "true"}, doseq=True
    )
    path = f"/clusters/demo/api/v1/namespaces/default/pods/{pod}/exec?{query}"
    token = teacher_headers()["Authorization"]
    key = base64.b64encode(os.urandom(16)).decode()
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(
        (
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Sec-WebSocket-Protocol: v5.channel.k8s.io\r\nAuthorization: {token}\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    return sock, int(head.split(b" ", 2)[1]) if head else 0


def running_pod(port: int) -> str:
    base = f"http://127.0.0.1:{port}/clusters/demo"
    workloads.create_rc(base, "shell", 1)
    wait_for(lambda: workloads.running(base, "shell") == 1, 60, "a Running pod")
    return workloads.pods(base, "shell")[0]["metadata"]["name"]


def anonymous_get(port: int) -> float:
    """Seconds one anonymous read of the pods takes."""
    started = time.monotonic()
    url = f"http://127.0.0.1:{port}/clusters/demo/api/v1/namespaces/default/pods"
    with urllib.request.urlopen(url, timeout=60) as response:
        response.read()
    return time.monotonic() - started


def test_serve_stops_within_5_s_with_a_runaway_command_inside(embedded):
    embedded.env.update(KUBESIM_SHELL_MAX_STEPS="1000000000", KUBESIM_SHELL_CPU_SECONDS="100000")
    port = free_port()
    server = embedded.serve(port, control_plane=True)
    pod = running_pod(port)
    sock, status = open_exec(port, pod, f"{CATASTROPHIC}; {RUNAWAY}")
    try:
        assert status == 101
        time.sleep(2.0)  # the command is running away in its thread
        took = stopped_within(server, signal.SIGTERM)
    finally:
        sock.close()
    assert took < STOP_SECONDS, f"serve took {took:.1f} s to stop"
    assert server.returncode == 0


def test_forty_execs_from_one_user_leave_everyone_elses_requests_unaffected(embedded):
    port = free_port()
    embedded.serve(port, control_plane=True)
    pod = running_pod(port)
    idle = sorted(anonymous_get(port) for _ in range(10))
    opened = [open_exec(port, pod, "sleep 30") for _ in range(40)]
    try:
        busy = sorted(anonymous_get(port) for _ in range(20))
        statuses = [status for _sock, status in opened]
        assert statuses.count(101) == 4, statuses  # the user's cap; the rest refused before the upgrade
        assert max(busy) < max(1.0, 5 * idle[len(idle) // 2]), (idle, busy)
    finally:
        for sock, _status in opened:
            sock.close()
