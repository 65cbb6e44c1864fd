"""Upstream's `pkg/controller/deployment/util/deployment_util_test.go` (v1.33), table by table."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cluster.controllers.deployment import util
from tests.controllers.deployment.fake import new_deployment, rs


@pytest.mark.parametrize(
    ("max_surge", "max_unavailable", "desired", "surge", "unavailable", "error"),
    [
        ("0%", "0%", 0, 0, 1, False),
        ("39%", "39%", 10, 4, 3, False),
        ("oops", "39%", 10, 0, 0, True),
        ("55%", "urg", 10, 0, 0, True),
        (None, "39%", 10, 0, 3, False),
        ("39%", None, 10, 4, 0, False),
        (None, None, 10, 0, 1, False),
    ],
)
def test_resolve_fenceposts(max_surge, max_unavailable, desired, surge, unavailable, error):
    if error:
        with pytest.raises(util.FencepostError):
            util.resolve_fenceposts(max_surge, max_unavailable, desired)
        return
    assert util.resolve_fenceposts(max_surge, max_unavailable, desired) == (surge, unavailable)


@pytest.mark.parametrize(
    ("strategy", "dep_replicas", "new_rs_replicas", "max_surge", "expected"),
    [
        ("RollingUpdate", 1, 5, 1, 5),  # can not scale up - to newRSReplicas
        ("RollingUpdate", 6, 2, 10, 6),  # scale up - to depReplicas
        ("Recreate", 3, 1, 1, 3),  # recreate - to depReplicas
    ],
)
def test_new_rs_new_replicas(strategy, dep_replicas, new_rs_replicas, max_surge, expected):
    deployment = new_deployment("nginx", dep_replicas, None, max_surge, 1)
    deployment["spec"]["strategy"]["type"] = strategy
    new = rs("nginx-new", new_rs_replicas)
    rs5 = rs("nginx-5", 5)
    assert util.new_rs_new_replicas(deployment, [rs5], new) == expected


def _rolling(replicas: int, max_unavailable: object) -> dict:
    return new_deployment("foo", replicas, None, 1, max_unavailable)


def _recreate(replicas: int | None = None) -> dict:
    d = new_deployment("foo", 10 if replicas is None else replicas)
    d["spec"]["strategy"] = {"type": "Recreate"}
    return d


@pytest.mark.parametrize(
    ("deployment", "expected"),
    [
        (_rolling(10, 5), 5),  # maxUnavailable less than replicas
        (_rolling(10, 10), 10),  # maxUnavailable equal replicas
        (_rolling(5, 10), 5),  # maxUnavailable greater than replicas
        (_rolling(0, 10), 0),  # maxUnavailable with replicas is 0
        (_recreate(), 0),  # maxUnavailable with Recreate deployment strategy
        (_rolling(10, "50%"), 5),  # less than replicas with percents
        (_rolling(10, "100%"), 10),  # equal replicas with percents
        (_rolling(5, "100%"), 5),  # greater than replicas with percents
    ],
)
def test_max_unavailable(deployment, expected):
    assert util.max_unavailable(deployment) == expected


@pytest.mark.parametrize(
    ("deployment", "expected"),
    [
        (_rolling(10, 5), 5),
        (_rolling(10, 10), 0),
        (_rolling(5, 10), 0),
        (_rolling(0, 10), 0),
        (_recreate(10), 0),
        (_rolling(10, "60%"), 4),
        (_rolling(10, "100%"), 0),
        (_rolling(5, "100%"), 0),
    ],
)
def test_min_available(deployment, expected):
    assert util.min_available(deployment) == expected


def _with_status(desired, current, updated, available, max_unavailable, max_surge) -> dict:
    d = new_deployment("foo", desired, None, max_surge, max_unavailable)
    d["status"] = {"replicas": current, "updatedReplicas": updated, "availableReplicas": available}
    return d


@pytest.mark.parametrize(
    ("deployment", "expected"),
    [
        (_with_status(5, 5, 5, 4, 1, 0), False),  # min but not all pods become available
        (_with_status(5, 5, 5, 3, 1, 0), False),  # min availability is not honored
        (_with_status(5, 5, 5, 5, 0, 0), True),  # complete
        (_with_status(5, 5, 4, 5, 0, 0), False),  # all pods are available but not updated
        (_with_status(1, 2, 1, 1, 0, 1), False),  # still running old pods
        (_with_status(1, 1, 1, 0, 1, 1), False),  # one replica deployment never comes up
    ],
)
def test_deployment_complete(deployment, expected):
    assert util.deployment_complete(deployment, deployment["status"]) is expected


def _counts(current, updated, ready, available) -> dict:
    return {
        "replicas": current,
        "updatedReplicas": updated,
        "readyReplicas": ready,
        "availableReplicas": available,
    }


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (_counts(10, 4, 4, 4), _counts(10, 6, 4, 4), True),  # updated pods
        (_counts(10, 4, 4, 4), _counts(10, 4, 4, 4), False),  # not progressing
        (_counts(10, 4, 6, 6), _counts(8, 4, 6, 6), True),  # old pods removed
        (_counts(10, 7, 3, 3), _counts(10, 6, 3, 3), False),  # less new pods
        (_counts(10, 4, 7, 7), _counts(8, 8, 5, 5), True),  # less overall but more new pods
        (_counts(10, 10, 9, 8), _counts(10, 10, 10, 8), True),  # more ready pods
        (_counts(10, 10, 10, 9), _counts(10, 10, 10, 10), True),  # more available pods
    ],
)
def test_deployment_progressing(old, new, expected):
    assert util.deployment_progressing({"status": old}, new) is expected


def _at(minute: int, second: int) -> datetime:
    return datetime(2016, 1, 1, 0, minute, second, tzinfo=UTC)


def _progressing(reason: str, deadline: int | None, since: datetime | None) -> dict:
    d = {"spec": {}, "status": {"conditions": [{"type": "Progressing", "status": "True", "reason": reason}]}}
    if deadline is not None:
        d["spec"]["progressDeadlineSeconds"] = deadline
    if since is not None:
        d["status"]["conditions"][0]["lastUpdateTime"] = since.strftime("%Y-%m-%dT%H:%M:%SZ")
    return d


@pytest.mark.parametrize(
    ("deployment", "now", "expected"),
    [
        (_progressing("", None, _at(1, 9)), _at(1, 20), False),  # nil progressDeadlineSeconds
        (_progressing("", util.MAX_INT32, _at(1, 9)), _at(1, 20), False),  # infinite
        (_progressing("", 10, _at(1, 9)), _at(1, 20), True),  # 00:01:20 - 00:01:09 => 11s
        (_progressing("", 10, _at(1, 11)), _at(1, 20), False),  # 00:01:20 - 00:01:11 => 9s
        (_progressing(util.NEW_RS_AVAILABLE, None, None), _at(1, 20), False),  # previously complete
    ],
)
def test_deployment_timed_out(deployment, now, expected):
    assert util.deployment_timed_out(deployment, deployment["status"], now) is expected


def test_annotation_utils():
    deployment = new_deployment("nginx", 1)
    deployment["metadata"]["annotations"][util.REVISION] = "1"
    replica_set = rs("nginx-rs", 1)
    # SetNewReplicaSetAnnotations: raise the revision from 11 through 20, a 5-character history
    for i in range(10, 20):
        next_revision = str(i + 1)
        util.set_new_replica_set_annotations(deployment, replica_set, next_revision, True, 5)
        if i >= 12:
            assert util.annotations(replica_set)[util.REVISION_HISTORY] == f"{i - 1},{i}"
        assert util.annotations(replica_set)[util.REVISION] == next_revision
    # SetReplicasAnnotations
    assert util.set_replicas_annotations(replica_set, 10, 11)
    assert util.annotations(replica_set)[util.DESIRED_REPLICAS] == "10"
    assert util.annotations(replica_set)[util.MAX_REPLICAS] == "11"
    # IsSaturated
    replica_set["metadata"]["annotations"][util.DESIRED_REPLICAS] = "1"
    replica_set["status"] = {"availableReplicas": 1}
    replica_set["spec"]["replicas"] = 1
    assert util.is_saturated(deployment, replica_set)


@pytest.mark.parametrize(
    ("annotations", "expected"),
    [
        (None, True),  # annotations nil
        ({util.DESIRED_REPLICAS: "8", util.MAX_REPLICAS: "20"}, True),  # desiredReplicas update
        ({util.DESIRED_REPLICAS: "10", util.MAX_REPLICAS: "16"}, True),  # maxReplicas update
        ({util.DESIRED_REPLICAS: "10", util.MAX_REPLICAS: "20"}, False),  # needn't update
    ],
)
def test_replicas_annotations_need_update(annotations, expected):
    replica_set = rs("hello", 1, {"foo": "bar"}, annotations=annotations)
    assert util.replicas_annotations_need_update(replica_set, 10, 20) is expected


def _condition(type_: str, status: str, reason: str) -> dict:
    return {"type": type_, "status": status, "reason": reason}


PROGRESSING = _condition("Progressing", "False", "ForSomeReason")
PROGRESSING2 = _condition("Progressing", "True", "BecauseItIs")
AVAILABLE = _condition("Available", "True", "AwesomeController")


@pytest.mark.parametrize(
    ("status", "condition", "expected"),
    [
        ({}, AVAILABLE, {"conditions": [AVAILABLE]}),  # set for the first time
        ({"conditions": [PROGRESSING]}, AVAILABLE, {"conditions": [PROGRESSING, AVAILABLE]}),  # simple set
        ({"conditions": [PROGRESSING]}, PROGRESSING2, {"conditions": [PROGRESSING2]}),  # overwrite
    ],
)
def test_set_condition(status, condition, expected):
    status = {"conditions": list(status["conditions"])} if status else {}
    util.set_condition(status, condition)
    assert [{k: c.get(k) for k in ("type", "status", "reason")} for c in status["conditions"]] == expected[
        "conditions"
    ]


@pytest.mark.parametrize(
    ("status", "type_", "expected"),
    [
        ({}, "Progressing", {}),  # remove from empty status
        ({"conditions": [PROGRESSING]}, "Progressing", {}),  # simple remove
        (
            {"conditions": [PROGRESSING, AVAILABLE]},
            "ReplicaFailure",
            {"conditions": [PROGRESSING, AVAILABLE]},
        ),
    ],
)
def test_remove_condition(status, type_, expected):
    status = {"conditions": list(status["conditions"])} if status else {}
    util.remove_condition(status, type_)
    assert status == expected


def test_replica_counts_for_replica_sets():
    rs1, rs2, rs3 = rs("foo-rs", 1), rs("bar-rs", 2), rs("unsynced-rs", 3)
    rs1["status"], rs2["status"], rs3["status"] = {"replicas": 2}, {"replicas": 3}, {"replicas": 0}
    for sets, count, actual in (([rs1], 1, 2), ([rs1, rs2], 3, 5), ([rs3], 3, 0), ([rs1, rs2, rs3], 6, 5)):
        assert util.replica_count(sets) == count
        assert util.actual_replica_count(sets) == actual


def test_find_new_and_old_replica_sets():
    """FindNewReplicaSet takes the oldest of two alike; FindOldReplicaSets leaves it out and
    lists the ones with replicas apart."""
    deployment = new_deployment("nginx", 1, selector={"name": "nginx"})
    template = deployment["spec"]["template"]
    newer = rs("nginx-newer", 1, {"name": "nginx"}, "2016-01-01T00:00:10Z")
    older = rs("nginx-older", 1, {"name": "nginx"}, "2016-01-01T00:00:00Z")
    for each in (newer, older):
        each["spec"]["template"] = {
            **template,
            "metadata": {"labels": {"name": "nginx", util.HASH_LABEL: "h"}},
        }
    stale = rs("nginx-stale", 0, {"name": "nginx"}, "2015-01-01T00:00:00Z")
    assert util.find_new_replica_set(deployment, [newer, older, stale]) is older
    required, every = util.find_old_replica_sets(deployment, [newer, older, stale])
    assert required == [newer] and every == [newer, stale]


def test_last_revision_is_the_second_highest():
    sets = [rs(f"r{n}", 0, annotations={util.REVISION: str(n)}) for n in (3, 1, 5, 4)]
    assert util.max_revision(sets) == 5 and util.last_revision(sets) == 4
