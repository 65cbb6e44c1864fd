"""Upstream's `pkg/controller/deployment/progress_test.go` (v1.33): when a stuck Deployment is
checked again (requeueStuckDeployment), and the conditions a rollout's status sync writes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from cluster.controllers.deployment import util
from tests.controllers.deployment.fake import controller, rs

PDS = 60
FAILED = [{"type": "Progressing", "status": "False", "reason": util.TIMED_OUT}]
STUCK = [{"type": "Progressing", "status": "True", "lastUpdateTime": "2017-02-15T18:49:00Z"}]


def current_deployment(pds, replicas, status_replicas, updated, available, conditions) -> dict:
    """currentDeployment: Recreate, observed."""
    spec = {"replicas": replicas, "strategy": {"type": "Recreate"}, "selector": {"matchLabels": {"a": "b"}}}
    if pds is not None:
        spec["progressDeadlineSeconds"] = pds
    status = {"replicas": status_replicas, "updatedReplicas": updated, "availableReplicas": available}
    if conditions:
        status["conditions"] = [dict(c) for c in conditions]
    return {"metadata": {"name": "progress-test", "namespace": "default"}, "spec": spec, "status": status}


def counts(replicas, updated, available) -> dict:
    return {"replicas": replicas, "updatedReplicas": updated, "availableReplicas": available}


def at(minute, second, microsecond=0) -> datetime:
    return datetime(2017, 2, 15, 18, minute, second, microsecond, tzinfo=UTC)


@pytest.mark.parametrize(
    ("deployment", "status", "now", "expected"),
    [
        (current_deployment(None, 4, 3, 3, 2, None), counts(3, 3, 2), at(49, 0), None),  # no deadline
        (current_deployment(PDS, 4, 3, 3, 2, None), counts(3, 3, 2), at(49, 0), None),  # no condition
        (current_deployment(PDS, 3, 3, 3, 3, None), counts(3, 3, 3), at(49, 0), None),  # complete
        (current_deployment(PDS, 3, 3, 3, 0, FAILED), counts(3, 3, 0), at(49, 0), None),  # already failed
        (current_deployment(PDS, 3, 3, 3, 1, STUCK), counts(3, 3, 1), at(49, 30), 30),  # stuck - 30s
        (current_deployment(PDS, 3, 3, 3, 1, STUCK), counts(3, 3, 1), at(49, 59), 1),  # stuck - 1s
        (current_deployment(PDS, 3, 3, 3, 1, STUCK), counts(3, 3, 1), at(49, 59, 1), 0),  # < 1 s => now
        (current_deployment(PDS, 3, 3, 3, 1, STUCK), counts(3, 3, 1), at(50, 0), 0),  # failed - now
        (current_deployment(PDS, 3, 3, 3, 1, STUCK), counts(3, 3, 1), at(50, 1), 0),  # 1s after deadline
        (current_deployment(PDS, 3, 3, 3, 1, STUCK), counts(3, 3, 1), at(51, 0), 0),  # 60s after deadline
    ],
)
def test_requeue_stuck_deployment(deployment, status, now, expected):
    assert util.progress_check_in(deployment, status, now) == expected


def rs_with_available(name, spec_replicas, replicas, available) -> dict:
    made = rs(name, spec_replicas, {"a": "b"}, "2017-02-15T18:00:00Z")
    made["status"] = {"replicas": replicas, "availableReplicas": available}
    return made


REPLICA_SET_UPDATED = {
    "type": "Progressing",
    "status": "True",
    "reason": util.REPLICA_SET_UPDATED,
    "lastUpdateTime": "2017-02-15T18:49:00Z",
    "lastTransitionTime": "2017-02-15T18:49:00Z",
}
NEW_RS_AVAILABLE = {**REPLICA_SET_UPDATED, "reason": util.NEW_RS_AVAILABLE}


@pytest.mark.parametrize(
    ("name", "deployment", "all_sets", "new", "expected"),
    [
        (
            "no progress deadline: the Progressing condition goes",
            current_deployment(None, 3, 2, 2, 2, [REPLICA_SET_UPDATED]),
            [rs_with_available("bar", 0, 1, 1)],
            rs_with_available("foo", 3, 2, 2),
            None,
        ),
        (
            "one active ReplicaSet after a complete rollout: no progress is estimated",
            current_deployment(PDS, 3, 3, 3, 3, [NEW_RS_AVAILABLE]),
            [rs_with_available("bar", 3, 3, 3)],
            None,
            ("True", util.NEW_RS_AVAILABLE, "2017-02-15T18:49:00Z"),
        ),
        (
            "progressing: lastUpdateTime moves, lastTransitionTime stays",
            current_deployment(PDS, 3, 2, 2, 2, [REPLICA_SET_UPDATED]),
            [rs_with_available("bar", 0, 1, 1)],
            rs_with_available("foo", 3, 3, 2),
            ("True", util.REPLICA_SET_UPDATED, "2017-02-15T18:49:00Z"),
        ),
        (
            "complete: NewReplicaSetAvailable",
            current_deployment(PDS, 3, 2, 2, 2, [REPLICA_SET_UPDATED]),
            [],
            rs_with_available("foo", 3, 3, 3),
            ("True", util.NEW_RS_AVAILABLE, "2017-02-15T18:49:00Z"),  # still True: same transition
        ),
        (
            "no progress for longer than the deadline: ProgressDeadlineExceeded",
            current_deployment(PDS, 3, 2, 2, 2, [REPLICA_SET_UPDATED]),
            [],
            rs_with_available("foo", 3, 2, 2),
            ("False", util.TIMED_OUT, "2017-02-15T19:00:00Z"),
        ),
    ],
)
def test_sync_rollout_status(name, deployment, all_sets, new, expected):
    deployment["metadata"]["generation"] = 0
    dc, fake = controller(now=datetime(2017, 2, 15, 19, 0, tzinfo=UTC))
    dc.sync_rollout_status([*all_sets, new], new, deployment)
    status = fake.actions[-1].obj["status"] if fake.actions else deployment["status"]
    condition = util.get_condition(status, util.PROGRESSING)
    if expected is None:
        assert condition is None
        return
    assert (condition["status"], condition["reason"], condition["lastTransitionTime"]) == expected


def test_a_timed_out_deployment_says_which_replica_set_timed_out():
    deployment = current_deployment(PDS, 3, 2, 2, 2, [REPLICA_SET_UPDATED])
    deployment["metadata"]["generation"] = 0
    dc, fake = controller(now=datetime(2017, 2, 15, 19, 0, tzinfo=UTC))
    new = rs_with_available("foo", 3, 2, 2)
    dc.sync_rollout_status([new], new, deployment)
    condition = util.get_condition(fake.actions[-1].obj["status"], util.PROGRESSING)
    assert condition["message"] == 'ReplicaSet "foo" has timed out progressing.'


@pytest.mark.parametrize(
    ("paused", "before", "expected"),
    [
        (True, None, ("Unknown", util.PAUSED, "Deployment is paused")),
        (False, util.PAUSED, ("Unknown", util.RESUMED, "Deployment is resumed")),
        (True, util.TIMED_OUT, None),  # a reported timeout is not overwritten
        (False, None, None),
    ],
)
def test_check_paused_conditions(paused, before, expected):
    deployment = current_deployment(PDS, 3, 3, 3, 3, None)
    deployment["spec"]["paused"] = paused
    if before:
        deployment["status"]["conditions"] = [{"type": "Progressing", "status": "Unknown", "reason": before}]
    dc, fake = controller()
    dc.check_paused_conditions(deployment)
    if expected is None:
        assert not fake.actions
        return
    condition = util.get_condition(fake.actions[-1].obj["status"], util.PROGRESSING)
    assert (condition["status"], condition["reason"], condition["message"]) == expected
