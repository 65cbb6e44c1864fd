"""A Pending pod's scheduler panel, and labelling a node from the console schedules it live."""

from __future__ import annotations

import pytest

from tests.browser.helpers import TIMEOUT_MS, apply_yaml, console, open_dashboard, pod_chip

pytestmark = pytest.mark.browser

SELECTOR_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: pod-example-zz
  labels:
    app: nginx
spec:
  nodeSelector:
    zz: cxk
  containers:
    - name: nginx
      image: nginx:1.15
"""
AFFINITY = "node(s) didn't match Pod's node affinity/selector"
TAINT = "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"


def test_pending_pod_shows_its_failures_and_labelling_node1_schedules_it(page):
    open_dashboard(page)
    apply_yaml(page, SELECTOR_POD)
    lane_pod = page.locator('#pending-lane .pod[data-pod="default/pod-example-zz"]')
    lane_pod.wait_for(timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#pending-lane .lane-reason')]"
        ".some((r) => r.textContent.startsWith('0/3 nodes are available'))",
        timeout=TIMEOUT_MS,
    )
    lane_pod.click()
    page.click(".menu-item >> nth=0")  # "Why here? (scheduler)"
    page.wait_for_selector(".sched-compact", timeout=TIMEOUT_MS)
    # By node: only what failed, each with upstream's reason and the plain-language why.
    for node in ("node1", "node2"):
        fails = page.locator(f'.compact-node[data-node="{node}"] .compact-fail')
        assert fails.count() == 1 and fails.get_attribute("data-plugin") == "NodeAffinity"
        assert fails.locator(".reason").text_content() == AFFINITY
        assert "spec.nodeSelector" in fails.locator(".why").text_content()
    master = page.locator('.compact-node[data-node="master"] .compact-fail')
    assert master.count() == 2
    assert master.nth(0).locator(".first-flag").count() == 1
    assert master.nth(0).locator(".reason").text_content() == TAINT
    page.click('.view-switch button[data-view="matrix"]')  # the full matrix, one click away
    page.wait_for_selector(".filter-matrix", timeout=TIMEOUT_MS)

    for node in ("node1", "node2"):
        row = page.locator(f'.filter-matrix tr[data-node="{node}"]')
        failed = row.locator("td.cell-fail")
        assert failed.count() == 1
        assert failed.locator(".reason").text_content() == AFFINITY
        assert failed.locator(".first-flag").count() == 1
        assert "spec.nodeSelector" in failed.locator(".why").text_content()
    master = page.locator('.filter-matrix tr[data-node="master"]')
    first = master.locator("td.cell-fail.is-first")
    assert first.locator(".reason").text_content() == TAINT
    assert master.locator("td.cell-fail").count() == 2
    headers = page.locator(".filter-matrix thead").text_content()
    assert "PodToleratesNodeTaints" in headers and "MatchNodeSelector" in headers
    message = page.locator(".sched-msg").text_content()
    assert "Warning  FailedScheduling" in message
    assert f"0/3 nodes are available: 1 {TAINT}, 2 {AFFINITY}." in message

    output = console(page, "label nodes node1 zz=cxk", expect="labeled")
    assert output == "node/node1 labeled\n"
    pod_chip(page, "node1", "pod-example-zz").wait_for(timeout=TIMEOUT_MS)
    assert page.locator('#pending-lane .pod[data-pod="default/pod-example-zz"]').count() == 0
    page.click("#tab-scheduler")
    page.wait_for_selector(".sched-summary.is-ok", timeout=TIMEOUT_MS)
    assert "node1" in page.locator(".sched-verdict").text_content()
    assert page.locator("#sched-attempt option").count() >= 2
