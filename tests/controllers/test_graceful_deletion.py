"""Graceful deletion through the REST API and the kubelets, on the injected clock.

A pod on a node is Terminating (deletionTimestamp, deletionGracePeriodSeconds) until its kubelet
has stopped the containers (nginx 1 s; busybox's `sleep` ignores SIGTERM and waits out the grace
period), then it is gone; a pod never bound goes at once; grace 0 removes at once.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client

from cluster.apiserver import service as api
from cluster.models import Cluster, FlowStep, FlowTrace
from tests.support.demo import KUBECTL, drive, example

pytestmark = pytest.mark.django_db(transaction=True)
PODS = "/clusters/demo/api/v1/namespaces/default/pods"
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"


def pod(name: str, image: str = "nginx:1.27", node: str = "node1", **spec) -> dict:
    container = {"name": "c", "image": image}
    if image.startswith("busybox"):
        container["command"] = ["sleep", "3600"]
    body = {"containers": [container], **spec}
    if node:
        body["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": {"app": name}},
        "spec": body,
    }


def status_column(client, name: str) -> str:
    table = client.get(f"{PODS}/{name}", headers={"Accept": TABLE}).json()
    return table["rows"][0]["cells"][2]


def delete(client, name: str, body: dict | None = None, query: str = ""):
    return client.delete(f"{PODS}/{name}{query}", json.dumps(body or {}), content_type="application/json")


def gone(name: str) -> bool:
    try:
        api.get(Cluster.objects.get(name="demo"), "Pod", "default", name)
    except api.ApiError as err:
        return err.code == 404
    return False


def test_a_running_nginx_pod_is_terminating_until_its_kubelet_stopped_it(demo, teacher_client, fake_clock):
    api.create(demo, pod("web"), KUBECTL)
    drive()
    answer = delete(teacher_client, "web")
    assert answer.status_code == 200
    meta = answer.json()["metadata"]
    assert meta["deletionGracePeriodSeconds"] == 30 and meta["deletionTimestamp"]
    drive()
    assert status_column(teacher_client, "web") == "Terminating"
    events, _ = api.list_objects(demo, "Event", "default", field_selector="involvedObject.name=web")
    assert ("Killing", "Stopping container c") in {(e["reason"], e["message"]) for e in events}
    fake_clock.advance(0.5)
    drive()
    assert not gone("web")
    fake_clock.advance(0.5)  # nginx's fast shutdown took 1 s: the kubelet deletes it with grace 0
    drive()
    assert gone("web")
    trace = FlowTrace.objects.get(cluster=demo, kind="Pod", name="web", verb="create")
    ending = FlowStep.objects.filter(trace=trace, step=0).last()
    assert trace.finished_at is not None
    assert ending is None or ending.ending == "completed"  # the bare pod's trace had completed


def test_a_process_that_ignores_sigterm_waits_out_the_grace_period_which_a_second_delete_shortens(
    demo, teacher_client, fake_clock
):
    api.create(demo, pod("sleeper", "busybox:1.36", terminationGracePeriodSeconds=20), KUBECTL)
    drive()
    assert delete(teacher_client, "sleeper").json()["metadata"]["deletionGracePeriodSeconds"] == 20
    drive()
    fake_clock.advance(10)
    drive()
    assert status_column(teacher_client, "sleeper") == "Terminating"
    # A longer period changes nothing; a shorter one brings the end forward (kubectl --grace-period=1).
    assert (
        delete(teacher_client, "sleeper", {"gracePeriodSeconds": 60}).json()["metadata"][
            "deletionGracePeriodSeconds"
        ]
        == 20
    )
    assert (
        delete(teacher_client, "sleeper", query="?gracePeriodSeconds=12").json()["metadata"][
            "deletionGracePeriodSeconds"
        ]
        == 12
    )
    drive()
    fake_clock.advance(1.5)
    drive()
    assert not gone("sleeper")
    fake_clock.advance(0.5)  # 12 s after the kubelet saw the deletion: killed
    drive()
    assert gone("sleeper")


def test_an_unbound_pod_and_a_forced_deletion_go_at_once(demo, teacher_client):
    api.create(demo, pod("nowhere", node="", nodeSelector={"zone": "mars"}), KUBECTL)
    drive()
    answer = delete(teacher_client, "nowhere")
    assert answer.status_code == 200 and "deletionTimestamp" not in answer.json()["metadata"]
    assert gone("nowhere")
    api.create(demo, pod("forced"), KUBECTL)
    drive()
    # kubectl delete --force --grace-period=0
    answer = delete(teacher_client, "forced", {"gracePeriodSeconds": 0, "propagationPolicy": "Background"})
    assert answer.status_code == 200 and gone("forced")


def test_a_user_deleted_replica_is_replaced_at_once_and_its_trace_ends_when_it_is_gone(
    demo, teacher_client, fake_clock
):
    api.create(demo, example("rc-nginx.yaml"), KUBECTL)
    drive()
    items, _ = api.list_objects(demo, "Pod", "default", label_selector="app=nginx")
    victim = items[0]["metadata"]["name"]
    created = FlowTrace.objects.get(cluster=demo, kind="ReplicationController", verb="create")
    delete(teacher_client, victim)
    drive()
    items, _ = api.list_objects(demo, "Pod", "default", label_selector="app=nginx")
    active = [p for p in items if not p["metadata"].get("deletionTimestamp")]
    assert len(items) == 4 and len(active) == 3 and all(p["status"]["phase"] == "Running" for p in active)
    status = api.get(demo, "ReplicationController", "default", "nginx")["status"]
    assert status["replicas"] == 3  # the terminating pod does not count
    deleted = FlowStep.objects.filter(trace=created, step=0, ending="deleted", object_name=victim)
    assert not deleted.exists()  # not before the pod is really gone
    fake_clock.advance(1)
    drive()
    assert gone(victim)


def test_bad_grace_periods_and_preconditions_are_statuses(demo, teacher_client):
    api.create(demo, pod("web"), KUBECTL)
    answer = delete(teacher_client, "web", {"gracePeriodSeconds": "30"})
    assert answer.status_code == 400 and answer.json()["kind"] == "Status"
    assert (
        "cannot unmarshal string into Go struct field DeleteOptions.gracePeriodSeconds"
        in answer.json()["message"]
    )
    answer = delete(teacher_client, "web", query="?gracePeriodSeconds=soon")
    assert (
        answer.status_code == 400
        and answer.json()["message"] == 'strconv.ParseInt: parsing "soon": invalid syntax'
    )
    answer = delete(teacher_client, "web", {"preconditions": {"uid": "not-this-one"}})
    assert (
        answer.status_code == 409
        and "Precondition failed: UID in precondition: not-this-one" in answer.json()["message"]
    )
    assert not gone("web") and not api.get(demo, "Pod", "default", "web")["metadata"].get("deletionTimestamp")


def test_deletecollection_deletes_what_the_selector_matches(demo, teacher_client):
    for name, app in (("a", "x"), ("b", "x"), ("c", "y")):
        body = pod(name, node="", nodeSelector={"zone": "mars"})
        body["metadata"]["labels"] = {"app": app}
        api.create(demo, body, KUBECTL)
    answer = teacher_client.delete(f"{PODS}?labelSelector=app%3Dx")
    assert answer.status_code == 200 and answer.json()["kind"] == "PodList"
    assert sorted(p["metadata"]["name"] for p in answer.json()["items"]) == ["a", "b"]
    left, _ = api.list_objects(demo, "Pod", "default")
    assert [p["metadata"]["name"] for p in left] == ["c"]
    # Not across namespaces (kube-apiserver serves no DELETE on the cluster-wide path).
    assert teacher_client.delete("/clusters/demo/api/v1/pods").status_code == 405
    # Anonymous callers may not.
    refused = Client().delete(f"{PODS}?labelSelector=app%3Dy")
    assert refused.status_code == 403 and "deletecollection" in refused.json()["message"]


def test_lists_page_with_limit_and_continue(demo, teacher_client):
    for index in range(5):
        api.create(demo, pod(f"p{index}", node="", nodeSelector={"zone": "mars"}), KUBECTL)
    first = teacher_client.get(f"{PODS}?limit=2").json()
    assert [p["metadata"]["name"] for p in first["items"]] == ["p0", "p1"]
    assert first["metadata"]["remainingItemCount"] == 3 and first["metadata"]["continue"]
    api.create(demo, pod("p9", node="", nodeSelector={"zone": "mars"}), KUBECTL)  # after the first page
    second = teacher_client.get(f"{PODS}?limit=2&continue={first['metadata']['continue']}").json()
    assert [p["metadata"]["name"] for p in second["items"]] == ["p2", "p3"]
    assert second["metadata"]["resourceVersion"] == first["metadata"]["resourceVersion"]
    last = teacher_client.get(f"{PODS}?limit=2&continue={second['metadata']['continue']}").json()
    assert [p["metadata"]["name"] for p in last["items"]] == ["p4"]  # consistent: p9 came later
    assert "continue" not in last["metadata"]
    table = teacher_client.get(f"{PODS}?limit=4", headers={"Accept": TABLE}).json()
    assert len(table["rows"]) == 4 and table["metadata"]["continue"]
    bad = teacher_client.get(f"{PODS}?limit=2&continue=%%%")
    assert bad.status_code == 400 and bad.json()["message"].startswith("invalid continue token: ")


def console(client, command: str) -> dict:
    answer = client.post("/clusters/demo/ui/console", json.dumps({"command": command}), "application/json")
    assert answer.status_code == 200
    return answer.json()


def test_the_web_consoles_delete_takes_kubectls_grace_flags(demo, teacher_client):
    api.create(demo, pod("web"), KUBECTL)
    api.create(demo, pod("db"), KUBECTL)
    drive()
    # No control plane leads this cluster (the test drives it): nothing to wait for.
    assert console(teacher_client, "delete pod web --grace-period=5")["output"] == 'pod "web" deleted\n'
    assert api.get(demo, "Pod", "default", "web")["metadata"]["deletionGracePeriodSeconds"] == 5
    assert "Terminating" in console(teacher_client, "get pod web")["output"]
    forced = console(teacher_client, "delete pod db --force --grace-period=0")["output"]
    assert forced == (
        "Warning: Immediate deletion does not wait for confirmation that the running resource has been "
        'terminated. The resource may continue to run on the cluster indefinitely.\npod "db" force deleted\n'
    )
    assert gone("db")
