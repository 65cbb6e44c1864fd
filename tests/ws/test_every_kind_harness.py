"""For every served kind, through create, update, patch and delete (and scale where it has the
subresource): the snapshot a page loads plus the messages that follow equal a fresh snapshot, and
every message fits its type's schema (tests/ws/messages.py)."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from bench.hostile.bodies import KINDS, valid
from cluster.apiserver import kinds
from cluster.apiserver import service as api
from cluster.controlplane import runtime
from cluster.flow import snapshot
from tests.support.demo import KUBECTL
from tests.ws.messages import check
from tests.ws.test_cluster_socket import connect, drain

pytestmark = pytest.mark.django_db(transaction=True)
MERGE = "application/merge-patch+json"
SECTIONS = ("nodes", "pods", "workloads", "services", "endpoints")
# Leases are heartbeats: the page is sent only the control plane's leader changes (broadcast/hub.py).
NOT_SENT = ("Lease",)


def _section(kind: str) -> str | None:
    """The snapshot's list of `kind`, or None for a kind the page is not sent a list of."""
    named = {"Node": "nodes", "Pod": "pods", "Service": "services", "Endpoints": "endpoints"}
    return named.get(kind) or ("workloads" if kind in kinds.workload_kinds() else None)


def _comparable(state: dict) -> dict:
    return {
        section: {
            (o["kind"], o["metadata"].get("namespace", ""), o["metadata"]["name"]): o for o in state[section]
        }
        for section in SECTIONS
    }


def _apply(state: dict, message: dict) -> None:
    section = _section(message["kind"])
    if section is None:
        return
    obj = message["object"]
    key = (message["kind"], obj["metadata"].get("namespace", ""), obj["metadata"]["name"])
    if message["type"] == "object.deleted":
        state[section].pop(key, None)
    else:
        state[section][key] = obj


def _writes(info) -> list:
    """The verbs a page must follow, in order, each a function of the cluster."""
    namespace = "default" if info.namespaced else None
    name = "every"

    def create(cluster) -> None:
        if info.kind == "Endpoints":
            # Endpoints of their own: a Service without a selector, which no controller fills.
            service = valid("Service", name)
            del service["spec"]["selector"]
            api.create(cluster, service, KUBECTL)
        api.create(cluster, valid(info.kind, name), KUBECTL)

    def update(cluster) -> None:
        obj = api.get(cluster, info.kind, namespace, name)
        obj["metadata"].setdefault("labels", {})["updated"] = "yes"
        api.update(cluster, obj, KUBECTL)

    def patch(cluster) -> None:
        body = {"metadata": {"labels": {"patched": "yes"}}}
        api.patch(cluster, info.kind, namespace, name, body, MERGE, KUBECTL)

    def scale(cluster) -> None:
        api.scale(cluster, info.kind, namespace, name, 1, KUBECTL)

    def delete(cluster) -> None:
        api.delete(cluster, info.kind, namespace, name, KUBECTL, grace_period=0)

    return [create, update, patch, *((scale,) if info.has_scale else ()), delete]


@pytest.mark.parametrize("kind", KINDS)
async def test_snapshot_plus_events_is_a_fresh_snapshot_for_every_verb_of(kind, demo):
    await runtime.run_until_idle("demo")
    communicator, first = await connect()
    try:
        check(first)
        state = _comparable(first)
        last = first["revision"]
        for write in _writes(kinds.kind_info(kind)):
            await database_sync_to_async(write)(demo)
            await runtime.run_until_idle("demo")
            messages = await drain(communicator)
            sent = any(m["type"].startswith("object.") and m["kind"] == kind for m in messages)
            assert sent == (kind not in NOT_SENT), write.__name__
            for message in messages:
                check(message)
                if message["type"].startswith("object."):
                    assert message["revision"] > last and message["prev_revision"] <= last
                    last = message["revision"]
                    _apply(state, message)
            fresh = await database_sync_to_async(snapshot.build)(demo)
            check(fresh)
            assert state == _comparable(fresh), write.__name__
    finally:
        await communicator.disconnect()
