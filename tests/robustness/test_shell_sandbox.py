"""A hostile student's commands against a live server: the server stops on SIGTERM within 5 s with a
runaway command inside (docs/shell.md)."""

from __future__ import annotations

import contextlib
import json
import signal
import threading
import time
import urllib.request

from tests.robustness.test_stop import STOP_SECONDS, stopped_within
from tests.scaleout import workloads
from tests.scaleout.support import free_port, wait_for
from tests.support.auth import teacher_headers

# An exponential-time pattern for a backtracking engine (seconds at 25 a's, doubling with each).
CATASTROPHIC = "echo " + "a" * 40 + "b | grep -E '(a+)+$'"
FAN_OUT = "echo '. /tmp/f; . /tmp/f' > /tmp/f; . /tmp/f"


def console(port: int, command: str, timeout: float = 60) -> dict:
    """One console command as the teacher (the same user every time)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/clusters/demo/ui/console",
        json.dumps({"command": command}).encode(),
        method="POST",
    )
    request.add_header("Content-Type", "application/json")
    for name, value in teacher_headers().items():
        request.add_header(name, value)
    with urllib.request.urlopen(request, timeout=timeout) as response:
        return json.loads(response.read())


def in_background(port: int, command: str, answers: list) -> threading.Thread:
    def send() -> None:
        with contextlib.suppress(OSError):  # the server stopped under it
            answers.append(console(port, command))

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    return sender


def running_pod(embedded, port: int) -> str:
    base = f"http://127.0.0.1:{port}/clusters/demo"
    workloads.create_rc(base, "shell", 1)
    wait_for(lambda: workloads.running(base, "shell") == 1, 60, "a Running pod")
    return workloads.pods(base, "shell")[0]["metadata"]["name"]


def test_serve_stops_within_5_s_with_a_runaway_command_inside(embedded):
    embedded.env.update(KUBESIM_SHELL_MAX_STEPS="1000000000", KUBESIM_SHELL_CPU_SECONDS="100000")
    port = free_port()
    server = embedded.serve(port, control_plane=True)
    pod = running_pod(embedded, port)
    answers: list = []
    in_background(port, f'exec {pod} -- sh -c "{CATASTROPHIC}; {FAN_OUT}"', answers)
    time.sleep(2.0)  # the command is running away inside its request thread
    assert answers == []
    took = stopped_within(server, signal.SIGTERM)
    assert took < STOP_SECONDS, f"serve took {took:.1f} s to stop"
    assert server.returncode == 0
