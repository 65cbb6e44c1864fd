"""client-go's event correlator defaults: spam filter (burst 25, one per 5 minutes) and aggregation."""

from __future__ import annotations

import secrets

from cluster.client import event_correlator as correlator


def _event(uid: str, message: str, reason: str = "SuccessfulCreate") -> dict:
    return {
        "involvedObject": {
            "kind": "ReplicationController",
            "namespace": "default",
            "name": "web",
            "uid": uid,
        },
        "source": {"component": "replication-controller"},
        "type": "Normal",
        "reason": reason,
        "message": message,
        "reportingComponent": "replication-controller",
        "reportingInstance": "",
    }


def test_a_source_may_send_25_events_about_an_object_then_one_every_five_minutes():
    uid, cluster = secrets.token_hex(8), "correlator"
    sent = [not correlator.spam_filtered(cluster, _event(uid, f"m{i}"), now=100.0) for i in range(30)]
    assert sent == [True] * 25 + [False] * 5
    assert correlator.spam_filtered(cluster, _event(uid, "later"), now=100.0 + 299.0)
    assert not correlator.spam_filtered(cluster, _event(uid, "later"), now=100.0 + 301.0)
    other = _event(secrets.token_hex(8), "another object has its own bucket")
    assert not correlator.spam_filtered(cluster, other, now=100.0)


def test_the_tenth_similar_event_becomes_the_combined_event():
    uid, cluster = secrets.token_hex(8), "correlator"
    events = [_event(uid, f"Created pod: web-{i}") for i in range(12)]
    keys = [correlator.aggregate(cluster, event, now=50.0) for event in events]
    assert keys[:9] == [None] * 9
    assert keys[9] is not None and keys[9] == keys[10] == keys[11]
    assert events[8]["message"] == "Created pod: web-8"
    assert events[9]["message"] == "(combined from similar events): Created pod: web-9"
    other_reason = _event(uid, "Deleted pod: web-1", reason="SuccessfulDelete")
    assert correlator.aggregate(cluster, other_reason, now=50.0) is None


def test_similar_events_ten_minutes_apart_start_a_new_group():
    uid, cluster = secrets.token_hex(8), "correlator"
    for i in range(9):
        assert correlator.aggregate(cluster, _event(uid, f"m{i}"), now=0.0) is None
    assert correlator.aggregate(cluster, _event(uid, "m9"), now=601.0) is None
