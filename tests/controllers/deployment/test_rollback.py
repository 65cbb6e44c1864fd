"""Upstream's `pkg/controller/deployment/rollback.go` (v1.33): a rollback asked for with the
`deprecated.deployment.rollback.to` annotation, case by case."""

from __future__ import annotations

import copy

import pytest

from cluster.controllers.deployment import util
from tests.controllers.deployment.fake import controller, new_deployment, rs


def revision_rs(name: str, revision: int, image: str, created: str, annotations: dict | None = None) -> dict:
    made = rs(name, 0, {"foo": "bar"}, created, {util.REVISION: str(revision), **(annotations or {})})
    made["spec"]["template"] = {
        "metadata": {"labels": {"foo": "bar", util.HASH_LABEL: name}},
        "spec": {"containers": [{"name": "c", "image": image}]},
    }
    return made


def deployment_at(image: str, rollback_to: str | None, **annotations) -> dict:
    d = new_deployment("foo", 1, None, 1, 0, {"foo": "bar"})
    d["spec"]["template"]["spec"]["containers"][0]["image"] = image
    d["metadata"]["annotations"] = {util.REVISION: "3", **annotations}
    if rollback_to is not None:
        d["metadata"]["annotations"][util.ROLLBACK_TO] = rollback_to
    return d


def history() -> list[dict]:
    return [
        revision_rs(
            "foo-1", 1, "nginx:1.14", "2016-01-01T00:00:01Z", {"kubernetes.io/change-cause": "first"}
        ),
        revision_rs(
            "foo-2", 2, "nginx:1.15", "2016-01-01T00:00:02Z", {"kubernetes.io/change-cause": "second"}
        ),
        revision_rs(
            "foo-3", 3, "nginx:1.16", "2016-01-01T00:00:03Z", {"kubernetes.io/change-cause": "third"}
        ),
    ]


@pytest.mark.parametrize(
    ("rollback_to", "image", "event"),
    [
        ("0", "nginx:1.15", ("Normal", util.ROLLBACK_DONE, 'Rolled back deployment "foo" to revision 2')),
        ("1", "nginx:1.14", ("Normal", util.ROLLBACK_DONE, 'Rolled back deployment "foo" to revision 1')),
        (
            "3",
            "nginx:1.16",
            (
                "Warning",
                util.ROLLBACK_TEMPLATE_UNCHANGED,
                'The rollback revision contains the same template as current deployment "foo"',
            ),
        ),
        (
            "9",
            "nginx:1.16",
            ("Warning", util.ROLLBACK_REVISION_NOT_FOUND, "Unable to find the revision to rollback to."),
        ),
    ],
)
def test_rollback_to_a_revision(rollback_to, image, event):
    deployment = deployment_at("nginx:1.16", rollback_to, **{"kubernetes.io/change-cause": "third"})
    dc, fake = controller()
    dc.sync_deployment(deployment, history(), {})
    (updated,) = fake.updates("deployments")
    assert util.ROLLBACK_TO not in updated["metadata"]["annotations"]  # cleared in any case
    assert updated["spec"]["template"]["spec"]["containers"][0]["image"] == image
    assert util.HASH_LABEL not in updated["spec"]["template"]["metadata"]["labels"]
    assert fake.events[-1] == event


def test_a_rollback_takes_the_old_replica_sets_annotations_back():
    deployment = deployment_at("nginx:1.16", "1", **{"kubernetes.io/change-cause": "third", "team": "a"})
    dc, fake = controller()
    dc.sync_deployment(deployment, history(), {})
    (updated,) = fake.updates("deployments")
    # The skipped annotations (the revision) stay; the rest are revision 1's.
    assert updated["metadata"]["annotations"] == {util.REVISION: "3", "kubernetes.io/change-cause": "first"}


def test_without_a_last_revision_the_rollback_gives_up():
    only = revision_rs("foo-3", 3, "nginx:1.16", "2016-01-01T00:00:03Z")
    deployment = deployment_at("nginx:1.16", "0")
    dc, fake = controller()
    dc.sync_deployment(deployment, [copy.deepcopy(only)], {})
    assert fake.events[-1] == ("Warning", util.ROLLBACK_REVISION_NOT_FOUND, "Unable to find last revision.")
    assert util.ROLLBACK_TO not in fake.updates("deployments")[-1]["metadata"]["annotations"]
