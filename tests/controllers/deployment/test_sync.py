"""Upstream's `pkg/controller/deployment/sync_test.go` (v1.33): proportional scaling and the
revision history's cleanup."""

from __future__ import annotations

import pytest

from cluster.controllers.deployment import util
from tests.controllers.deployment.fake import controller, new_deployment, rs

NEW = "2016-05-20T02:00:00Z"
OLD = "2016-05-20T01:00:00Z"
OLDER = "2016-05-20T00:00:00Z"


def updated_template(replicas: int) -> dict:
    d = new_deployment("foo", replicas, None, None, None, {"foo": "bar"})
    d["spec"]["template"]["metadata"]["labels"] = {"foo": "bar", "another": "label"}
    return d


SCALE_CASES = [
    # name, deployment, old deployment, new rs, old rss, expected new, expected old, wasn't updated,
    # desired-replicas annotations
    ("normal scaling event: 10 -> 12", new_deployment("foo", 12), new_deployment("foo", 10),
     ("foo-v1", 10, NEW), [], 12, [], set(), {}),
    ("normal scaling event: 10 -> 5", new_deployment("foo", 5), new_deployment("foo", 10),
     ("foo-v1", 10, NEW), [], 5, [], set(), {}),
    ("proportional scaling: 5 -> 10", new_deployment("foo", 10), new_deployment("foo", 5),
     ("foo-v2", 2, NEW), [("foo-v1", 3, OLD)], 4, [6], set(), {}),
    ("proportional scaling: 5 -> 3", new_deployment("foo", 3), new_deployment("foo", 5),
     ("foo-v2", 2, NEW), [("foo-v1", 3, OLD)], 1, [2], set(), {}),
    ("proportional scaling: 9 -> 4", new_deployment("foo", 4), new_deployment("foo", 9),
     ("foo-v2", 8, NEW), [("foo-v1", 1, OLD)], 4, [0], set(), {}),
    ("proportional scaling: 7 -> 10", new_deployment("foo", 10), new_deployment("foo", 7),
     ("foo-v3", 2, NEW), [("foo-v2", 3, OLD), ("foo-v1", 2, OLDER)], 3, [4, 3], set(), {}),
    ("proportional scaling: 13 -> 8", new_deployment("foo", 8), new_deployment("foo", 13),
     ("foo-v3", 2, NEW), [("foo-v2", 8, OLD), ("foo-v1", 3, OLDER)], 1, [5, 2], set(), {}),
    # Scales up the new replica set.
    ("leftover distribution: 3 -> 4", new_deployment("foo", 4), new_deployment("foo", 3),
     ("foo-v3", 1, NEW), [("foo-v2", 1, OLD), ("foo-v1", 1, OLDER)], 2, [1, 1], set(), {}),
    # Scales down the older replica set.
    ("leftover distribution: 3 -> 2", new_deployment("foo", 2), new_deployment("foo", 3),
     ("foo-v3", 1, NEW), [("foo-v2", 1, OLD), ("foo-v1", 1, OLDER)], 1, [1, 0], set(), {}),
    # Scales up the latest replica set first.
    ("proportional scaling (no new rs): 4 -> 5", new_deployment("foo", 5), new_deployment("foo", 4),
     None, [("foo-v2", 2, OLD), ("foo-v1", 2, OLDER)], None, [3, 2], set(), {}),
    # Scales down to zero
    ("proportional scaling: 6 -> 0", new_deployment("foo", 0), new_deployment("foo", 6),
     ("foo-v3", 3, NEW), [("foo-v2", 2, OLD), ("foo-v1", 1, OLDER)], 0, [0, 0], set(), {}),
    # Scales up from zero
    ("proportional scaling: 0 -> 6", new_deployment("foo", 6), new_deployment("foo", 6),
     ("foo-v3", 0, NEW), [("foo-v2", 0, OLD), ("foo-v1", 0, OLDER)], 6, [0, 0], {"foo-v2", "foo-v1"}, {}),
    # foo-v1..3 at 1 each, scaled to 5: foo-v3 and foo-v2 should grow by 1 but foo-v2 fails to update.
    ("failed rs update", new_deployment("foo", 5), new_deployment("foo", 5),
     ("foo-v3", 2, NEW), [("foo-v2", 1, OLD), ("foo-v1", 1, OLDER)], 2, [2, 1], {"foo-v3", "foo-v1"},
     {"foo-v2": 3}),
    ("deployment with surge pods", new_deployment("foo", 20, None, 2), new_deployment("foo", 10, None, 2),
     ("foo-v2", 6, NEW), [("foo-v1", 6, OLD)], 11, [11], set(), {}),
    ("change both surge and size", new_deployment("foo", 50, None, 6), new_deployment("foo", 10, None, 3),
     ("foo-v2", 5, NEW), [("foo-v1", 8, OLD)], 22, [34], set(), {}),
    ("change both size and template", updated_template(14), new_deployment("foo", 10),
     None, [("foo-v2", 7, NEW), ("foo-v1", 3, OLD)], None, [10, 4], set(), {}),
    ("saturated but broken new replica set does not affect old pods",
     new_deployment("foo", 2, None, 1, 1), new_deployment("foo", 2, None, 1, 1),
     ("foo-v2", 2, NEW), [("foo-v1", 1, OLD)], 2, [1], set(), {}),
]  # fmt: skip


