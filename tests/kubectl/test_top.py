"""`kubectl top nodes|pods` with the real kubectl against the metrics API (docs/metrics.md): the
columns and units kubectl prints, `--containers`, `-A`, `--sort-by`, metrics-server's errors, and a
load generator's `wget` loop raising the CPU of the Service's pods."""

from __future__ import annotations

import json
import math
import re

import pytest

from tests.kubectl.conftest import Kubectl, own_demo
from tests.support.clock import jump_clock
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl
CLUSTER = "metered"  # a cluster of its own: the test moves its clock past the first scrape
LOAD = "while true; do wget -q -O- http://web; done"


@pytest.fixture(scope="module")
def metered(kubesim, kubectl) -> Kubectl:
    return own_demo(kubesim, kubectl, CLUSTER)


def jump(kubesim, seconds: int) -> None:
    jump_clock(kubesim.http, CLUSTER, {"seconds": seconds})


def running(kubectl: Kubectl) -> set[str]:
    pods = json.loads(kubectl.ok("get", "pods", "-o", "json"))["items"]
    return {p["metadata"]["name"] for p in pods if p["status"].get("phase") == "Running"}


def printed(quantity: str, unit: str) -> str:
    """kubectl's cell for a metrics quantity: CPU as MilliValue (rounded up), memory in whole Mi."""
    if unit == "m":
        return f"{math.ceil(int(quantity.removesuffix('n')) / 1_000_000)}m"
    return f"{int(quantity.removesuffix('Ki')) * 1024 // (1024 * 1024)}Mi"


def cells(text: str) -> list[list[str]]:
    return [line.split() for line in text.splitlines()]


def test_top_nodes_prints_usage_against_allocatable(metered):
    text = metered.ok("top", "nodes")
    assert text.startswith("NAME     CPU(cores)   CPU(%)   MEMORY(bytes)   MEMORY(%)   \n")
    rows = cells(text)[1:]
    assert sorted(r[0] for r in rows) == ["master", "node1", "node2"]
    for row in rows:
        assert re.fullmatch(r"\d+m", row[1]) and re.fullmatch(r"\d+%", row[2]), row
        assert re.fullmatch(r"\d+Mi", row[3]) and re.fullmatch(r"\d+%", row[4]), row
    by_memory = cells(metered.ok("top", "nodes", "--sort-by=memory", "--no-headers"))
    assert [int(r[3][:-2]) for r in by_memory] == sorted((int(r[3][:-2]) for r in by_memory), reverse=True)


def test_a_load_generator_raises_the_services_cpu(metered, kubesim):
    kubectl = metered
    kubectl.ok("create", "deployment", "web", "--image=nginx:1.25", "--replicas=2")
    kubectl.ok("expose", "deployment", "web", "--port=80")
    assert wait_for(lambda: len(running(kubectl)) == 2)
    fresh = kubectl.run("top", "pods")  # running for less than a scrape window
    assert (fresh.returncode, fresh.stderr) == (1, "error: metrics not available yet\n")
    kubectl.ok("run", "load", "--image=busybox:1.36", "--", "sh", "-c", LOAD)
    assert wait_for(lambda: len(running(kubectl)) == 3)
    jump(kubesim, 40)  # past the scrape window of every container
    table = cells(wait_for(lambda: kubectl.ok("top", "pods")))
    assert table[0] == ["NAME", "CPU(cores)", "MEMORY(bytes)"]
    usage = {row[0]: int(row[1][:-1]) for row in table[1:]}
    assert set(usage) == running(kubectl)
    web = [cpu for name, cpu in usage.items() if name.startswith("web-")]
    assert all(cpu > 100 for cpu in web), usage  # ~500 requests a second, shared by two nginx pods
    assert 150 < usage["load"] < 300, usage

    # Each cell is the API's figure as kubectl prints it (read again if a scrape came between).
    for _attempt in range(3):
        raw = json.loads(
            kubectl.ok("get", "--raw", "/apis/metrics.k8s.io/v1beta1/namespaces/default/pods/load")
        )
        row = cells(kubectl.ok("top", "pod", "load", "--no-headers"))[0]
        expected = ["load", printed(raw["containers"][0]["usage"]["cpu"], "m")]
        expected.append(printed(raw["containers"][0]["usage"]["memory"], "Mi"))
        if row == expected:
            break
    assert row == expected

    containers = cells(kubectl.ok("top", "pods", "--containers"))
    assert containers[0] == ["POD", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    assert containers[1][:2] == ["load", "load"]
    everywhere = cells(kubectl.ok("top", "pods", "-A", "--sort-by=cpu"))
    assert everywhere[0] == ["NAMESPACE", "NAME", "CPU(cores)", "MEMORY(bytes)"]
    cpus = [int(r[2][:-1]) for r in everywhere[1:]]
    assert cpus == sorted(cpus, reverse=True)

    kubectl.ok("delete", "pod", "load", "--wait=false")
    jump(kubesim, 20)
    assert wait_for(
        lambda: all(
            int(r[1][:-1]) < 10
            for r in cells(kubectl.ok("top", "pods", "--no-headers"))
            if r[0].startswith("web-")
        )
    )


def test_metrics_servers_errors(metered):
    missing = metered.run("top", "pod", "nope")
    assert missing.returncode == 1
    assert missing.stderr == 'Error from server (NotFound): pods "nope" not found\n'
    assert (
        metered.run("top", "nodes", "--sort-by=disk").stderr
        == "error: --sort-by accepts only cpu or memory\n"
    )
    listing = metered.ok("get", "nodes.metrics.k8s.io")
    assert cells(listing)[0] == ["NAME", "CPU", "MEMORY", "WINDOW"]
