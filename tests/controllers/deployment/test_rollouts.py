"""The Deployment controller on a live control plane: revisions on the Deployment, change-cause,
an undo that completes, pause and resume, the progress deadline, the revision history's limit."""

from __future__ import annotations

import json

import pytest

from cluster.apiserver import service as api
from cluster.controllers.deployment import util
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)
MERGE = "application/merge-patch+json"


def settle(fake_clock, seconds: float = 2) -> None:
    drive()
    fake_clock.advance(seconds)
    drive()


def web(replicas: int = 1, **spec) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx:1.15"}]},
            },
            **spec,
        },
    }


def set_image(cluster, image: str) -> None:
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "nginx", "image": image}]}}}}
    api.patch(
        cluster, "Deployment", "default", "web", patch, "application/strategic-merge-patch+json", KUBECTL
    )


def replica_sets(cluster) -> dict[str, dict]:
    items, _ = api.list_objects(cluster, "ReplicaSet", "default")
    return {util.annotations(rs)[util.REVISION]: rs for rs in items}


def progressing(cluster) -> dict:
    return util.get_condition(api.get(cluster, "Deployment", "default", "web")["status"], util.PROGRESSING)


def undo_to(cluster, revision: str) -> None:
    """What `kubectl rollout undo` sends: a JSON patch of the template and the annotations."""
    old = replica_sets(cluster)[revision]
    template = json.loads(json.dumps(old["spec"]["template"]))
    del template["metadata"]["labels"][util.HASH_LABEL]
    current = api.get(cluster, "Deployment", "default", "web")
    annotations = {k: v for k, v in util.annotations(current).items() if k in util.ANNOTATIONS_TO_SKIP}
    annotations |= {k: v for k, v in util.annotations(old).items() if k not in util.ANNOTATIONS_TO_SKIP}
    patch = [
        {"op": "replace", "path": "/spec/template", "value": template},
        {"op": "replace", "path": "/metadata/annotations", "value": annotations},
    ]
    api.patch(cluster, "Deployment", "default", "web", patch, "application/json-patch+json", KUBECTL)


def test_the_deployment_carries_its_revision_and_its_replica_sets_the_change_cause(demo, fake_clock):
    drive()
    api.create(demo, web(), KUBECTL)
    drive()
    assert util.annotations(api.get(demo, "Deployment", "default", "web")) == {util.REVISION: "1"}
    set_image(demo, "nginx:1.16")
    cause = {"metadata": {"annotations": {"kubernetes.io/change-cause": "image updated to 1.16"}}}
    api.patch(demo, "Deployment", "default", "web", cause, MERGE, KUBECTL)
    settle(fake_clock)
    assert util.annotations(api.get(demo, "Deployment", "default", "web"))[util.REVISION] == "2"
    sets = replica_sets(demo)
    assert util.annotations(sets["2"])["kubernetes.io/change-cause"] == "image updated to 1.16"
    assert "kubernetes.io/change-cause" not in util.annotations(sets["1"])
    assert util.annotations(sets["2"])[util.DESIRED_REPLICAS] == "1"
    assert util.annotations(sets["2"])[util.MAX_REPLICAS] == "2"


