"""The pod facts the page shows, from kubectl's printer: STATUS, READY, RESTARTS (podview.facts),
and the probe's words an Event summary keeps (pageview.event_summary)."""

from __future__ import annotations

from cluster.broadcast import pageview, podview


def _pod(**status) -> dict:
    spec = {
        "initContainers": [{"name": "wait-db"}],
        "containers": [{"name": "web", "resources": {"requests": {"cpu": "100m"}}}],
    }
    return {"metadata": {"name": "p", "namespace": "default"}, "spec": spec, "status": status}


def test_an_init_container_that_exited_1_reads_init_error_0_of_1():
    pod = _pod(
        phase="Pending",
        initContainerStatuses=[
            {"name": "wait-db", "state": {"terminated": {"exitCode": 1, "reason": "Error"}}}
        ],
        containerStatuses=[
            {"name": "web", "ready": False, "state": {"waiting": {"reason": "PodInitializing"}}}
        ],
    )
    status, requests, columns = podview.facts(pod)
    assert (status, columns) == ("Init:Error", {"ready": "0/1", "restarts": 0})
    assert requests == {"cpu": 100, "memory": 0}


def test_a_running_pod_whose_readiness_fails_reads_0_of_1_with_its_restarts():
    last = {"terminated": {"exitCode": 137, "reason": "Error", "finishedAt": "2026-12-05T10:00:05Z"}}
    pod = _pod(
        phase="Running",
        conditions=[{"type": "Initialized", "status": "True"}, {"type": "Ready", "status": "False"}],
        initContainerStatuses=[
            {"name": "wait-db", "state": {"terminated": {"exitCode": 0, "reason": "Completed"}}}
        ],
        containerStatuses=[
            {"name": "web", "ready": False, "restartCount": 2, "state": {"running": {}}, "lastState": last}
        ],
    )
    status, _requests, columns = podview.facts(pod)
    assert status == "Running"
    assert columns == {"ready": "0/1", "restarts": 2, "lastRestart": "2026-12-05T10:00:05Z"}


REFUSED = 'Readiness probe failed: Get "http://10.244.1.5:8080/": dial tcp 10.244.1.5:8080: connect: refused'


def test_only_a_probe_failures_event_keeps_its_message_for_the_page():
    involved = {
        "kind": "Pod",
        "namespace": "default",
        "name": "p",
        "uid": "u1",
        "fieldPath": "spec.containers{web}",
    }
    unhealthy = {
        "metadata": {"name": "p.1", "namespace": "default"},
        "involvedObject": involved,
        "reason": "Unhealthy",
        "type": "Warning",
        "count": 3,
        "message": REFUSED,
    }
    summary = pageview.event_summary(unhealthy)
    assert summary["message"] == unhealthy["message"] and summary["count"] == 3
    assert "fieldPath" not in summary["involvedObject"]
    pulled = {
        **unhealthy,
        "reason": "Pulled",
        "type": "Normal",
        "message": 'Container image "nginx" already present',
    }
    assert "message" not in pageview.event_summary(pulled)
