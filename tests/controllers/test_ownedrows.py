"""The controllers' plain-SQL reads of owned rows agree with the ORM lookups they replaced."""

from __future__ import annotations

from importlib import import_module

import pytest
from django.apps import apps
from django.db.models import Subquery

from cluster.apiserver import service as api
from cluster.controllers import ownedrows
from cluster.models import ApiObject, Cluster
from tests.support.demo import KUBECTL

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
        deleting="deletionTimestamp" in (meta or {}),  # as the API server's store sets it (below)
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


def bound_pod(name: str) -> dict:
    containers = [{"name": "c", "image": "nginx:1.27"}]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": containers, "nodeName": "node1"},
    }


def test_the_api_servers_writes_keep_the_deleting_column_true_to_the_body(demo):
    for name in ("going", "staying"):
        api.create(demo, bound_pod(name), KUBECTL)
    api.delete(demo, "Pod", "default", "going", KUBECTL)  # bound: Terminating until its kubelet stops it
    pods = ApiObject.objects.filter(cluster=demo, kind="Pod")
    marked = set(pods.filter(deleting=True).values_list("name", flat=True))
    assert (
        marked
        == {"going"}
        == set(pods.filter(body__metadata__has_key="deletionTimestamp").values_list("name", flat=True))
    )
    assert api.get(demo, "Pod", "default", "going")["metadata"]["deletionTimestamp"]


def test_the_migration_marks_the_rows_already_being_deleted(rows):
    cluster, _ = rows
    ApiObject.objects.update(deleting=False)  # as the column was added, before the data step
    migration = import_module("cluster.migrations.0009_apiobject_deleting")
    migration.mark_deleting(apps, None)
    marked = set(ApiObject.objects.filter(deleting=True).values_list("name", flat=True))
    assert marked == {"terminating", "null-stamp", "orphan-going"}
    assert ownedrows.active_pod_count(cluster.pk, OWNER) == 2 == orm_active(cluster, OWNER)
