"""The server always stops: Ctrl-C or SIGTERM ends `serve` and `controlplane` within 5 s whatever
is running, a request thread still busy included, and leaves nothing half-written."""

from __future__ import annotations

import contextlib
import json
import signal
import sqlite3
import threading
import time
import urllib.request

import pytest

from tests.scaleout import support, workloads
from tests.scaleout.support import free_port, wait_for
from tests.support.auth import teacher_headers

STOP_SECONDS = 5.0


def held_write_lock(env: dict) -> sqlite3.Connection:
    """Another process's transaction holding the database's write lock: whatever writes next waits
    in SQLite's busy handler (20 s), on a thread of its own."""
    holder = sqlite3.connect(env["KUBESIM_SQLITE_PATH"], isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    return holder


def start_up_written(env: dict, quiet_seconds: float = 1.5, timeout: float = 30.0) -> None:
    """Wait until the control plane's start-up writes (the kubelets registering their nodes) are
    done: the cluster's revision stays put for `quiet_seconds`. The request below is then the only
    writer the held lock keeps waiting, which is what these tests are about."""
    deadline, last, since = time.monotonic() + timeout, None, time.monotonic()
    with support.db_connection(env) as conn:
        while time.monotonic() < deadline:
            revision = support.query(conn, "SELECT revision FROM cluster_cluster WHERE name = %s", ("demo",))
            if revision != last:
                last, since = revision, time.monotonic()
            elif time.monotonic() - since >= quiet_seconds:
                return
            time.sleep(0.2)
    pytest.fail("the control plane kept writing for 30 s after start-up")


def post_config_map(port: int, name: str) -> threading.Thread:
    """A write sent from a thread of the test's own: its request thread in the server will be busy."""
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    url = f"http://127.0.0.1:{port}/clusters/demo/api/v1/namespaces/default/configmaps"
    request = urllib.request.Request(url, json.dumps(body).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    for header, value in teacher_headers().items():
        request.add_header(header, value)

    def send() -> None:
        with contextlib.suppress(OSError):  # the server went away: what the test expects
            urllib.request.urlopen(request, timeout=30).read()

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    return sender


def stopped_within(child, sig: int) -> float:
    """Send `sig` and return how long the process took to end (the test fails if it never does)."""
    started = time.monotonic()
    child.send_signal(sig)
    try:
        child.wait(30)
    except Exception:
        pytest.fail(f"still running 30 s after {signal.Signals(sig).name}")
    return time.monotonic() - started


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "Ctrl-C"])
def test_serve_stops_within_5_s_while_a_request_thread_is_busy(embedded, sig):
    port = free_port()
    server = embedded.serve(port, control_plane=True)
    start_up_written(embedded.env)
    holder = held_write_lock(embedded.env)
    try:
        post_config_map(port, "waiting")
        time.sleep(1.0)  # the request is in its thread, waiting for the lock
        took = stopped_within(server, sig)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert took < STOP_SECONDS, f"serve took {took:.1f} s to stop"
    assert server.returncode == 0
    with support.db_connection(embedded.env) as conn:
        assert support.query(
            conn, "SELECT COUNT(*) FROM cluster_apiobject WHERE name = %s", ("waiting",)
        ) == [(0,)]
        assert support.integrity_problems(conn, "demo") == []


def test_serve_stopped_hands_the_lease_back_and_leads_again_at_once(embedded):
    port = free_port()
    server = embedded.serve(port, control_plane=True)
    base = f"http://127.0.0.1:{port}/clusters/demo"
    workloads.create_rc(base, "web", 2)
    wait_for(lambda: workloads.running(base, "web") == 2, 30, "2 Running pods")
    assert stopped_within(server, signal.SIGTERM) < STOP_SECONDS
    embedded.serve(port, control_plane=True)
    assert workloads.holder(base).endswith(f"_serve-{port}")
    workloads.create_rc(base, "api", 1)
    wait_for(lambda: workloads.running(base, "api") == 1, 30, "a new pod after the restart")


def test_controlplane_stops_within_5_s_while_a_database_call_is_busy(embedded):
    port = free_port()
    embedded.serve(port)  # serve only: the control plane is the process below
    plane = embedded.controlplane("stop-test")
    base = f"http://127.0.0.1:{port}/clusters/demo"
    wait_for(lambda: workloads.holder(base).startswith("stop-test"), 30, "the control plane to lead")
    workloads.create_rc(base, "web", 150)
    holder = held_write_lock(embedded.env)  # mid scale-up: its next batch waits for the lock
    try:
        time.sleep(1.0)
        took = stopped_within(plane, signal.SIGTERM)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert took < STOP_SECONDS, f"controlplane took {took:.1f} s to stop"
    assert plane.returncode == 0
