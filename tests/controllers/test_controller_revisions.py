"""A DaemonSet's ControllerRevisions: one per template, renumbered when a template comes back,
the old ones beyond revisionHistoryLimit deleted, the pods labelled with the current hash."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.controllers import history
from tests.controllers.test_daemonset_job import daemon_set, owned
from tests.support.demo import KUBECTL
from tests.support.demo import drive as drive_once

pytestmark = pytest.mark.django_db(transaction=True)
STRATEGIC = "application/strategic-merge-patch+json"


def drive(fake_clock) -> None:
    for _ in range(3):  # old pods stop (nginx takes a second), new ones start
        drive_once()
        fake_clock.advance(2)


def revisions(cluster) -> dict[int, dict]:
    items, _ = api.list_objects(cluster, "ControllerRevision", "default")
    return {item["revision"]: item for item in items}


def set_image(cluster, image: str) -> None:
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": image}]}}}}
    api.patch(cluster, "DaemonSet", "default", "agent", patch, STRATEGIC, KUBECTL)


def test_a_daemon_set_keeps_a_revision_per_template_and_rolls_back_to_one(demo, fake_clock):
    drive(fake_clock)
    api.create(demo, daemon_set(), KUBECTL)
    drive(fake_clock)
    (first,) = revisions(demo).values()
    assert first["revision"] == 1
    assert first["metadata"]["ownerReferences"][0]["kind"] == "DaemonSet"
    template = first["data"]["spec"]["template"]
    assert template["$patch"] == "replace" and template["metadata"]["creationTimestamp"] is None
    assert list(template) == sorted(template)  # as Go writes a map: keys sorted
    pod_hash = first["metadata"]["labels"][history.REVISION_LABEL]
    assert first["metadata"]["name"] == f"agent-{pod_hash}"
    ds = api.get(demo, "DaemonSet", "default", "agent")
    assert {p["metadata"]["labels"][history.REVISION_LABEL] for p in owned(demo, ds)} == {pod_hash}

    set_image(demo, "nginx:1.25")
    drive(fake_clock)
    assert sorted(revisions(demo)) == [1, 2]
    second_hash = revisions(demo)[2]["metadata"]["labels"][history.REVISION_LABEL]
    assert {p["metadata"]["labels"][history.REVISION_LABEL] for p in owned(demo, ds)} == {second_hash}

    # `kubectl rollout undo ds/agent`: revision 1's data, sent back as a strategic merge patch.
    api.patch(demo, "DaemonSet", "default", "agent", revisions(demo)[1]["data"], STRATEGIC, KUBECTL)
    drive(fake_clock)
    current = revisions(demo)
    assert sorted(current) == [2, 3]
    assert current[3]["metadata"]["name"] == first["metadata"]["name"]  # the same revision, renumbered
    images = {p["spec"]["containers"][0]["image"] for p in owned(demo, ds)}
    assert images == {"nginx:1.27"}


def test_old_revisions_beyond_the_limit_go(demo, fake_clock):
    drive(fake_clock)
    body = daemon_set()
    body["spec"]["revisionHistoryLimit"] = 1
    api.create(demo, body, KUBECTL)
    drive(fake_clock)
    for image in ("nginx:1.25", "nginx:1.21", "nginx:1.19"):
        set_image(demo, image)
        drive(fake_clock)
    assert sorted(revisions(demo)) == [3, 4]


def test_a_stateful_set_revision_is_named_by_the_hash_of_its_data():
    sts = {"metadata": {"name": "web"}, "spec": {"template": {"metadata": {"labels": {"app": "web"}}}}}
    snapshot = history.stateful_set_snapshot(sts)
    data = history.template_patch(sts)
    assert history.compact(data) == (
        b'{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,'
        b'"labels":{"app":"web"}}}}}'
    )
    assert snapshot.name == f"web-{history.hash_revision(data, None)}"
    assert snapshot.labels == {"app": "web", history.HISTORY_HASH_LABEL: snapshot.name.removeprefix("web-")}
