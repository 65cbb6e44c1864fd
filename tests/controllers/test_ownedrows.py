"""The controllers' plain-SQL reads of owned rows agree with the ORM lookups they replaced."""

from __future__ import annotations

import pytest
from django.db.models import Subquery

from cluster.controllers import ownedrows
from cluster.models import ApiObject, Cluster

pytestmark = pytest.mark.django_db

OWNER = "11111111-1111-1111-1111-111111111111"
GONE = "22222222-2222-2222-2222-222222222222"


def stored(cluster: Cluster, name: str, *, kind="Pod", uid="", owner="", phase="Running", meta=None):
    body = {"kind": kind, "metadata": {"name": name, "namespace": "default", **(meta or {})}}
    return ApiObject.objects.create(
        cluster=cluster,
        kind=kind,
        namespace="default",
        name=name,
        uid=uid or f"uid-{name}",
        resource_version=1,
        body=body,
        phase=phase,
        owner_uid=owner,
    )


@pytest.fixture
def rows():
    cluster = Cluster.objects.create(name="owned")
    other = Cluster.objects.create(name="elsewhere")
    stored(cluster, "rc", kind="ReplicationController", uid=OWNER, phase="")
    stored(cluster, "running", owner=OWNER)
    stored(cluster, "pending", owner=OWNER, phase="Pending")
    stored(cluster, "done", owner=OWNER, phase="Succeeded")
    stored(cluster, "failed", owner=OWNER, phase="Failed")
    stored(cluster, "terminating", owner=OWNER, meta={"deletionTimestamp": "2026-12-03T10:00:00Z"})
    stored(cluster, "null-stamp", owner=OWNER, meta={"deletionTimestamp": None})
    stored(cluster, "orphan", owner=GONE)
    stored(cluster, "orphan-going", owner=GONE, meta={"deletionTimestamp": "2026-12-03T10:00:00Z"})
    stored(cluster, "bare")
    stored(other, "other-cluster", owner=OWNER)  # its owner lives in another cluster: dangling there
    stored(other, "rc-elsewhere", kind="ReplicationController", uid=GONE, phase="")
    return cluster, other


def orm_active(cluster: Cluster, owner_uid: str) -> int:
    pods = ApiObject.objects.filter(cluster_id=cluster.pk, kind="Pod", owner_uid=owner_uid)
    active = pods.exclude(phase__in=ownedrows.TERMINAL_PHASES)
    return active.exclude(body__metadata__has_key="deletionTimestamp").count()


def orm_dangling(cluster: Cluster) -> set[tuple[str, str, str]]:
    found = ApiObject.objects.filter(cluster_id=cluster.pk)
    return set(
        found.exclude(owner_uid="")
        .exclude(owner_uid__in=Subquery(found.values("uid")))
        .exclude(body__metadata__has_key="deletionTimestamp")
        .values_list("kind", "namespace", "name")
    )


def test_active_pods_are_neither_terminal_nor_terminating(rows):
    cluster, other = rows
    assert ownedrows.active_pod_count(cluster.pk, OWNER) == 2  # running, pending
    assert ownedrows.active_pod_count(cluster.pk, GONE) == 1
    assert ownedrows.active_pod_count(other.pk, OWNER) == 1
    for where, uid in ((cluster, OWNER), (cluster, GONE), (other, OWNER), (other, GONE)):
        assert ownedrows.active_pod_count(where.pk, uid) == orm_active(where, uid), (where.name, uid)


def test_dangling_dependents_name_no_object_of_their_own_cluster(rows):
    cluster, other = rows
    assert set(ownedrows.dangling(cluster.pk, 200)) == {("Pod", "default", "orphan")} == orm_dangling(cluster)
    elsewhere = {("Pod", "default", "other-cluster")}
    assert set(ownedrows.dangling(other.pk, 200)) == elsewhere == orm_dangling(other)
    assert len(ownedrows.dangling(cluster.pk, 0)) == 0
