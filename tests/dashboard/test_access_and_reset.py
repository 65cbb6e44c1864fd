"""A fresh start for the next class, and the teacher's switch reaching every page.

`manage.py resetdemo` and the teacher's Reset demo (POST /clusters/<c>/reset) put the demo back to
the course's starting state through the API server: every change is a write in the log (the
page, the flow and every watch see it). "Class may write" reaches every open socket at once as an
`access` message, and the snapshot carries it.
"""

from __future__ import annotations

import json

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.core.management import call_command
from django.test import Client

from cluster.apiserver import service as api
from cluster.controlplane.demo import course_nodes, create_demo
from cluster.models import Cluster, FlowStep
from tests.support.auth import teacher_client
from tests.ws.messages import SCHEMAS, problems
from tests.ws.test_cluster_socket import connect, drain

ACTOR = api.Actor("kubectl", "kubectl/v1.33.1 (linux/amd64)")
MERGE = "application/merge-patch+json"


@pytest.fixture
def demo(db):
    return create_demo()


def a_class_went_by(cluster: Cluster) -> int:
    """What a lesson leaves behind: workloads, pods, labels, a cordon, a taint, a new node, a
    namespace, a class, the switch on, step mode on; the revision it reached."""
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "nginx"},
        "spec": {
            "replicas": 2,
            "selector": {"app": "nginx"},
            "template": {
                "metadata": {"labels": {"app": "nginx"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.15"}]},
            },
        },
    }
    api.create(cluster, rc, ACTOR)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "pod-example"},
        "spec": {"nodeName": "node1", "containers": [{"name": "nginx", "image": "nginx:1.15"}]},
    }
    api.create(cluster, pod, ACTOR)
    api.patch(cluster, "Node", "", "node1", {"metadata": {"labels": {"zz": "cxk"}}}, MERGE, ACTOR)
    api.patch(
        cluster,
        "Node",
        "",
        "node2",
        {"spec": {"unschedulable": True}, "metadata": {"labels": {"lc": "fuheinan"}}},
        MERGE,
        ACTOR,
    )
    api.patch(cluster, "Node", "", "master", {"spec": {"taints": []}}, MERGE, ACTOR)
    node2 = api.get(cluster, "Node", "", "node2")
    node2["status"]["images"] = [*node2["status"]["images"], {"names": ["nginx:1.15"], "sizeBytes": 1}]
    api.update(cluster, node2, ACTOR, subresource="status")
    node3 = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node3"},
        "status": {"capacity": {"cpu": "2", "pods": "110"}},
    }
    api.create(cluster, node3, ACTOR)
    api.create(cluster, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}, ACTOR)
    api.create(
        cluster,
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": "high"},
            "value": 1000,
        },
        ACTOR,
    )
    Cluster.objects.filter(pk=cluster.pk).update(class_may_write=True, step_mode=True, pace_ms=0)
    return Cluster.objects.get(pk=cluster.pk).revision


def assert_at_the_course_start(cluster: Cluster) -> None:
    nodes = {node["metadata"]["name"]: node for node in api.list_objects(cluster, "Node")[0]}
    course = {body["metadata"]["name"]: body for body in course_nodes()}
    assert sorted(nodes) == sorted(course)
    for name, body in course.items():
        assert nodes[name]["metadata"]["labels"] == body["metadata"]["labels"], name
        assert nodes[name]["spec"].get("taints") == body["spec"].get("taints"), name
        assert not nodes[name]["spec"].get("unschedulable"), name
        assert nodes[name]["status"]["images"] == body["status"]["images"], name
    for kind in ("Pod", "ReplicationController", "ReplicaSet", "Deployment", "Service", "ConfigMap"):
        left = [o["metadata"]["name"] for o in api.list_objects(cluster, kind)[0]]
        left = [name for name in left if name != "kube-root-ca.crt"]  # every namespace's, kept
        assert left in ([], ["kubernetes"]), (kind, left)
    assert [n["metadata"]["name"] for n in api.list_objects(cluster, "Namespace")[0]] == [
        "default",
        "kube-node-lease",
        "kube-public",
        "kube-system",
    ]
    classes = {c["metadata"]["name"] for c in api.list_objects(cluster, "PriorityClass")[0]}
    assert classes == {"system-cluster-critical", "system-node-critical"}
    fresh = Cluster.objects.get(pk=cluster.pk)
    assert (fresh.class_may_write, fresh.step_mode, fresh.pace_ms) == (False, False, settings.KUBESIM_PACE_MS)


def test_resetdemo_puts_the_course_back_through_the_api_server(demo, capsys):
    before = a_class_went_by(demo)
    call_command("resetdemo")
    assert "back to the course's starting state" in capsys.readouterr().out
    assert_at_the_course_start(demo)
    # Recorded like any other write: in the log (watches and the page see it) and in the flow.
    log = api.events_since(demo, before)
    assert ("DELETED", "ReplicationController", "nginx") in {(e.type, e.kind, e.name) for e in log}
    assert ("DELETED", "Node", "node3") in {(e.type, e.kind, e.name) for e in log}
    assert ("MODIFIED", "Node", "node1") in {(e.type, e.kind, e.name) for e in log}
    # The flow tells it: the RC's trace ends, deleted by the reset (an API client).
    ending = FlowStep.objects.get(trace__cluster=demo, trace__name="nginx", step=0, final=True)
    assert (ending.ending, ending.title_en) == ("deleted", "Deleted by an API client")
    call_command("resetdemo")  # a second time: nothing left to undo, nothing breaks
    assert_at_the_course_start(demo)


def test_the_teachers_reset_button_is_the_teachers_and_only_for_a_class_demo(demo):
    a_class_went_by(demo)
    viewer = Client().post("/clusters/demo/reset", "{}", "application/json")
    assert viewer.status_code == 403
    assert (
        viewer.json()["message"]
        == 'forbidden: User "system:anonymous" cannot post path "/clusters/demo/reset"'
    )
    assert api.get(demo, "Node", "", "node1")["metadata"]["labels"]["zz"] == "cxk"  # refused: unchanged
    answer = teacher_client().post(
        "/clusters/demo/reset", "{}", "application/json", HTTP_X_KUBESIM_CLIENT="web"
    )
    assert answer.status_code == 200 and answer.json()["class_may_write"] is False
    assert_at_the_course_start(demo)
    sandbox = Cluster.objects.create(name="lab-0123456789", public=False)
    refused = teacher_client().post("/clusters/lab-0123456789/reset", "{}", "application/json")
    assert refused.status_code == 400 and "sandbox" in refused.json()["message"]
    assert Cluster.objects.get(pk=sandbox.pk).revision == 0


@pytest.mark.django_db(transaction=True)
async def test_class_may_write_reaches_every_open_socket_at_once(demo):
    communicator, snapshot = await connect()
    try:
        assert snapshot["class_may_write"] is False
        await drain(communicator)
        for on in (True, False):
            body = json.dumps({"class_may_write": on})
            answer = await database_sync_to_async(teacher_client().post)(
                "/clusters/demo/policy", body, "application/json"
            )
            assert answer.status_code == 200
            messages = [m for m in await drain(communicator) if m["type"] == "access"]
            assert messages == [{"type": "access", "class_may_write": on}]
            assert problems(messages[0], SCHEMAS["access"]) == []
        again, fresh = await connect()
        await again.disconnect()
        assert fresh["class_may_write"] is False and problems(fresh, SCHEMAS["snapshot"]) == []
    finally:
        await communicator.disconnect()
