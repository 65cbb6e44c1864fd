"""A batch transaction's appends (log entries, flow steps, the cluster's revision) wait and go to
SQLite together, and nothing can tell: every read sees them, a rolled-back savepoint undoes
exactly its own, and what a batch leaves behind is what the same writes leave one by one."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from cluster.apiserver import service as api
from cluster.models import Cluster, FlowStep, WatchEvent
from database.sqlite import memo
from tests.idle.test_batch_memo import KUBECTL, _pod

pytestmark = [pytest.mark.django_db, pytest.mark.sqlite_only("waiting appends are the SQLite backend's")]


def _left_behind(cluster: Cluster) -> tuple:
    """What the writes left: the revision, the log (revision, type, name) and each object's
    steps (name, seq, step), all independent of the steps' ids and the pods' uids."""
    revision = Cluster.objects.get(pk=cluster.pk).revision
    log = list(
        WatchEvent.objects.filter(cluster=cluster)
        .order_by("revision")
        .values_list("revision", "type", "name")
    )
    steps = list(
        FlowStep.objects.filter(trace__cluster=cluster)
        .order_by("object_name", "seq")
        .values_list("object_name", "seq", "step", "title_en")
    )
    return revision, log, steps


def _statements(run) -> list[str]:
    """The statements SQLite itself ran (executemany runs one per row) while run() ran."""
    ran: list[str] = []
    connection.ensure_connection()
    connection.connection.set_trace_callback(ran.append)
    try:
        run()
    finally:
        connection.connection.set_trace_callback(None)
    return ran


def test_a_batch_leaves_what_the_same_writes_leave_one_by_one():
    alone = Cluster.objects.create(name="appends-alone")
    batched = Cluster.objects.create(name="appends-batched")
    for i in range(4):
        api.create(alone, _pod(f"p{i}"), KUBECTL)
    with memo.batch(), transaction.atomic():
        for i in range(4):
            api.create(batched, _pod(f"p{i}"), KUBECTL)
    assert _left_behind(batched) == _left_behind(alone)
    assert _left_behind(batched)[0] == 4


@pytest.mark.django_db(transaction=True)  # a real COMMIT, not the test's savepoint
def test_a_batch_moves_the_revision_once_and_sends_its_appends_before_the_commit():
    cluster = Cluster.objects.create(name="appends-once")
    pods = [api.create(cluster, _pod(f"p{i}"), KUBECTL) for i in range(5)]

    def batch() -> None:  # five status writes, as a kubelet's batch makes them
        with memo.batch(), transaction.atomic():
            for pod in pods:
                api.update(cluster, {**pod, "status": {"phase": "Running"}}, KUBECTL, "status")
            assert connection.deferred.waiting()  # nothing has read them yet

    ran = _statements(batch)
    bumps = [s for s in ran if s.startswith('UPDATE "cluster_cluster" SET revision')]
    assert bumps == [f'UPDATE "cluster_cluster" SET revision = 10 WHERE id = {cluster.pk}']
    assert ran.index(bumps[0]) < ran.index("COMMIT")
    assert not connection.deferred.waiting()
    assert WatchEvent.objects.filter(cluster=cluster, type="MODIFIED").count() == 5


def test_every_read_inside_the_batch_sees_the_waiting_rows():
    cluster = Cluster.objects.create(name="appends-read")
    with memo.batch(), transaction.atomic():
        api.create(cluster, _pod("a"), KUBECTL)
        assert connection.deferred.waiting()
        assert Cluster.objects.get(pk=cluster.pk).revision == 1
        api.create(cluster, _pod("b"), KUBECTL)
        assert list(WatchEvent.objects.filter(cluster=cluster).values_list("name", flat=True)) == ["a", "b"]
        assert FlowStep.objects.filter(trace__cluster=cluster, object_name="b").exists()
        assert not connection.deferred.waiting()


def test_a_rolled_back_savepoint_undoes_its_own_appends_and_keeps_those_made_before_it():
    cluster = Cluster.objects.create(name="appends-undo")
    with memo.batch(), transaction.atomic():
        api.create(cluster, _pod("kept"), KUBECTL)
        with pytest.raises(RuntimeError), transaction.atomic():
            # This read sends "kept"'s rows inside the savepoint: its rollback undoes them in
            # SQLite, and they must wait to be sent again.
            assert WatchEvent.objects.filter(cluster=cluster).count() == 1
            api.create(cluster, _pod("undone"), KUBECTL)
            raise RuntimeError("the savepoint rolls back")
        with pytest.raises(RuntimeError), transaction.atomic():
            api.create(cluster, _pod("undone-too"), KUBECTL)  # still waiting when it rolls back
            raise RuntimeError("the savepoint rolls back")
        api.create(cluster, _pod("next"), KUBECTL)
    revision, log, steps = _left_behind(cluster)
    assert revision == 2
    assert log == [(1, "ADDED", "kept"), (2, "ADDED", "next")]
    assert {name for name, *_ in steps} == {"kept", "next"}


def test_a_released_savepoint_inside_one_rolled_back_is_undone_with_it():
    cluster = Cluster.objects.create(name="appends-nested")
    with memo.batch(), transaction.atomic():
        api.create(cluster, _pod("kept"), KUBECTL)
        with pytest.raises(RuntimeError), transaction.atomic():
            with transaction.atomic():
                api.create(cluster, _pod("inner"), KUBECTL)
            assert Cluster.objects.get(pk=cluster.pk).revision == 2  # sent inside the outer savepoint
            raise RuntimeError("the outer savepoint rolls back")
    revision, log, _ = _left_behind(cluster)
    assert (revision, log) == (1, [(1, "ADDED", "kept")])


def test_outside_a_batch_and_while_queries_are_captured_every_append_runs_at_once():
    cluster = Cluster.objects.create(name="appends-now")
    with transaction.atomic():
        api.create(cluster, _pod("plain"), KUBECTL)
        assert not connection.deferred.waiting()
    with CaptureQueriesContext(connection) as queries, memo.batch(), transaction.atomic():
        api.create(cluster, _pod("captured"), KUBECTL)
        assert not connection.deferred.waiting()
    assert any(q["sql"].startswith('INSERT INTO "cluster_watchevent"') for q in queries.captured_queries)
