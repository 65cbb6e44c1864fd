"""The event log: ordered, gapless, compacted to the newest N entries; older revisions are Gone."""

from __future__ import annotations

import pytest

from cluster.apiserver import history
from cluster.apiserver import service as api
from cluster.models import WatchEvent
from tests.apiserver.conftest import pod

MERGE = "application/merge-patch+json"


def test_events_since_returns_later_events_in_order(cluster, actor):
    api.create(cluster, pod("a"), actor)
    api.create(cluster, pod("b"), actor)
    api.delete(cluster, "Pod", "default", "a", actor)
    events = api.events_since(cluster, 1)
    assert [(e.revision, e.type, e.name) for e in events] == [(2, "ADDED", "b"), (3, "DELETED", "a")]
    assert api.events_since(cluster, 3) == []


def test_list_revision_resumes_exactly(cluster, actor):
    api.create(cluster, pod("a"), actor)
    items, revision = api.list_objects(cluster, "Pod")
    api.patch(cluster, "Pod", "default", "a", {"metadata": {"labels": {"x": "1"}}}, MERGE, actor)
    assert [item["metadata"]["resourceVersion"] for item in items] == ["1"]
    assert [(e.revision, e.type) for e in api.events_since(cluster, revision)] == [(2, "MODIFIED")]


def test_compaction_keeps_newest_and_older_watch_is_gone(cluster, actor, settings):
    settings.KUBESIM_EVENT_LOG_KEEP = 10
    api.create(cluster, pod("a"), actor)
    for i in range(20):
        api.patch(cluster, "Pod", "default", "a", {"metadata": {"labels": {"n": str(i)}}}, MERGE, actor)
    cluster.refresh_from_db()
    assert cluster.revision == 21
    # Compaction runs in batches (when keep + keep/10 entries are exceeded): at revision 20 it
    # dropped 1..10; revision 21 did not trigger it again.
    assert cluster.compacted_revision == 10
    assert [e.revision for e in api.events_since(cluster, 10)] == list(range(11, 22))
    with pytest.raises(api.Gone) as caught:
        api.events_since(cluster, 5)
    status = caught.value.status()
    assert (status["code"], status["reason"]) == (410, "Expired")
    assert status["message"] == "too old resource version: 5 (11)"


def test_failed_write_leaves_no_gap(cluster, actor):
    api.create(cluster, pod("a"), actor)
    with pytest.raises(api.ApiError):
        api.create(cluster, pod("a"), actor)
    api.create(cluster, pod("b"), actor)
    assert [e.revision for e in api.events_since(cluster, 0)] == [1, 2]


def test_compaction_keeps_each_keys_newest_entry_as_etcd_does(cluster, actor, settings):
    settings.KUBESIM_EVENT_LOG_KEEP = 10
    api.create(cluster, pod("old"), actor)  # revision 1, never changed again
    api.create(cluster, pod("gone"), actor)  # revision 2, deleted at 3
    api.delete(cluster, "Pod", "default", "gone", actor)
    api.create(cluster, pod("a"), actor)  # revision 4
    for i in range(17):  # revisions 5..21
        api.patch(cluster, "Pod", "default", "a", {"metadata": {"labels": {"n": str(i)}}}, MERGE, actor)
    cluster.refresh_from_db()
    assert cluster.compacted_revision == 10
    kept = WatchEvent.objects.filter(cluster=cluster, revision__lte=10).values_list("revision", "name")
    # "old" at 1 and "a" at 10 stay; "gone" (deleted) and a's superseded entries went.
    assert sorted(kept) == [(1, "old"), (10, "a")]


def test_the_cluster_at_a_revision_reads_back_from_the_log(cluster, actor, settings):
    settings.KUBESIM_EVENT_LOG_KEEP = 10
    api.create(cluster, pod("old"), actor)  # 1
    api.create(cluster, pod("a"), actor)  # 2
    for i in range(17):  # 3..19: labels n=0..16
        api.patch(cluster, "Pod", "default", "a", {"metadata": {"labels": {"n": str(i)}}}, MERGE, actor)
    api.create(cluster, pod("late"), actor)  # 20
    api.delete(cluster, "Pod", "default", "old", actor)  # 21
    cluster.refresh_from_db()
    assert cluster.compacted_revision == 10

    def pods_at(revision: int) -> dict:
        found = history.objects_at(cluster.pk, revision, ("Pod",))["Pod"]
        return {p["metadata"]["name"]: (p["metadata"].get("labels") or {}).get("n") for p in found}

    assert pods_at(10) == {"a": "7", "old": None}
    assert pods_at(15) == {"a": "12", "old": None}
    assert pods_at(20) == {"a": "16", "late": None, "old": None}
    assert pods_at(21) == {"a": "16", "late": None}
    with pytest.raises(api.Gone):
        history.objects_at(cluster.pk, 9, ("Pod",))
    with pytest.raises(api.ApiError) as future:
        history.objects_at(cluster.pk, 22, ("Pod",))
    assert future.value.code == 400