@pytest.mark.parametrize(
    (
        "deployment",
        "old_deployment",
        "new",
        "old",
        "expected_new",
        "expected_old",
        "wasnt_updated",
        "desired",
    ),
    [case[1:] for case in SCALE_CASES],
    ids=[case[0] for case in SCALE_CASES],
)
def test_scale(deployment, old_deployment, new, old, expected_new, expected_old, wasnt_updated, desired):
    new_rs = rs(new[0], new[1], None, new[2]) if new else None
    old_rss = [rs(name, size, None, created) for name, size, created in old]
    for each in [new_rs, *old_rss]:
        if each is not None:
            wanted = desired.get(each["metadata"]["name"], util.replicas(old_deployment))
            util.set_replicas_annotations(each, wanted, wanted + util.max_surge(old_deployment))
    dc, fake = controller()
    dc.scale(deployment, new_rs, old_rss)
    sizes = {each["metadata"]["name"]: util.replicas(each) for each in [new_rs, *old_rss] if each is not None}
    for updated in fake.updates():
        if updated["metadata"]["name"] not in wasnt_updated:
            sizes[updated["metadata"]["name"]] = util.replicas(updated)
    if expected_new is not None and new_rs is not None:
        assert sizes[new_rs["metadata"]["name"]] == expected_new
    assert [sizes[each["metadata"]["name"]] for each in old_rss] == expected_old


def rs_with_status(name: str, spec_replicas: int, status_replicas: int) -> dict:
    """newRSWithStatus."""
    made = rs(name, spec_replicas, {"foo": "bar"})
    made["status"] = {"replicas": status_replicas}
    return made


def deleted(name: str) -> dict:
    made = rs_with_status(name, 0, 0)
    made["metadata"]["deletionTimestamp"] = "2016-01-01T00:00:00Z"
    return made


@pytest.mark.parametrize(
    ("old", "limit", "expected_deletions"),
    [
        ([rs_with_status("foo-1", 0, 0), rs_with_status("foo-2", 0, 0), rs_with_status("foo-3", 0, 0)], 1, 2),
        # Only delete the replica set with Spec.Replicas = Status.Replicas = 0.
        (
            [
                rs_with_status("foo-1", 0, 0),
                rs_with_status("foo-2", 0, 1),
                rs_with_status("foo-3", 1, 0),
                rs_with_status("foo-4", 1, 1),
            ],
            0,
            1,
        ),
        ([rs_with_status("foo-1", 0, 0), rs_with_status("foo-2", 0, 0)], 0, 2),
        ([rs_with_status("foo-1", 1, 1), rs_with_status("foo-2", 1, 1)], 0, 0),
        ([deleted("foo-1")], 0, 0),
        # with unlimited revisionHistoryLimit
        (
            [rs_with_status("foo-1", 0, 0), rs_with_status("foo-2", 0, 0), rs_with_status("foo-3", 0, 0)],
            util.MAX_INT32,
            0,
        ),
    ],
)
def test_cleanup_deployment(old, limit, expected_deletions):
    d = new_deployment("foo", 1, limit, None, None, {"foo": "bar"})
    dc, fake = controller()
    dc.cleanup_deployment(old, d)
    assert len([a for a in fake.actions if a.verb == "delete"]) == expected_deletions
