"""Controllers stop when told: a 1,000-replica workload deleted or scaled to 0 after one second.

Within 10 s no pod is left without a deletionTimestamp, within 45 s none is left at all, and none
appears afterwards (the creation really stopped), for a ReplicationController, a ReplicaSet and a
Deployment (whose ReplicaSets go too).
"""

from __future__ import annotations

import time

import pytest

from bench.hostile.bodies import valid
from tests.robustness.support import not_being_deleted, orphans, pods, start
from tests.scaleout.support import wait_for

KINDS = ("ReplicationController", "ReplicaSet", "Deployment")


@pytest.mark.parametrize("how", ["delete", "scale to 0"])
@pytest.mark.parametrize("kind", KINDS)
def test_a_thousand_replicas_stop_when_told(embedded, kind, how):
    client = start(embedded)
    body = valid(kind, "big")
    body["spec"]["replicas"] = 1000
    assert client.create(body).status == 201
    wait_for(lambda: pods(client), 30, "the first pods")
    time.sleep(1.0)
    answer = client.delete(kind, "big") if how == "delete" else client.scale(kind, "big", 0)
    assert answer.status == 200, answer.body[:300]
    created = len(pods(client))
    wait_for(lambda: not not_being_deleted(client), 10, "no pod without a deletionTimestamp")
    wait_for(lambda: not pods(client), 45, "no pod at all")
    time.sleep(2.0)
    assert pods(client) == [], "pods were created after the workload was told to stop"
    assert orphans(client) == []
    if kind == "Deployment" and how == "delete":
        assert client.items("ReplicaSet", "default") == []  # kube-system keeps CoreDNS's
    print(f"{kind} {how}: {created} pods existed when told to stop")


def test_replicas_of_a_workload_whose_pods_were_deleted_first_leave_no_orphan(embedded):
    client = start(embedded)
    body = valid("ReplicationController", "twenty")
    body["spec"]["replicas"] = 20
    assert client.create(body).status == 201
    wait_for(lambda: len(pods(client)) == 20, 30, "20 pods")
    for pod in pods(client):
        client.delete("Pod", pod["metadata"]["name"])
    assert client.delete("ReplicationController", "twenty").status == 200
    wait_for(lambda: not pods(client), 10, "no pod")
    time.sleep(2.0)
    assert pods(client) == [] and orphans(client) == []
