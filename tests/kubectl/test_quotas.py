"""ResourceQuota and LimitRange with the real kubectl: `create quota --hard=pods=1` then a second
pod refused in the quota's words; a LimitRange's defaults on a new pod; `get quota`, `describe
quota|limitrange|namespace` as kubectl prints them (compared with KubeSim's own describers, which
the console and the inspector print)."""

from __future__ import annotations

import json

import pytest

from cluster.kinds.core.limitrange import describe_limit_range
from cluster.kinds.core.namespace import describe_namespace
from cluster.kinds.core.resourcequota import describe_quota
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl
NS = "quota-lab"  # a namespace of its own: the shared demo's default stays unlimited

LIMITS = f"""
apiVersion: v1
kind: LimitRange
metadata:
  name: defaults
  namespace: {NS}
spec:
  limits:
  - type: Container
    default:
      cpu: 500m
      memory: 256Mi
    defaultRequest:
      cpu: 250m
    max:
      cpu: "1"
"""


@pytest.fixture(scope="module")
def lab(kubectl):
    kubectl.ok("create", "namespace", NS)
    yield kubectl
    kubectl.run("delete", "namespace", NS, "--wait=false")


def _quota(kubectl, name: str) -> dict:
    return json.loads(kubectl.ok("get", "quota", name, "-n", NS, "-o", "json"))


def test_a_second_pod_is_refused_in_the_quotas_words(lab):
    kubectl = lab
    assert kubectl.ok("create", "quota", "q", "--hard=pods=1", "-n", NS) == "resourcequota/q created\n"
    kubectl.ok("run", "first", "--image=nginx:1.27", "-n", NS)
    second = kubectl.run("run", "second", "--image=nginx:1.27", "-n", NS)
    assert second.returncode == 1
    assert second.stderr == (
        'Error from server (Forbidden): pods "second" is forbidden: exceeded quota: q, requested: pods=1, '
        "used: pods=1, limited: pods=1\n"
    )
    wait_for(lambda: (_quota(kubectl, "q").get("status") or {}).get("used") == {"pods": "1"}, 15)
    table = kubectl.ok("get", "quota", "-n", NS)
    assert table.splitlines()[0].split() == ["NAME", "AGE", "REQUEST", "LIMIT"]
    assert table.splitlines()[1].split()[0] == "q" and "pods: 1/1" in table
    assert kubectl.ok("describe", "quota", "q", "-n", NS) == describe_quota(_quota(kubectl, "q"))
    assert kubectl.ok("describe", "quota", "q", "-n", NS) == (
        "Name:       q\nNamespace:  quota-lab\n"
        "Resource    Used  Hard\n--------    ----  ----\npods        1     1\n"
    )


def test_a_limit_range_default_is_applied_to_a_new_pod(lab):
    kubectl = lab
    kubectl.ok("apply", "-f", "-", stdin=LIMITS)
    kubectl.ok("delete", "quota", "q", "-n", NS, "--ignore-not-found")
    kubectl.ok("run", "defaulted", "--image=nginx:1.27", "-n", NS)
    pod = json.loads(kubectl.ok("get", "pod", "defaulted", "-n", NS, "-o", "json"))
    assert pod["spec"]["containers"][0]["resources"] == {
        "limits": {"cpu": "500m", "memory": "256Mi"},
        "requests": {"cpu": "250m", "memory": "256Mi"},
    }
    assert pod["metadata"]["annotations"]["kubernetes.io/limit-ranger"] == (
        "LimitRanger plugin set: cpu, memory request for container defaulted; "
        "cpu, memory limit for container defaulted"
    )
    big = kubectl.run("run", "big", "--image=nginx:1.27", "-n", NS, "--overrides", _limits("2"))
    assert big.stderr == (
        'Error from server (Forbidden): pods "big" is forbidden: maximum cpu usage per Container is 1, '
        "but limit is 2\n"
    )
    limit_range = json.loads(kubectl.ok("get", "limitrange", "defaults", "-n", NS, "-o", "json"))
    assert kubectl.ok("describe", "limitrange", "defaults", "-n", NS) == describe_limit_range(limit_range)


def _limits(cpu: str) -> str:
    container = {"name": "big", "image": "nginx:1.27", "resources": {"limits": {"cpu": cpu}}}
    return json.dumps({"apiVersion": "v1", "spec": {"containers": [container]}})


def test_describe_namespace_prints_its_quotas_and_limit_ranges(lab):
    kubectl = lab
    kubectl.ok("create", "quota", "compute", "--hard=requests.cpu=2,limits.memory=1Gi,pods=10", "-n", NS)
    wait_for(lambda: (_quota(kubectl, "compute").get("status") or {}).get("hard"), 15)
    # `first` (no resources: created before the LimitRange) and `defaulted` (250m, 256Mi limit).
    used = {"limits.memory": "256Mi", "pods": "2", "requests.cpu": "250m"}
    assert wait_for(lambda: _quota(kubectl, "compute")["status"].get("used") == used, 15)
    namespace = json.loads(kubectl.ok("get", "namespace", NS, "-o", "json"))
    quotas = json.loads(kubectl.ok("get", "quota", "-n", NS, "-o", "json"))["items"]
    ranges = json.loads(kubectl.ok("get", "limitrange", "-n", NS, "-o", "json"))["items"]
    out = kubectl.ok("describe", "namespace", NS)
    assert out == describe_namespace(namespace, quotas, ranges)
    assert "\nResource Quotas\n  Name:          compute\n" in out
    assert "\n  requests.cpu   250m   2\n" in out
    assert " Container  cpu       -    1    250m             500m           -\n" in out
    empty = json.loads(kubectl.ok("get", "namespace", "default", "-o", "json"))
    described = kubectl.ok("describe", "namespace", "default")
    assert described == describe_namespace(empty, [], [])
    assert described.endswith("\nNo resource quota.\n\nNo LimitRange resource.\n")
