"""What a transaction keeps once it holds the cluster's lock (database/held.py, rows.under_lock):
read once, and read again after the transaction's own write of the kind."""

from __future__ import annotations

import pytest
from django.db import connection, transaction

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError
from cluster.models import Cluster
from database import held

pytestmark = pytest.mark.django_db(transaction=True)
ACTOR = Actor("controller-manager", "test")


@pytest.fixture(autouse=True)
def _held_on_sqlite(monkeypatch):
    """Kept on PostgreSQL only; the rules are the same on SQLite, where a transactional test commits."""
    monkeypatch.setattr(held, "VENDORS", ("postgresql", "sqlite"))


def config(name: str, namespace: str = "team") -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name, "namespace": namespace}}


def recorded():
    queries = []

    def record(execute, sql, params, many, context):
        queries.append((sql, params))
        return execute(sql, params, many, context)

    return queries, connection.execute_wrapper(record)


def test_a_batch_reads_its_namespace_once_and_again_after_writing_it():
    cluster = Cluster.objects.create(name="lab-held-ns", public=False)
    api.create(cluster, {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team"}}, ACTOR)
    queries, wrapper = recorded()
    with wrapper, transaction.atomic():
        for i in range(3):
            api.create(cluster, config(f"c{i}"), ACTOR)
        finds = [params for sql, params in queries if sql.startswith("SELECT id, uid")]
        reads = sum(1 for params in finds if "Namespace" in params)
        assert reads == 1, "three creates in one namespace under one lock: one read of it"
        api.delete(cluster, "Namespace", "", "team", ACTOR)  # Terminating: written by this transaction
        with pytest.raises(ApiError, match="because it is being terminated"):
            api.create(cluster, config("late"), ACTOR)


def test_a_quota_written_in_the_transaction_judges_its_next_creates():
    cluster = Cluster.objects.create(name="lab-held-quota", public=False)
    with transaction.atomic():
        api.create(cluster, config("before", "default"), ACTOR)  # the quotas read (none) and kept
        quota = {
            "apiVersion": "v1",
            "kind": "ResourceQuota",
            "metadata": {"name": "few", "namespace": "default"},
            "spec": {"hard": {"count/configmaps": "1"}},
        }
        api.create(cluster, quota, ACTOR)
        with pytest.raises(ApiError, match="exceeded quota: few"):
            api.create(cluster, config("after", "default"), ACTOR)
