"""Durability of the embedded default: state survives a restart; a kill mid-trace half-writes nothing."""

from __future__ import annotations

import signal
import time

from tests.scaleout import support, workloads
from tests.scaleout.support import free_port, request, wait_for


def test_embedded_state_survives_a_restart_of_the_server(embedded):
    port = free_port()
    server = embedded.serve(port, control_plane=True)
    base = f"http://127.0.0.1:{port}/clusters/demo"
    workloads.create_rc(base, "web", 3)
    wait_for(lambda: workloads.running(base, "web") == 3, 30, "3 Running pods")
    before = {pod["metadata"]["uid"]: pod["spec"]["nodeName"] for pod in workloads.pods(base, "web")}
    revision = request(f"{base}/snapshot")["revision"]
    embedded.kill(server, signal.SIGTERM)  # as Ctrl-C on `make run`

    embedded.serve(port, control_plane=True)
    time.sleep(2.0)  # the restarted control plane lists and settles
    after = {pod["metadata"]["uid"]: pod["spec"]["nodeName"] for pod in workloads.pods(base, "web")}
    assert after == before, "pods were lost, replaced or moved by the restart"
    assert workloads.running(base, "web") == 3
    assert request(f"{base}/snapshot")["revision"] >= revision
    assert workloads.holder(base).endswith(f"_serve-{port}"), "the restarted server leads again"
    workloads.create_rc(base, "api", 1)
    wait_for(lambda: workloads.running(base, "api") == 1, 30, "a new pod after the restart")


def test_killing_the_embedded_server_mid_trace_leaves_no_half_written_object(embedded):
    embedded.env["KUBESIM_PACE_MS"] = "40"
    port = free_port()
    server = embedded.serve(port, control_plane=True)
    base = f"http://127.0.0.1:{port}/clusters/demo"
    workloads.create_rc(base, "web", 20)
    wait_for(lambda: workloads.bound(base, "web") >= 3, 30, "the first pods to be bound")
    embedded.kill(server)  # SIGKILL: no clean shutdown
    with support.db_connection(embedded.env) as conn:
        assert support.integrity_problems(conn, "demo") == []

    embedded.serve(port, control_plane=True)
    wait_for(lambda: workloads.running(base, "web") == 20, 60, "20 Running pods after the restart")
    time.sleep(1.0)
    names = [pod["metadata"]["name"] for pod in workloads.pods(base, "web")]
    assert len(names) == 20
    assert workloads.trace_problems(workloads.trace_of(base, "ReplicationController", "web"), names) == []
    with support.db_connection(embedded.env) as conn:
        assert support.integrity_problems(conn, "demo") == []
