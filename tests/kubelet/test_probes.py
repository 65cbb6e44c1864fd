"""Probes as the kubelet runs them: upstream's defaults stored, readiness driving the Ready
condition and the endpoints, liveness and startup failures restarting the container, in
upstream's words, on the cluster's clock."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)


def _pod(name: str, image: str = "nginx:1.25", labels: dict | None = None, **probes) -> dict:
    container = {"name": "web", "image": image, **probes}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": labels or {"app": name}},
        "spec": {"nodeName": "node1", "containers": [container]},
    }


def _status(cluster, name: str) -> dict:
    return api.get(cluster, "Pod", "default", name)["status"]


def _condition(status: dict, type_: str) -> dict:
    return next(c for c in status["conditions"] if c["type"] == type_)


def _messages(cluster, name: str, reason: str) -> list[tuple[str, int]]:
    events, _ = api.list_objects(cluster, "Event", "default")
    return [
        (e["message"], e["count"])
        for e in events
        if e["involvedObject"]["name"] == name and e["reason"] == reason
    ]


def test_upstreams_defaults_are_stored(demo):
    probe = {"httpGet": {"port": 80}}
    created = api.create(
        demo, _pod("defaults", readinessProbe=probe, livenessProbe={"tcpSocket": {"port": 80}}), KUBECTL
    )
    container = created["spec"]["containers"][0]
    assert container["readinessProbe"] == {
        "httpGet": {"port": 80, "path": "/", "scheme": "HTTP"},
        "timeoutSeconds": 1,
        "periodSeconds": 10,
        "successThreshold": 1,
        "failureThreshold": 3,
    }
    assert container["livenessProbe"]["failureThreshold"] == 3


def test_a_readiness_probe_on_a_closed_port_keeps_the_pod_unready_and_out_of_the_endpoints(demo, fake_clock):
    drive()
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": "closed"},
        "spec": {"selector": {"app": "closed"}, "ports": [{"port": 80}]},
    }
    api.create(demo, service, KUBECTL)
    api.create(demo, _pod("closed", readinessProbe={"httpGet": {"port": 8080}}), KUBECTL)
    drive()
    status = _status(demo, "closed")
    ip = status["podIP"]
    assert status["phase"] == "Running"
    assert status["containerStatuses"][0]["ready"] is False
    assert status["containerStatuses"][0]["started"] is True
    ready = _condition(status, "Ready")
    assert (ready["status"], ready["reason"], ready["message"]) == (
        "False",
        "ContainersNotReady",
        "containers with unready status: [web]",
    )
    refused = f"dial tcp {ip}:8080: connect: connection refused"
    assert _messages(demo, "closed", "Unhealthy") == [
        (f'Readiness probe failed: Get "http://{ip}:8080/": {refused}', 1)
    ]
    endpoints = api.get(demo, "Endpoints", "default", "closed")
    assert [a["ip"] for s in endpoints.get("subsets") or [] for a in s.get("addresses") or []] == []
    assert [a["ip"] for s in endpoints["subsets"] for a in s.get("notReadyAddresses") or []] == [ip]
    fake_clock.advance(10)
    drive()
    assert _messages(demo, "closed", "Unhealthy")[0][1] == 2  # every period, one more


def test_a_readiness_probe_that_passes_makes_the_pod_ready(demo, fake_clock):
    drive()
    api.create(
        demo, _pod("open", readinessProbe={"httpGet": {"port": 80}, "initialDelaySeconds": 5}), KUBECTL
    )
    drive()
    assert _status(demo, "open")["containerStatuses"][0]["ready"] is False  # before its first run
    fake_clock.advance(5)
    drive()
    status = _status(demo, "open")
    assert status["containerStatuses"][0]["ready"] is True
    assert _condition(status, "Ready")["status"] == "True" and "reason" not in _condition(status, "Ready")
    assert _messages(demo, "open", "Unhealthy") == []


def test_a_missing_page_fails_with_its_status_code(demo):
    drive()
    api.create(demo, _pod("nopage", readinessProbe={"httpGet": {"port": 80, "path": "/healthz"}}), KUBECTL)
    drive()
    assert _messages(demo, "nopage", "Unhealthy") == [
        ("Readiness probe failed: HTTP probe failed with statuscode: 404", 1)
    ]


def test_a_failing_liveness_probe_restarts_the_container(demo, fake_clock):
    drive()
    api.create(demo, _pod("sick", livenessProbe={"tcpSocket": {"port": 8080}, "periodSeconds": 5}), KUBECTL)
    drive()
    first = _status(demo, "sick")["containerStatuses"][0]
    ip = _status(demo, "sick")["podIP"]
    assert first["ready"] is True  # liveness says nothing about readiness
    for _ in range(2):
        fake_clock.advance(5)
        drive()
    assert _messages(demo, "sick", "Unhealthy") == [
        (f"Liveness probe failed: dial tcp {ip}:8080: connect: connection refused", 3)
    ]
    assert _messages(demo, "sick", "Killing") == [
        ("Container web failed liveness probe, will be restarted", 1)
    ]
    fake_clock.advance(1)  # nginx stops at once on SIGTERM
    drive()
    again = _status(demo, "sick")["containerStatuses"][0]
    assert again["restartCount"] == 1 and again["containerID"] != first["containerID"]
    assert again["lastState"]["terminated"]["exitCode"] == 0
    assert again["lastState"]["terminated"]["reason"] == "Completed"
    assert again["lastState"]["terminated"]["containerID"] == first["containerID"]
    assert [m for m, _ in _messages(demo, "sick", "Started")] == ["Started container web"]
    assert _messages(demo, "sick", "Started")[0][1] == 2


def test_exec_probes_run_in_the_container(demo, fake_clock):
    drive()
    ok = {"exec": {"command": ["cat", "/usr/share/nginx/html/index.html"]}}
    bad = {"exec": {"command": ["cat", "/tmp/healthy"]}}
    api.create(demo, _pod("execs", readinessProbe=ok, livenessProbe=bad), KUBECTL)
    drive()
    assert _status(demo, "execs")["containerStatuses"][0]["ready"] is True
    assert _messages(demo, "execs", "Unhealthy") == [
        ("Liveness probe failed: cat: /tmp/healthy: No such file or directory\n", 1)
    ]


def test_a_startup_probe_holds_the_others_until_it_passes(demo, fake_clock):
    drive()
    startup = {"tcpSocket": {"port": 80}, "initialDelaySeconds": 20}
    api.create(demo, _pod("slow", startupProbe=startup, readinessProbe={"tcpSocket": {"port": 80}}), KUBECTL)
    drive()
    entry = _status(demo, "slow")["containerStatuses"][0]
    assert (entry["started"], entry["ready"]) == (False, False)
    fake_clock.advance(20)
    drive()
    entry = _status(demo, "slow")["containerStatuses"][0]
    assert entry["started"] is True
    fake_clock.advance(10)
    drive()
    assert _status(demo, "slow")["containerStatuses"][0]["ready"] is True


def test_a_grpc_probe_against_a_server_without_grpc_health_times_out(demo):
    drive()
    api.create(demo, _pod("grpc", readinessProbe={"grpc": {"port": 9090}}), KUBECTL)
    drive()
    ip = _status(demo, "grpc")["podIP"]
    assert _messages(demo, "grpc", "Unhealthy") == [
        (
            f'Readiness probe failed: timeout: failed to connect service "{ip}:9090" within 1s: '
            "context deadline exceeded",
            1,
        )
    ]


@pytest.mark.parametrize(
    ("probe", "kind", "cause"),
    [
        (
            {},
            "livenessProbe",
            ("spec.containers[0].livenessProbe", "Required value: must specify a handler type"),
        ),
        (
            {"tcpSocket": {"port": 80}, "exec": {"command": ["true"]}},
            "readinessProbe",
            (
                "spec.containers[0].readinessProbe.tcpSocket",
                "Forbidden: may not specify more than 1 handler type",
            ),
        ),
        (
            {"tcpSocket": {"port": 80}, "successThreshold": 2},
            "livenessProbe",
            ("spec.containers[0].livenessProbe.successThreshold", "Invalid value: 2: must be 1"),
        ),
        (
            {"tcpSocket": {"port": 80}, "periodSeconds": -5},
            "readinessProbe",
            (
                "spec.containers[0].readinessProbe.periodSeconds",
                "Invalid value: -5: must be greater than or equal to 0",
            ),
        ),
        (
            {"httpGet": {"port": 70000}},
            "startupProbe",
            (
                "spec.containers[0].startupProbe.httpGet.port",
                "Invalid value: 70000: must be between 1 and 65535, inclusive",
            ),
        ),
    ],
)
def test_probes_are_validated_as_kube_apiserver_does(demo, probe, kind, cause):
    with pytest.raises(ApiError) as error:
        api.create(demo, _pod("invalid", **{kind: probe}), KUBECTL)
    assert error.value.code == 422
    causes = [(c["field"], c["message"]) for c in error.value.details["causes"]]
    assert cause in causes, causes


def test_the_docs_tcp_example_passes(demo):
    drive()
    tcp = {"tcpSocket": {"port": 8080}}
    api.create(
        demo, _pod("goproxy", "registry.k8s.io/goproxy:0.1", readinessProbe=tcp, livenessProbe=tcp), KUBECTL
    )
    drive()
    assert _status(demo, "goproxy")["containerStatuses"][0]["ready"] is True
    assert _messages(demo, "goproxy", "Unhealthy") == []


def test_the_docs_http_liveness_example_restarts_after_ten_seconds(demo, fake_clock):
    drive()
    probe = {"httpGet": {"path": "/healthz", "port": 8080}, "initialDelaySeconds": 3, "periodSeconds": 3}
    pod = _pod("liveness", "registry.k8s.io/e2e-test-images/agnhost:2.40", livenessProbe=probe)
    pod["spec"]["containers"][0]["args"] = ["liveness"]
    api.create(demo, pod, KUBECTL)
    drive()
    for _ in range(3):  # runs at 3, 6, 9 s: healthy
        fake_clock.advance(3)
        drive()
    assert _messages(demo, "liveness", "Unhealthy") == []
    for _ in range(3):  # 12, 15, 18 s: 500, three times
        fake_clock.advance(3)
        drive()
    assert _messages(demo, "liveness", "Unhealthy") == [
        ("Liveness probe failed: HTTP probe failed with statuscode: 500", 3)
    ]
    assert _messages(demo, "liveness", "Killing") == [
        ("Container web failed liveness probe, will be restarted", 1)
    ]
    fake_clock.advance(1)
    drive()
    assert _status(demo, "liveness")["containerStatuses"][0]["restartCount"] == 1


def test_a_container_its_liveness_probe_keeps_killing_backs_off_as_a_crash_loop(demo, fake_clock):
    drive()
    api.create(demo, _pod("loop", livenessProbe={"tcpSocket": {"port": 8080}, "periodSeconds": 5}), KUBECTL)
    drive()
    for _ in range(3):  # fails at 5 and 10 s; killed at 15 s, restarted at once (nginx stops at once)
        fake_clock.advance(5)
        drive()
    fake_clock.advance(1)
    drive()
    assert _status(demo, "loop")["containerStatuses"][0]["restartCount"] == 1
    for _ in range(3):  # three more failures: killed again, now within the back-off
        fake_clock.advance(5)
        drive()
    fake_clock.advance(1)
    drive()
    waiting = _status(demo, "loop")["containerStatuses"][0]
    assert waiting["restartCount"] == 1
    assert waiting["state"]["waiting"]["reason"] == "CrashLoopBackOff"
    assert waiting["state"]["waiting"]["message"].startswith(
        "back-off 10s restarting failed container=web pod=loop_"
    )
    assert waiting["lastState"]["terminated"]["reason"] == "Completed"
    (backoff,) = _messages(demo, "loop", "BackOff")
    assert backoff[0].startswith("Back-off restarting failed container web in pod loop_default(")
    fake_clock.advance(10)
    drive()
    again = _status(demo, "loop")["containerStatuses"][0]
    assert again["restartCount"] == 2 and "running" in again["state"]
