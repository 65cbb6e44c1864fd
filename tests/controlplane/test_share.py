"""Leadership shared out between control-plane processes: who takes, who hands over, who is alive,
and the fence that refuses a stale leader's writes (the processes themselves: tests/scaleout/)."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from cluster.apiserver import fence
from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.controlplane import share as sharing
from cluster.controlplane.share import Share
from cluster.models import ApiObject, Cluster, ControlPlaneMember

NAMES = [f"lab-{i:02d}" for i in range(60)]


def two_processes() -> Share:
    share = Share("cp-a")
    share.clusters = list(NAMES)
    share.members = 2
    return share


def take_all(share: Share) -> list[str]:
    taken = []
    for name in NAMES:
        if share.may_take(name, 0.0):
            share.settled(name, True)
            taken.append(name)
    return taken


def test_a_process_takes_free_leases_up_to_its_fair_share():
    share = two_processes()
    assert len(take_all(share)) == 30
    assert share.may_take(NAMES[0], 0.0), "a lease it leads is always its own"


def test_an_odd_cluster_still_finds_a_leader():
    share = two_processes()
    share.clusters.append("lab-odd")  # 61 over 2: 30.5 each
    assert len(take_all(share)) == 31, "below 30.5 it takes one more: the shares cover all 61"
    assert not share.may_take("lab-odd", 0.0)


def test_a_lease_expired_long_enough_is_taken_whatever_the_share():
    share = two_processes()
    take_all(share)
    assert not share.may_take(NAMES[-1], 0.0)
    assert share.may_take(NAMES[-1], sharing.ORPHAN_SECONDS)


def test_a_joining_process_gets_half_and_what_is_handed_over_is_not_taken_back():
    share = Share("cp-a")
    share.clusters = list(NAMES)
    assert len(take_all(share)) == 60  # alone
    share.members = 2  # another process joined
    share._rebalance()
    handing = sorted(share.handing)
    assert len(handing) == 30
    for name in handing:
        assert share.hands_over(name)
        share.handed_over(name)
    assert len(share.leading) == 30
    assert not any(share.may_take(name, 0.0) for name in handing)
    share._rebalance()
    assert not share.handing, "at its fair share: it keeps the rest"


def test_busy_clusters_weigh_more_and_the_lightest_are_handed_over():
    share = Share("cp-a")
    share.clusters = NAMES[:4]
    take_all(share)
    share.busy = {"lab-00": 0.2}  # weighs 1 + 10 * 0.2 = 3: the total is 6
    share.members = 2
    share._rebalance()
    assert share.handing == {"lab-01", "lab-02", "lab-03"}, "keeps the busy one (3), hands over 3 × 1"


def test_work_is_measured_from_the_control_planes_busy_seconds(monkeypatch):
    work = {"lab-00": 0.0}
    share = Share("cp-a", work_of=work.get)
    share.clusters = ["lab-00"]
    take_all(share)
    now = [100.0]
    monkeypatch.setattr(sharing.time, "monotonic", lambda: now[0])
    share._measure()
    for _ in range(200):  # busy half of every second
        now[0] += 1.0
        work["lab-00"] += 0.5
        share._measure()
    assert share.weight("lab-00") == 1 + sharing.WORK_WEIGHT * 0.5
    share.busy["lab-00"] = 0.02  # an idle sandbox's heartbeats: no weight of its own
    assert share.weight("lab-00") == 1.0
    share.busy["lab-00"] = 0.5
    del work["lab-00"]  # parked: no control plane, no work
    for _ in range(200):
        now[0] += 1.0
        share._measure()
    assert share.weight("lab-00") == 1.0, "a parked sandbox's weight falls back to an idle one's"


@pytest.mark.django_db
def test_members_are_alive_while_they_renew_and_publish_what_they_lead():
    ControlPlaneMember.objects.create(
        identity="cp-b", host="h", pid=2, renewed_at=timezone.now(), leads={"lab-09": 4.0}
    )
    ControlPlaneMember.objects.create(
        identity="cp-dead",
        host="h",
        pid=3,
        renewed_at=timezone.now() - datetime.timedelta(seconds=10),
        leads={"lab-08": 9.0},
    )
    share = Share("cp-a")
    share.clusters = NAMES[:10]
    take_all(share)
    share._renew()
    assert share.members == 2, "cp-dead stopped renewing"
    assert share.weight("lab-09") == 4.0 and share.weight("lab-08") == 1.0
    mine = ControlPlaneMember.objects.get(identity="cp-a")
    assert set(mine.leads) == set(share.leading)
    share._leave()
    assert not ControlPlaneMember.objects.filter(identity="cp-a").exists()


LEASE = {
    "apiVersion": "coordination.k8s.io/v1",
    "kind": "Lease",
    "metadata": {"name": "kubesim-controlplane", "namespace": "kube-system"},
    "spec": {"holderIdentity": "cp-b", "leaseDurationSeconds": 4},
}
CONFIG = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "default"}}


@pytest.mark.django_db
def test_a_stale_leaders_write_is_refused_and_changes_nothing():
    cluster = Cluster.objects.create(name="lab-fence", public=False)
    actor = Actor("controller-manager", "test")
    api.create(cluster, LEASE, actor)
    revision = Cluster.objects.get(pk=cluster.pk).revision
    with fence.leading("cp-a"), pytest.raises(fence.NotLeading, match="the Lease names cp-b"):
        api.create(cluster, CONFIG, actor)
    assert Cluster.objects.get(pk=cluster.pk).revision == revision
    assert not ApiObject.objects.filter(cluster=cluster, kind="ConfigMap").exists()
    with fence.leading("cp-b"):
        api.create(cluster, CONFIG, actor)
    api.delete(cluster, "ConfigMap", "default", "c", actor)  # requests are not fenced


def _lease_reads(queries: list) -> int:
    return sum(1 for sql, params in queries if "kubesim-controlplane" in (params or ()))


def _row_locks(queries: list) -> int:
    return sum(1 for sql, params in queries if sql.startswith("SELECT revision, compacted_revision, quota"))


@pytest.mark.django_db(transaction=True)
def test_a_transaction_locks_the_cluster_and_reads_the_lease_once_until_it_ends_or_a_savepoint_rolls_back(
    monkeypatch,
):
    from django.db import connection, transaction

    from database import held

    monkeypatch.setattr(held, "VENDORS", ("postgresql", "sqlite"))  # kept on PostgreSQL only

    cluster = Cluster.objects.create(name="lab-fence-once", public=False)
    actor = Actor("controller-manager", "test")
    api.create(cluster, LEASE, actor)
    queries = []

    def record(execute, sql, params, many, context):
        queries.append((sql, params))
        return execute(sql, params, many, context)

    def config(name: str) -> dict:
        return {**CONFIG, "metadata": {"name": name, "namespace": "default"}}

    with fence.leading("cp-b"), connection.execute_wrapper(record):
        with transaction.atomic():
            api.create(cluster, config("a"), actor)
            api.create(cluster, config("b"), actor)
            with transaction.atomic():
                api.create(cluster, config("c"), actor)
        assert _lease_reads(queries) == 1, "three writes under one lock: one check"
        assert _row_locks(queries) == 1, "and one read of the locked row, moved on by each write"
        with transaction.atomic():
            api.create(cluster, config("d"), actor)
            with pytest.raises(ValueError), transaction.atomic():
                api.create(cluster, config("e"), actor)
                raise ValueError  # the savepoint rolls back, and with it a lock taken inside
            api.create(cluster, config("f"), actor)
        assert _lease_reads(queries) == 3, "a new transaction checks; so does one after a rollback"
        assert _row_locks(queries) == 3
        api.create(cluster, config("g"), actor)  # its own transaction
        assert _lease_reads(queries) == 4
        with transaction.atomic():
            api.create(cluster, config("h"), actor)
            api.update(cluster, {**LEASE, "spec": {**LEASE["spec"], "holderIdentity": "cp-c"}}, actor)
            with pytest.raises(fence.NotLeading, match="the Lease names cp-c"):
                api.create(cluster, config("i"), actor)  # the Lease this transaction wrote is read
    assert not ApiObject.objects.filter(cluster=cluster, kind="ConfigMap", name__in=["e", "i"]).exists()
    assert ApiObject.objects.filter(cluster=cluster, kind="ConfigMap").count() == 7
    revisions = sorted(
        int(body["metadata"]["resourceVersion"])
        for body in ApiObject.objects.filter(cluster=cluster).values_list("body", flat=True)
    )
    assert len(set(revisions)) == len(revisions)
    assert Cluster.objects.get(pk=cluster.pk).revision == revisions[-1]
