"""Nudges carry the kinds written: an informer reads the log only when a kind it watches changed."""

from __future__ import annotations

import time

import pytest

from cluster.broadcast import nudge
from cluster.client.informer import REFRESH_SECONDS, Informer

CLUSTER = "nudges-test"


@pytest.fixture(autouse=True)
def fresh_cluster_name():
    for table in (nudge._latest, nudge._latest_of_kind, nudge._latest_kindless):
        table.pop(CLUSTER, None)
    yield
    for table in (nudge._latest, nudge._latest_of_kind, nudge._latest_kindless):
        table.pop(CLUSTER, None)


def informer_at(revision: int) -> Informer:
    informer = Informer(CLUSTER, "scheduler", ("Node", "Pod"), "Pods and Nodes", "")
    informer.revision, informer.stale, informer.read_at = revision, False, time.monotonic()
    return informer


def test_a_lease_renewal_or_an_event_does_not_make_a_pod_informer_read():
    informer = informer_at(10)
    nudge.notify(CLUSTER, 11, "Lease")
    nudge.notify(CLUSTER, 12, "Event")
    assert nudge.latest_revision(CLUSTER) == 12
    assert nudge.latest_revision_of(CLUSTER, ("Node", "Pod")) == 0
    assert informer.up_to_date()


def test_a_pod_write_makes_it_read():
    informer = informer_at(10)
    nudge.notify(CLUSTER, 11, "Pod")
    nudge.notify(CLUSTER, 12, "Lease")
    assert nudge.latest_revision_of(CLUSTER, ("Node", "Pod")) == 11
    assert not informer.up_to_date()


def test_a_nudge_without_kinds_makes_everyone_read():
    """A nudge from a process that did not say what it wrote may concern any kind."""
    informer = informer_at(10)
    nudge._remember(CLUSTER, 11, None)
    assert not informer.up_to_date()


def test_a_cross_process_nudge_names_every_kind_written_up_to_its_revision():
    message = nudge._nudge(CLUSTER, 14, False, frozenset({"Lease", "Pod"}))
    assert message["kinds"] == ["Lease", "Pod"] and message["revision"] == 14
    assert "kinds" not in nudge._nudge(CLUSTER, 14, False, None)
    nudge._remember(CLUSTER, message["revision"], message["kinds"])
    assert nudge.latest_revision_of(CLUSTER, ("Pod",)) == 14
    assert nudge.latest_revision_of(CLUSTER, ("Node",)) == 0


def test_an_informer_still_reads_now_and_then_so_its_revision_follows_the_log():
    informer = informer_at(10)
    nudge.notify(CLUSTER, 11, "Lease")
    informer.read_at = time.monotonic() - REFRESH_SECONDS - 1
    assert not informer.up_to_date()


def test_a_component_waiting_at_the_gate_is_not_busy():
    assert not nudge.busy(CLUSTER)
    with nudge.working(CLUSTER):
        assert nudge.busy(CLUSTER)
        with nudge.waiting(CLUSTER):
            assert not nudge.busy(CLUSTER)
        assert nudge.busy(CLUSTER)
    assert not nudge.busy(CLUSTER)


def test_news_of_some_kinds_moves_with_their_writes_and_kindless_nudges_only():
    def key():
        return nudge.news_of(nudge.revisions_by_kind(CLUSTER), ("Node",))

    nudge._remember(CLUSTER, 3, ("Node",))
    before = key()
    nudge._remember(CLUSTER, 4, ("Pod", "Event"))  # a pod starting: not a node's label
    assert key() == before
    nudge._remember(CLUSTER, 5, ("Node",))
    assert key() != before
    moved = key()
    nudge._remember(CLUSTER, 6)  # kinds not known: could be a node
    assert key() != moved
    assert nudge.news_of(nudge.revisions_by_kind(CLUSTER), ()) == (0, 6)
