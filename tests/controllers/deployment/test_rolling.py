"""Upstream's `pkg/controller/deployment/rolling_test.go` (v1.33), table by table."""

from __future__ import annotations

import pytest

from cluster.controllers.deployment import util
from tests.controllers.deployment.fake import NO_TIMESTAMP, controller, new_deployment, rs


@pytest.mark.parametrize(
    ("deployment_replicas", "max_surge", "old_replicas", "new_replicas", "scale_expected", "expected_new"),
    [
        (10, 0, 10, 0, False, None),  # should not scale up
        (10, 2, 10, 0, True, 2),
        (10, 2, 5, 0, True, 7),
        (10, 2, 10, 2, False, None),
        (10, 2, 2, 11, True, 10),  # should scale down
    ],
)
def test_reconcile_new_replica_set(
    deployment_replicas, max_surge, old_replicas, new_replicas, scale_expected, expected_new
):
    new = rs("foo-v2", new_replicas, None, NO_TIMESTAMP)
    old = rs("foo-v2", old_replicas, None, NO_TIMESTAMP)
    deployment = new_deployment("foo", deployment_replicas, None, max_surge, 0, {"foo": "bar"})
    dc, fake = controller()
    scaled = dc.reconcile_new_replica_set([new, old], new, deployment)
    if not scale_expected:
        assert not scaled and not fake.actions
        return
    assert scaled
    assert len(fake.actions) == 1
    assert fake.actions[0].obj["spec"]["replicas"] == expected_new


@pytest.mark.parametrize(
    (
        "deployment_replicas",
        "max_unavailable",
        "old_replicas",
        "new_replicas",
        "ready_old",
        "ready_new",
        "scale_expected",
        "expected_old",
    ),
    [
        (10, 0, 10, 0, 10, 0, True, 9),
        (10, 2, 10, 0, 10, 0, True, 8),
        # expect unhealthy replicas from old replica sets been cleaned up
        (10, 2, 10, 0, 8, 0, True, 8),
        # expect 1 unhealthy replica from old replica sets been cleaned up, and 1 ready pod been scaled down
        (10, 2, 10, 0, 9, 0, True, 8),
        # the unavailable pods from the newRS would not make us scale down old RSs in a further step
        (10, 2, 8, 2, 8, 0, False, None),
    ],
)
def test_reconcile_old_replica_sets(
    deployment_replicas,
    max_unavailable,
    old_replicas,
    new_replicas,
    ready_old,
    ready_new,
    scale_expected,
    expected_old,
):
    new_selector, old_selector = {"foo": "new"}, {"foo": "old"}
    new = rs("foo-new", new_replicas, new_selector, NO_TIMESTAMP, available=ready_new)
    old = rs("foo-old", old_replicas, old_selector, NO_TIMESTAMP, available=ready_old)
    deployment = new_deployment("foo", deployment_replicas, None, 0, max_unavailable, new_selector)
    dc, fake = controller()
    scaled = dc.reconcile_old_replica_sets([old, new], [old], new, deployment)
    assert scaled == scale_expected
    if scale_expected:  # the old ReplicaSet's last update: the cleanup's, then the scale-down's
        assert fake.updates()[-1]["spec"]["replicas"] == expected_old


@pytest.mark.parametrize(
    ("old_replicas", "ready_pods", "unhealthy_pods", "max_cleanup_count", "cleanup_count_expected"),
    [
        (10, 8, 2, 1, 1),
        (10, 8, 2, 3, 2),
        (10, 8, 2, 0, 0),
        (10, 10, 0, 3, 0),
    ],
)
def test_cleanup_unhealthy_replicas(
    old_replicas, ready_pods, unhealthy_pods, max_cleanup_count, cleanup_count_expected
):
    old = rs("foo-v2", old_replicas, None, NO_TIMESTAMP, available=ready_pods)
    deployment = new_deployment("foo", 10, None, 2, 2, None)
    dc, _ = controller()
    _, cleaned = dc.cleanup_unhealthy_replicas([old], deployment, max_cleanup_count)
    assert cleaned == cleanup_count_expected


@pytest.mark.parametrize(
    (
        "deployment_replicas",
        "max_unavailable",
        "ready_pods",
        "old_replicas",
        "scale_expected",
        "expected_old",
    ),
    [
        (10, 0, 10, 10, True, 9),
        (10, 2, 10, 10, True, 8),
        (10, 2, 8, 10, False, None),
        (10, 2, 10, 0, False, None),
        (10, 2, 1, 10, False, None),
    ],
)
def test_scale_down_old_replica_sets_for_rolling_update(
    deployment_replicas, max_unavailable, ready_pods, old_replicas, scale_expected, expected_old
):
    old = rs("foo-v2", old_replicas, None, NO_TIMESTAMP, available=ready_pods)
    deployment = new_deployment("foo", deployment_replicas, None, 0, max_unavailable, {"foo": "bar"})
    dc, fake = controller()
    scaled = dc.scale_down_old_replica_sets_for_rolling_update([old], [old], deployment)
    if not scale_expected:
        assert scaled == 0
        return
    assert scaled != 0
    (updated,) = fake.updates()
    assert updated["spec"]["replicas"] == expected_old


def test_undoing_a_broken_image_scales_the_broken_replica_set_down_at_once():
    """The case kubectl's `rollout undo` makes: the broken ReplicaSet is now old and none of its
    pods ever became available; its unhealthy replicas go first, whatever the availability."""
    good = rs("web-good", 1, {"app": "web"}, "2025-01-01T00:00:00Z", {util.REVISION: "3"}, available=1)
    broken = rs("web-broken", 1, {"app": "web"}, "2025-01-01T00:01:00Z", {util.REVISION: "2"})
    # One replica: maxUnavailable 25% rounds down to 0, so only the cleanup may scale it down.
    deployment = new_deployment("web", 1, None, "25%", "25%", {"app": "web"})
    dc, fake = controller()
    assert dc.reconcile_old_replica_sets([broken, good], [broken], good, deployment)
    assert fake.updates()[0]["metadata"]["name"] == "web-broken"
    assert fake.updates()[0]["spec"]["replicas"] == 0
