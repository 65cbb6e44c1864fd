"""A control plane's batch transaction keeps what it read under the write lock (the revision, a
trace's last step, the quota's counts) and drops it when a write inside is undone."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from cluster.apiserver import rows
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.flow import steprows
from cluster.flow.recorder import StepSpec, record_steps, start_trace
from cluster.models import ApiObject, Cluster, FlowStep, FlowTrace, WatchEvent
from database.sqlite import memo

KUBECTL = api.Actor(client="kubectl", detail="test")
pytestmark = [pytest.mark.django_db, pytest.mark.sqlite_only("kept reads are the SQLite backend's")]


def _pod(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
    }


def _revision_reads(queries) -> int:
    return sum(
        1
        for q in queries
        if q["sql"].startswith('SELECT revision, compacted_revision, quota FROM "cluster_cluster"')
    )


def test_a_batch_reads_the_revision_once_and_its_writes_stay_gapless():
    cluster = Cluster.objects.create(name="memo-revision")
    start = Cluster.objects.get(pk=cluster.pk).revision
    with CaptureQueriesContext(connection) as queries, memo.batch(), transaction.atomic():
        for i in range(5):
            api.create(cluster, _pod(f"p{i}"), KUBECTL)
    assert _revision_reads(queries.captured_queries) == 1
    revisions = list(
        WatchEvent.objects.filter(cluster=cluster, revision__gt=start).values_list("revision", flat=True)
    )
    assert revisions == list(range(start + 1, start + 6))
    assert Cluster.objects.get(pk=cluster.pk).revision == start + 5


def test_without_a_batch_nothing_is_kept():
    cluster = Cluster.objects.create(name="memo-none")
    with CaptureQueriesContext(connection) as queries, transaction.atomic():
        for i in range(3):
            api.create(cluster, _pod(f"p{i}"), KUBECTL)
        assert memo.get(("revision", cluster.pk)) is None
    assert _revision_reads(queries.captured_queries) == 3


def test_a_write_undone_inside_the_batch_is_not_remembered():
    cluster = Cluster.objects.create(name="memo-undo")
    with memo.batch(), transaction.atomic():
        api.create(cluster, _pod("kept"), KUBECTL)
        before = rows.lock_revision(cluster.pk)[0]
        with pytest.raises(RuntimeError), transaction.atomic():
            api.create(cluster, _pod("undone"), KUBECTL)
            assert rows.lock_revision(cluster.pk)[0] == before + 1
            raise RuntimeError("the caller gives up: the savepoint rolls back")
        assert memo.get(("revision", cluster.pk)) is None
        assert rows.lock_revision(cluster.pk)[0] == before
        after = api.create(cluster, _pod("next"), KUBECTL)
    assert int(after["metadata"]["resourceVersion"]) == before + 1
    assert not ApiObject.objects.filter(cluster=cluster, name="undone").exists()


def _config_map(name: str) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": "default"}}


def test_the_kept_quota_counts_follow_creates_and_deletes_inside_the_batch():
    cluster = Cluster.objects.create(name="memo-quota")
    stored = ApiObject.objects.filter(cluster=cluster).exclude(kind__in=("Event", "Lease")).count()
    Cluster.objects.filter(pk=cluster.pk).update(quota={"objects": stored + 2})
    cluster.refresh_from_db()
    with CaptureQueriesContext(connection) as queries, memo.batch(), transaction.atomic():
        api.create(cluster, _config_map("a"), KUBECTL)
        api.create(cluster, _config_map("b"), KUBECTL)
        api.delete(cluster, "ConfigMap", "default", "a", KUBECTL)
        api.create(cluster, _config_map("c"), KUBECTL)  # a's place is free again
        with pytest.raises(ApiError) as refused:
            api.create(cluster, _config_map("d"), KUBECTL)
        limit = stored + 2
        assert f"used: count/objects={limit}, limited: count/objects={limit}" in refused.value.message
    names = ApiObject.objects.filter(cluster=cluster, kind="ConfigMap").values_list("name", flat=True)
    assert sorted(names) == ["b", "c"]
    counts = [q for q in queries.captured_queries if q["sql"].startswith("SELECT kind, COUNT(*)")]
    # read for a (b counts on from it), read again for c after the deletion dropped it; d is
    # refused on the counts kept since c
    assert len(counts) == 2


def test_a_trace_numbers_its_steps_from_what_the_batch_inserted():
    cluster = Cluster.objects.create(name="memo-steps")
    trace = start_trace(cluster, "Pod", "default", "web", "create", "kubectl")
    with CaptureQueriesContext(connection) as queries, memo.batch(), transaction.atomic():
        for step in (9, 10, 11):
            record_steps(trace.pk, [StepSpec(step, "en", "zh")])
        assert steprows.last_seq(trace.pk) == 3
    seq_reads = [q for q in queries.captured_queries if q["sql"].startswith("SELECT MAX(seq)")]
    assert len(seq_reads) == 1
    assert list(FlowStep.objects.filter(trace=trace).order_by("seq").values_list("seq", "step")) == [
        (1, 9),
        (2, 10),
        (3, 11),
    ]


def test_a_batch_counts_a_traces_steps_once_and_finishes_it_with_its_last_pod():
    """Step 13 of each of three pods in one batch: the trace's step counts are read once (the
    batch counts on from what it inserted), and the trace ends with the third pod, not before."""
    cluster = Cluster.objects.create(name="memo-tally")
    trace = start_trace(cluster, "ReplicationController", "default", "web", "create", "kubectl")
    FlowTrace.objects.filter(pk=trace.pk).update(expected_pods=3)
    pods = [("Pod", "default", f"web-{i}") for i in range(3)]
    record_steps(trace.pk, [StepSpec(6, "en", "zh"), *(StepSpec(7, "en", "zh", obj=pod) for pod in pods)])
    with CaptureQueriesContext(connection) as queries, memo.batch(), transaction.atomic():
        for pod in pods:
            assert FlowTrace.objects.get(pk=trace.pk).finished_at is None
            record_steps(trace.pk, [StepSpec(13, "en", "zh", obj=pod)])
    counts = [q for q in queries.captured_queries if q["sql"].startswith("SELECT SUM(CASE WHEN step")]
    assert len(counts) == 1
    assert FlowTrace.objects.get(pk=trace.pk).finished_at is not None


def _class_reads(queries) -> int:
    return sum(1 for q in queries if q["sql"].startswith("SELECT body") and "'PriorityClass'" in q["sql"])


def test_a_batch_reads_the_priority_classes_once_and_again_after_one_is_written():
    cluster = Cluster.objects.create(name="memo-classes")
    with CaptureQueriesContext(connection) as queries, memo.batch(), transaction.atomic():
        first = [api.create(cluster, _pod(f"before-{i}"), KUBECTL) for i in range(3)]
        api.create(
            cluster,
            {
                "apiVersion": "scheduling.k8s.io/v1",
                "kind": "PriorityClass",
                "metadata": {"name": "high"},
                "value": 1000,
                "globalDefault": True,
            },
            KUBECTL,
        )
        after = api.create(cluster, _pod("after"), KUBECTL)
    assert _class_reads(queries.captured_queries) == 2
    assert all(pod["spec"].get("priority", 0) == 0 for pod in first)
    assert (after["spec"]["priority"], after["spec"]["priorityClassName"]) == (1000, "high")
