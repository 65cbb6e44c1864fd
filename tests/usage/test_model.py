"""The usage model: idle profiles, busy loops, load generators spread over a Service's ready
endpoints, CPU limits, the scrape window, node totals (cluster/usage, docs/metrics.md)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cluster.usage import commands
from cluster.usage.commands import Request, parse_target, work_of
from cluster.usage.model import CPU_JITTER, WINDOW, sample, sample_time
from cluster.usage.profiles import NODE_SYSTEM_MEMORY, NODE_SYSTEM_MILLICORES, profile_of

NOW = datetime(2026, 12, 5, 8, 0, 0, tzinfo=UTC)
LONG_AGO = "2026-12-05T07:00:00Z"


def node(name: str = "node1", ready: bool = True) -> dict:
    return {
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {
            "allocatable": {"cpu": "4", "memory": "8Gi"},
            "conditions": [{"type": "Ready", "status": "True" if ready else "Unknown"}],
        },
    }


def pod(
    name,
    image="nginx:1.25",
    command=None,
    node_name="node1",
    started=LONG_AGO,
    ip="",
    limits=None,
    labels=None,
    ns="default",
):
    container = {"name": "c", "image": image, "ports": [{"containerPort": 80}]}
    if command:
        container["command"] = command
    if limits:
        container["resources"] = {"limits": limits}
    return {
        "metadata": {"name": name, "namespace": ns, "uid": f"uid-{name}", "labels": labels or {}},
        "spec": {"nodeName": node_name, "containers": [container]},
        "status": {
            "phase": "Running",
            "podIP": ip,
            "containerStatuses": [{"name": "c", "state": {"running": {"startedAt": started}}}],
        },
    }


def service(name="web", ip="10.96.0.20", port=80, target=80):
    return {
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"clusterIP": ip, "ports": [{"port": port, "targetPort": target}]},
    }


def endpoints(name, pods):
    return {
        "metadata": {"name": name, "namespace": "default"},
        "subsets": [
            {
                "addresses": [
                    {"ip": "10.244.1.9", "targetRef": {"kind": "Pod", "namespace": "default", "name": p}}
                    for p in pods
                ]
            }
        ],
    }


LOAD = ["/bin/sh", "-c", "while true; do wget -q -O- http://web; done"]


def near(value: float, expected: float) -> bool:
    return abs(value - expected) <= expected * CPU_JITTER + 1e-9


def test_an_idle_server_uses_its_images_idle_profile():
    scrape = sample([pod("web")], [], [], [node()], NOW)
    usage = scrape.pods[("default", "web")].containers[0]
    profile = profile_of("nginx:1.25")
    assert near(usage.millicores, profile.idle_millicores)
    assert abs(usage.memory - profile.idle_memory) <= profile.idle_memory * 0.006


def test_a_busy_loop_uses_one_core_unless_its_limit_throttles_it():
    spin = ["sh", "-c", "while true; do :; done"]
    scrape = sample(
        [pod("a", "busybox:1.36", spin), pod("b", "busybox:1.36", spin, limits={"cpu": "200m"})],
        [],
        [],
        [node()],
        NOW,
    )
    assert near(scrape.pods[("default", "a")].containers[0].millicores, 1000.0)
    assert scrape.pods[("default", "b")].containers[0].millicores == 200.0


def test_a_loop_that_sleeps_uses_next_to_nothing():
    scrape = sample(
        [pod("a", "busybox:1.36", ["sh", "-c", "while true; do echo tick; sleep 1; done"])],
        [],
        [],
        [node()],
        NOW,
    )
    assert scrape.pods[("default", "a")].containers[0].millicores < 1.0


def test_a_load_generator_spreads_its_requests_over_the_ready_endpoints():
    pods = [pod("web-1"), pod("web-2"), pod("load", "busybox:1.36", LOAD)]
    one = sample(pods, [service()], [endpoints("web", ["web-1"])], [node()], NOW)
    two = sample(pods, [service()], [endpoints("web", ["web-1", "web-2"])], [node()], NOW)
    rate = 1 / commands.REQUEST_SECONDS
    nginx = profile_of("nginx:1.25")
    busy = one.pods[("default", "web-1")].containers[0].millicores
    assert busy == pytest.approx(rate * nginx.cpu_per_rps, rel=0.01)
    assert near(one.pods[("default", "web-2")].containers[0].millicores, nginx.idle_millicores)
    shared = two.pods[("default", "web-1")].containers[0].millicores
    assert shared == pytest.approx(busy / 2, rel=0.01)


@pytest.mark.parametrize(
    "host", ["web", "web.default", "web.default.svc", "web.default.svc.cluster.local", "10.96.0.20"]
)
def test_the_service_is_found_by_each_of_its_names_and_its_cluster_ip(host):
    load = pod("load", "busybox:1.36", ["sh", "-c", f"while sleep 0.01; do wget -q -O- http://{host}/; done"])
    scrape = sample([pod("web"), load], [service()], [endpoints("web", ["web"])], [node()], NOW)
    assert scrape.pods[("default", "web")].containers[0].millicores > 20


def test_requests_to_a_port_the_service_does_not_serve_cost_no_server_anything():
    load = pod("load", "busybox:1.36", ["sh", "-c", "while true; do wget -q -O- http://web:8080; done"])
    scrape = sample([pod("web"), load], [service()], [endpoints("web", ["web"])], [node()], NOW)
    assert scrape.pods[("default", "web")].containers[0].millicores < 1


def test_a_container_inside_its_first_window_has_no_metrics_but_counts_on_its_node():
    fresh = (sample_time(NOW) - timedelta(seconds=WINDOW - 5)).strftime("%Y-%m-%dT%H:%M:%SZ")
    scrape = sample([pod("new", "mysql:8.0", started=fresh)], [], [], [node()], NOW)
    assert ("default", "new") not in scrape.pods
    assert scrape.nodes["node1"].memory > NODE_SYSTEM_MEMORY + profile_of("mysql:8.0").idle_memory * 0.99


def test_a_node_is_its_system_plus_its_pods_and_a_not_ready_node_has_no_metrics():
    scrape = sample([pod("web")], [], [], [node(), node("node2", ready=False)], NOW)
    assert set(scrape.nodes) == {"node1"}
    assert scrape.nodes["node1"].millicores == pytest.approx(NODE_SYSTEM_MILLICORES, rel=CPU_JITTER * 1.1)


def test_pods_not_running_have_no_metrics():
    pending = pod("p")
    pending["status"]["phase"] = "Pending"
    assert not sample([pending], [], [], [node()], NOW).pods


def test_the_same_moment_gives_the_same_figures():
    pods = [pod("web"), pod("load", "busybox:1.36", LOAD)]
    args = (pods, [service()], [endpoints("web", ["web"])], [node()])
    assert sample(*args, NOW) == sample(*args, NOW + timedelta(seconds=5))


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://web", Request("web", 80)),
        ("web:8080/x", Request("web", 8080)),
        ("https://Web.default.svc/", Request("web.default.svc", 443)),
        ("ftp://web", None),
        ("http://web:x", None),
    ],
)
def test_targets(url, expected):
    assert parse_target(url) == expected


def test_wget_and_curl_forms_are_read():
    for script in (
        "while true; do wget -q -O- http://web; done",
        "while true; do wget -qO- web; done",
        "while true; do curl -s -o /dev/null http://web; done",
        "while :; do wget -O - -T 1 http://web; sleep 0.1; done",
    ):
        work = work_of({"command": ["sh", "-c", script]})
        assert work.targets == (Request("web", 80),), script
    assert work_of({"command": ["sh", "-c", "wget -qO- http://web"]}).targets == ()  # once, not a load
