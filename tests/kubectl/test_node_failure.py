"""The taint manager through the real kubectl, on the demo cluster as `make run` loads it: a
NoExecute taint evicts the pods that do not tolerate it, with upstream's Events."""

from __future__ import annotations

import json
import re

import pytest

from tests.kubectl.conftest import Kubectl, _kubectl_binary, live_server
from tests.support.waiting import wait_for

pytestmark = pytest.mark.kubectl

PODS = """
apiVersion: v1
kind: Pod
metadata:
  name: plain
spec:
  nodeName: node2
  terminationGracePeriodSeconds: 1
  containers:
  - name: c
    image: nginx:1.27
---
apiVersion: v1
kind: Pod
metadata:
  name: tolerant
spec:
  nodeName: node2
  tolerations:
  - key: evict
    operator: Exists
    effect: NoExecute
  containers:
  - name: c
    image: nginx:1.27
"""


@pytest.fixture(scope="module")
def kubectl(tmp_path_factory) -> Kubectl:
    binary = _kubectl_binary()
    with live_server(tmp_path_factory.mktemp("nodefailure"), seed=None) as server:
        home = server.tmp / "home"
        home.mkdir(exist_ok=True)
        yield Kubectl(binary, f"{server.http}/clusters/demo", home, server.kubeconfig("demo", "teacher"))


def _phases(kubectl) -> dict[str, str]:
    items = json.loads(kubectl.ok("get", "pods", "-o", "json"))["items"]
    return {
        p["metadata"]["name"]: "Terminating"
        if p["metadata"].get("deletionTimestamp")
        else p["status"].get("phase")
        for p in items
    }


def test_a_no_execute_taint_evicts_the_pods_that_do_not_tolerate_it(kubectl):
    assert kubectl.ok("apply", "-f", "-", stdin=PODS) == "pod/plain created\npod/tolerant created\n"
    if not wait_for(lambda: _phases(kubectl) == {"plain": "Running", "tolerant": "Running"}, 30):
        pytest.skip("the embedded control plane is not running inside `manage.py serve`")
    try:
        assert kubectl.ok("taint", "nodes", "node2", "evict=now:NoExecute") == "node/node2 tainted\n"
        assert wait_for(lambda: "plain" not in _phases(kubectl), 30), _phases(kubectl)
        assert _phases(kubectl) == {"tolerant": "Running"}
        events = kubectl.ok("get", "events", "--field-selector", "reason=TaintManagerEviction")
        lines = events.splitlines()
        assert re.match(r"LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE$", lines[0])
        assert [re.split(r"\s{2,}", line)[1:] for line in lines[1:]] == [
            ["Normal", "TaintManagerEviction", "pod/plain", "Marking for deletion Pod default/plain"]
        ]
        described = kubectl.ok("describe", "node", "node2")
        assert re.search(r"^Taints:\s+evict=now:NoExecute$", described, re.M)
    finally:
        kubectl.run("taint", "nodes", "node2", "evict-")
        kubectl.run("delete", "pod", "tolerant", "--grace-period=0", "--force")
