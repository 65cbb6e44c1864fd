"""The control planes' Leases renewed in one statement per process and judged from one read per
period: renewals move no cluster's revision, a standby still sees a dead holder's lease expire,
and a client reading the Lease sees renewTime (and resourceVersion) move as upstream's do."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from cluster.apiserver import service as api
from cluster.client import leader, leaseboard
from cluster.controlplane.share import Share
from cluster.models import Cluster, ControlPlaneMember


def process(identity: str, cluster: Cluster) -> tuple[Share, leader.Elector]:
    share = Share(identity)
    share.clusters, share.ids = [cluster.name], {cluster.name: cluster.pk}
    return share, leader.Elector(cluster.name, identity)


def attempt(share: Share, elector: leader.Elector) -> bool:
    """One campaign round, as leader.campaign runs it (without the event loop)."""
    board = share._poll(True)
    name = elector.cluster_name
    if elector.judge(board, share.renewed_at, lambda expired_for: share.may_take(name, expired_for)):
        elector.take()
    share.settled(name, elector.leading)
    return elector.leading


def revision(cluster: Cluster) -> int:
    return Cluster.objects.get(pk=cluster.pk).revision


@pytest.mark.django_db
def test_renewals_move_no_revision_and_a_dead_holders_lease_expires(monkeypatch):
    cluster = Cluster.objects.create(name="lab-board", public=False)
    share_a, a = process("cp-a", cluster)
    share_b, b = process("cp-b", cluster)
    assert attempt(share_a, a), "a free lease is taken"
    assert not attempt(share_b, b), "held and renewed: cp-b stands by"
    before = revision(cluster)
    for _ in range(5):
        assert attempt(share_a, a) and not attempt(share_b, b)
    assert revision(cluster) == before, "renewing the lease wrote no object"

    # cp-a dies: its row stops moving; cp-b sees no renewal for the lease's duration.
    ControlPlaneMember.objects.filter(identity="cp-a").update(
        renewed_at=timezone.now() - datetime.timedelta(seconds=10)
    )
    assert not attempt(share_b, b), "the change is seen now; the lease expires 4 s later"
    later = leader.time.monotonic() + leader.LEASE_DURATION_SECONDS + 2.5
    monkeypatch.setattr(leader.time, "monotonic", lambda: later)
    assert attempt(share_b, b)
    spec = api.get(cluster, "Lease", "kube-system", "kubesim-controlplane")["spec"]
    assert (spec["holderIdentity"], spec["leaseTransitions"]) == ("cp-b", 1)
    assert revision(cluster) == before + 1, "the takeover is one write"
    assert not a.judge(share_a._poll(False), share_a.renewed_at, lambda _: False) and not a.leading


@pytest.mark.django_db
def test_a_client_reading_the_lease_sees_the_holders_last_renewal():
    cluster = Cluster.objects.create(name="lab-read", public=False)
    share, elector = process("cp-a", cluster)
    assert attempt(share, elector) and attempt(share, elector)  # the second renewal names it
    stored = api.get(cluster, "Lease", "kube-system", "kubesim-controlplane")
    renewed = timezone.now() + datetime.timedelta(seconds=5)
    ControlPlaneMember.objects.filter(identity="cp-a").update(renewed_at=renewed)

    leader.show_renewal(cluster, "kube-system")  # as a client's GET, LIST or watch does first
    served = api.get(cluster, "Lease", "kube-system", "kubesim-controlplane")
    assert served["spec"]["renewTime"] == leaseboard.micro(renewed)
    assert int(served["metadata"]["resourceVersion"]) > int(stored["metadata"]["resourceVersion"])
    leader.show_renewal(cluster, None)
    listed = api.list_objects(cluster, "Lease", "kube-system", served=True)[0]
    assert listed == [served], "renewed a moment ago: read again without a write"
    assert leader.current(cluster)["renewTime"] == leaseboard.micro(renewed)
