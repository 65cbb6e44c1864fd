"""Nudges carry the kinds written: an informer reads the log only when a kind it watches changed."""

from __future__ import annotations

import time

import pytest

from cluster import broadcast
from cluster.informer import REFRESH_SECONDS, Informer

CLUSTER = "nudges-test"


@pytest.fixture(autouse=True)
def fresh_cluster_name():
    for table in (broadcast._latest, broadcast._latest_of_kind, broadcast._latest_kindless):
        table.pop(CLUSTER, None)
    yield
    for table in (broadcast._latest, broadcast._latest_of_kind, broadcast._latest_kindless):
        table.pop(CLUSTER, None)


def informer_at(revision: int) -> Informer:
    informer = Informer(CLUSTER, "scheduler", ("Node", "Pod"), "Pods and Nodes", "")
    informer.revision, informer.stale, informer.read_at = revision, False, time.monotonic()
    return informer


def test_a_lease_renewal_or_an_event_does_not_make_a_pod_informer_read():
    informer = informer_at(10)
    broadcast.notify(CLUSTER, 11, "Lease")
    broadcast.notify(CLUSTER, 12, "Event")
    assert broadcast.latest_revision(CLUSTER) == 12
    assert broadcast.latest_revision_of(CLUSTER, ("Node", "Pod")) == 0
    assert informer.up_to_date()


def test_a_pod_write_makes_it_read():
    informer = informer_at(10)
    broadcast.notify(CLUSTER, 11, "Pod")
    broadcast.notify(CLUSTER, 12, "Lease")
    assert broadcast.latest_revision_of(CLUSTER, ("Node", "Pod")) == 11
    assert not informer.up_to_date()


def test_a_nudge_without_kinds_makes_everyone_read():
    """A nudge from a process that did not say what it wrote may concern any kind."""
    informer = informer_at(10)
    broadcast._remember(CLUSTER, 11, None)
    assert not informer.up_to_date()


def test_a_cross_process_nudge_names_every_kind_written_up_to_its_revision():
    nudge = broadcast._nudge(CLUSTER, 14, False, frozenset({"Lease", "Pod"}))
    assert nudge["kinds"] == ["Lease", "Pod"] and nudge["revision"] == 14
    assert "kinds" not in broadcast._nudge(CLUSTER, 14, False, None)
    broadcast._remember(CLUSTER, nudge["revision"], nudge["kinds"])
    assert broadcast.latest_revision_of(CLUSTER, ("Pod",)) == 14
    assert broadcast.latest_revision_of(CLUSTER, ("Node",)) == 0


def test_an_informer_still_reads_now_and_then_so_its_revision_follows_the_log():
    informer = informer_at(10)
    broadcast.notify(CLUSTER, 11, "Lease")
    informer.read_at = time.monotonic() - REFRESH_SECONDS - 1
    assert not informer.up_to_date()


def test_a_component_waiting_at_the_gate_is_not_busy():
    assert not broadcast.busy(CLUSTER)
    with broadcast.working(CLUSTER):
        assert broadcast.busy(CLUSTER)
        with broadcast.waiting(CLUSTER):
            assert not broadcast.busy(CLUSTER)
        assert broadcast.busy(CLUSTER)
    assert not broadcast.busy(CLUSTER)


def test_news_of_some_kinds_moves_with_their_writes_and_kindless_nudges_only():
    def key():
        return broadcast.news_of(broadcast.revisions_by_kind(CLUSTER), ("Node",))

    broadcast._remember(CLUSTER, 3, ("Node",))
    before = key()
    broadcast._remember(CLUSTER, 4, ("Pod", "Event"))  # a pod starting: not a node's label
    assert key() == before
    broadcast._remember(CLUSTER, 5, ("Node",))
    assert key() != before
    moved = key()
    broadcast._remember(CLUSTER, 6)  # kinds not known: could be a node
    assert key() != moved
    assert broadcast.news_of(broadcast.revisions_by_kind(CLUSTER), ()) == (0, 6)