def test_undoing_a_broken_image_completes_with_the_old_image(demo, fake_clock):
    drive()
    api.create(demo, web(), KUBECTL)
    settle(fake_clock)
    set_image(demo, "nginx:no-such-tag")
    settle(fake_clock)
    sets = replica_sets(demo)
    assert util.replicas(sets["1"]) == 1 and util.replicas(sets["2"]) == 1  # stuck: maxUnavailable is 0
    undo_to(demo, "1")
    settle(fake_clock)
    settle(fake_clock)
    sets = replica_sets(demo)
    assert set(sets) == {"2", "3"}  # revision 1's ReplicaSet is the newest again
    assert util.replicas(sets["3"]) == 1 and util.replicas(sets["2"]) == 0
    assert util.annotations(sets["3"])[util.REVISION_HISTORY] == "1"
    pods, _ = api.list_objects(demo, "Pod", "default")
    live = [p for p in pods if not p["metadata"].get("deletionTimestamp")]
    assert [p["spec"]["containers"][0]["image"] for p in live] == ["nginx:1.15"]
    status = api.get(demo, "Deployment", "default", "web")["status"]
    assert util.deployment_complete(api.get(demo, "Deployment", "default", "web"), status)
    assert progressing(demo)["reason"] == util.NEW_RS_AVAILABLE
    events, _ = api.list_objects(demo, "Event", "default")
    scaling = [e["message"] for e in events if e["reason"] == "ScalingReplicaSet"]
    assert any(m.startswith("Scaled down replica set web-") and m.endswith("from 1 to 0") for m in scaling)


def test_a_paused_deployment_rolls_out_nothing_until_resumed(demo, fake_clock):
    drive()
    api.create(demo, web(), KUBECTL)
    settle(fake_clock)
    api.patch(demo, "Deployment", "default", "web", {"spec": {"paused": True}}, MERGE, KUBECTL)
    drive()
    condition = progressing(demo)
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "Unknown",
        util.PAUSED,
        "Deployment is paused",
    )
    set_image(demo, "nginx:1.16")
    settle(fake_clock)
    assert set(replica_sets(demo)) == {"1"}
    api.patch(demo, "Deployment", "default", "web", {"spec": {"paused": None}}, MERGE, KUBECTL)
    settle(fake_clock)
    settle(fake_clock)
    assert set(replica_sets(demo)) == {"1", "2"}
    assert progressing(demo)["reason"] == util.NEW_RS_AVAILABLE


def test_no_progress_for_the_deadline_is_progress_deadline_exceeded(demo, fake_clock):
    drive()
    api.create(demo, web(progressDeadlineSeconds=30), KUBECTL)
    settle(fake_clock)
    set_image(demo, "nginx:no-such-tag")
    settle(fake_clock)
    assert progressing(demo)["reason"] == util.REPLICA_SET_UPDATED
    fake_clock.advance(31)
    drive()
    condition = progressing(demo)
    new = next(rs for rs in replica_sets(demo).values() if util.annotations(rs)[util.REVISION] == "2")
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "False",
        util.TIMED_OUT,
        f'ReplicaSet "{new["metadata"]["name"]}" has timed out progressing.',
    )


def test_old_replica_sets_beyond_the_history_limit_are_deleted(demo, fake_clock):
    drive()
    api.create(demo, web(revisionHistoryLimit=1), KUBECTL)
    settle(fake_clock)
    for tag in ("1.16", "1.19", "1.21"):
        set_image(demo, f"nginx:{tag}")
        settle(fake_clock)
        settle(fake_clock)
    assert set(replica_sets(demo)) == {"3", "4"}


def test_min_ready_seconds_holds_availability_and_the_rollout_back(demo, fake_clock):
    """A ReplicaSet counts a ready pod available only after minReadySeconds (IsPodAvailable) and
    syncs itself again then; the Deployment's rollout waits for it."""
    drive()
    api.create(demo, web(replicas=2, minReadySeconds=10), KUBECTL)
    settle(fake_clock)
    (rs,) = replica_sets(demo).values()
    assert rs["spec"]["minReadySeconds"] == 10
    assert rs["status"]["readyReplicas"] == 2 and "availableReplicas" not in rs["status"]
    deployment = api.get(demo, "Deployment", "default", "web")
    assert "availableReplicas" not in deployment["status"]
    fake_clock.advance(11)
    drive()
    (rs,) = replica_sets(demo).values()
    assert rs["status"]["availableReplicas"] == 2
    drive()
    deployment = api.get(demo, "Deployment", "default", "web")
    assert deployment["status"]["availableReplicas"] == 2
    available = util.get_condition(deployment["status"], util.AVAILABLE)
    assert available["status"] == "True"
