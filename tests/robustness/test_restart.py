"""Start-up heals what a `kill -9` left: no orphans, no duplicate pods, no trace stuck running."""

from __future__ import annotations

import time

from bench.hostile.bodies import valid
from tests.robustness.support import not_being_deleted, orphans, pods, start
from tests.scaleout import support
from tests.scaleout.support import wait_for


def running_traces(client) -> dict[str, dict]:
    snapshot = client.request("GET", f"/clusters/{client.cluster}/snapshot").json()
    return {trace["id"]: trace for trace in snapshot["traces"] if not trace.get("finished_at")}


def live_objects(client) -> set[tuple[str, str]]:
    kinds = ("ReplicationController", "ReplicaSet", "Deployment", "Pod", "Node")
    return {(kind, obj["metadata"]["name"]) for kind in kinds for obj in client.items(kind, None)}


def test_kill_9_mid_creation_then_a_restart_leaves_exactly_the_replicas(embedded):
    client = start(embedded)
    body = valid("ReplicationController", "web")
    body["spec"]["replicas"] = 300
    assert client.create(body).status == 201
    wait_for(lambda: len(pods(client)) >= 20, 30, "the creation to be under way")
    embedded.kill(embedded.server)  # SIGKILL in the middle of the scale-up
    with support.db_connection(embedded.env) as conn:
        assert support.integrity_problems(conn, "demo") == []

    client = start(embedded)
    wait_for(lambda: len(pods(client)) == 300, 90, "300 pods after the restart")
    time.sleep(3.0)
    assert len(pods(client)) == 300, "duplicate pods were created after the restart"
    assert orphans(client) == []


def test_kill_9_right_after_deleting_a_creating_workload_leaves_no_orphan(embedded):
    client = start(embedded)
    body = valid("ReplicationController", "web")
    body["spec"]["replicas"] = 1000
    assert client.create(body).status == 201
    wait_for(lambda: len(pods(client)) >= 20, 30, "the creation to be under way")
    assert client.delete("ReplicationController", "web").status == 200
    embedded.kill(embedded.server)

    client = start(embedded)
    wait_for(lambda: not not_being_deleted(client), 10, "no pod without a deletionTimestamp")
    # The pods the deletion marked are stopped by their kubelets after the restart, then go.
    wait_for(lambda: not pods(client), 45, "no pod at all")
    time.sleep(2.0)
    assert pods(client) == [] and orphans(client) == []


def test_start_up_collects_leftovers_and_ends_traces_of_objects_that_are_gone(embedded):
    # Leftovers as a crash (or an older version) could leave them: the control plane is off, so
    # nothing reacts while they are made. A DELETE ends its object's trace in the same write, so
    # the trace left running for an object that is gone is made by removing the row underneath.
    client = start(embedded, control_plane=False)
    pod = valid("Pod", "left-behind")
    gone = {"apiVersion": "v1", "kind": "ReplicationController", "name": "gone", "uid": "0" * 8}
    pod["metadata"]["ownerReferences"] = [{**gone, "controller": True}]
    assert client.create(pod).status == 201
    assert client.create(valid("ReplicationController", "vanished")).status == 201
    stuck = [
        trace_id
        for trace_id, trace in running_traces(client).items()
        if (trace["kind"], trace["name"]) == ("ReplicationController", "vanished")
    ]
    assert stuck, "the RC's trace is running before the crash"
    embedded.kill(embedded.server)
    with support.db_connection(embedded.env) as conn:
        support.query(
            conn,
            "DELETE FROM cluster_apiobject WHERE kind = %s AND name = %s",
            ("ReplicationController", "vanished"),
        )
        conn.commit()

    client = start(embedded)
    wait_for(lambda: not pods(client), 10, "the left-behind pod to be collected")
    wait_for(lambda: not set(stuck) & set(running_traces(client)), 10, "the stuck trace to end")
    live = live_objects(client)
    assert all((t["kind"], t["name"]) in live for t in running_traces(client).values())
