"""The Scheduler panel's tools: the teacher's scheduler settings (a weight changed, saved, and the
next decision shows it) and What if… (an edited copy explained beside the real decision, what
changed highlighted, nothing written); screenshots at projector sizes in both languages."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import TIMEOUT_MS, api_write, apply_yaml, open_dashboard
from tests.browser.test_projector import LANGUAGES, SIZES, open_at

pytestmark = pytest.mark.browser

CONFIG_MAP = "/clusters/demo/api/v1/namespaces/kube-system/configmaps/kube-scheduler"
SSD_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: wants-ssd
spec:
  nodeSelector:
    disk: ssd
  containers:
    - name: web
      image: nginx:1.15
"""
WEIGHTED_POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: weighed
spec:
  containers:
    - name: web
      image: nginx:1.15
"""


def written_state(page) -> dict:
    """What a what-if could write: its pod (at its resourceVersion) and the nodes' labels, taints
    and capacity. (Not the cluster's revision: node leases and kubelets move it meanwhile.)"""

    def items(path: str) -> list[dict]:
        return page.request.get(f"{page.base_url}/clusters/demo/api/v1/{path}", headers=_teacher()).json()[
            "items"
        ]

    pods = {
        p["metadata"]["name"]: p["metadata"]["resourceVersion"]
        for p in items("namespaces/default/pods")
        if p["metadata"]["name"] == "wants-ssd"  # other tests' pods may still be changing
    }
    nodes = {
        n["metadata"]["name"]: (
            n["metadata"].get("labels"),
            n["spec"].get("taints"),
            n["status"].get("capacity"),
        )
        for n in items("nodes")
    }
    return {"pods": pods, "nodes": nodes}


def drop_config(page) -> None:
    response = page.request.fetch(f"{page.base_url}{CONFIG_MAP}", method="DELETE", headers=_teacher())
    assert response.status in (200, 404)


def _teacher() -> dict:
    from tests.support.auth import teacher_headers

    return {"X-KubeSim-Client": "kubectl", **teacher_headers()}


def explain(page, pod: str) -> None:
    page.click("#tab-scheduler")
    page.wait_for_function(
        "(key) => [...document.querySelectorAll('#sched-pod option')].some((o) => o.value === key)",
        arg=pod,
        timeout=TIMEOUT_MS,
    )
    page.select_option("#sched-pod", pod)


def test_the_settings_view_changes_a_weight_and_the_next_decision_shows_it(page):
    open_dashboard(page)
    try:
        page.click("#sched-settings")
        page.wait_for_selector("#settings-dialog[open] #settings-weights tr", timeout=TIMEOUT_MS)
        assert (
            page.locator("#settings-diff li").text_content() == "None: this profile is the default profile."
        )
        weight = page.locator('#settings-weights input[data-plugin="ImageLocality"]')
        weight.fill("50")
        weight.dispatch_event("change")
        page.wait_for_function(
            "() => document.getElementById('settings-text').value.includes('weight: 50')", timeout=TIMEOUT_MS
        )
        assert page.locator("#settings-diff li").text_content() == "ImageLocality: weight 1 → 50"
        assert "is-changed" in page.locator(
            '#settings-weights tr[data-plugin="ImageLocality"]'
        ).get_attribute("class")
        page.click("#settings-save")
        page.wait_for_selector(".toast", timeout=TIMEOUT_MS)
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOTS / "scheduler-settings-weight.png"))
        stored = page.request.get(f"{page.base_url}{CONFIG_MAP}", headers=_teacher()).json()
        assert "name: ImageLocality" in stored["data"]["config.yaml"]
        page.click("#settings-dialog .tool-head button")
        apply_yaml(page, WEIGHTED_POD)
        explain(page, "default/weighed")
        page.wait_for_selector(".sched-summary.is-ok", timeout=TIMEOUT_MS)
        page.click('.view-switch button[data-view="matrix"]')
        page.wait_for_selector(".score-matrix", timeout=TIMEOUT_MS)
        header = page.locator(".score-matrix thead").text_content()
        assert "ImageLocalityPriority · weight 50" in header
        assert "Profile: default-scheduler" in page.locator(".sched-profile").text_content()
    finally:
        drop_config(page)
        page.click('.view-switch button[data-view="nodes"]')


def test_what_if_shows_the_edited_explanation_beside_the_real_one_and_writes_nothing(page):
    open_dashboard(page)
    apply_yaml(page, SSD_POD)
    page.locator('#pending-lane .pod[data-pod="default/wants-ssd"]').wait_for(timeout=TIMEOUT_MS)
    explain(page, "default/wants-ssd")
    page.wait_for_selector(".sched-summary.is-fail", timeout=TIMEOUT_MS)
    before = written_state(page)
    page.click("#sched-whatif")
    page.wait_for_selector("#whatif-dialog[open] #whatif-real .whatif-verdict", timeout=TIMEOUT_MS)
    page.select_option("#whatif-node", "node2")
    labels = page.locator("#whatif-labels")
    labels.fill(labels.input_value() + "\ndisk=ssd")
    page.click("#whatif-run")
    page.wait_for_selector("#whatif-copy .whatif-verdict.is-ok", timeout=TIMEOUT_MS)
    assert "Scheduled to node2" in page.locator("#whatif-copy .whatif-verdict").text_content()
    real = page.locator("#whatif-real .whatif-verdict")
    assert "is-fail" in real.get_attribute("class") and "0/3 nodes are available" in real.text_content()
    assert page.locator("#whatif-real h4").text_content() == "The real decision (latest attempt)"
    changes = page.locator("#whatif-changes").text_content()
    assert "Selected node: — → node2" in changes
    assert page.locator('#whatif-copy .compact-node.is-changed[data-node="node2"]').count() == 1
    assert page.locator('#whatif-copy .compact-node.is-changed[data-node="node1"]').count() == 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "what-if-node-label.png"))
    # Nothing was written: the pods and the nodes are as they were.
    assert written_state(page) == before
    node2 = page.request.get(f"{page.base_url}/clusters/demo/api/v1/nodes/node2", headers=_teacher()).json()
    assert "disk" not in node2["metadata"]["labels"]
    assert "Nothing was written" in page.locator("#whatif-note").text_content()
    assert page.locator('#pending-lane .pod[data-pod="default/wants-ssd"]').count() == 1
    assert not page.problems.errors, page.problems.errors


TWO_PROFILES = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: default-scheduler
  - schedulerName: bin-packing
    pluginConfig:
      - name: NodeResourcesFit
        args:
          scoringStrategy:
            type: MostAllocated
"""


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_tools_at_projector_sizes(browser, live_server_url, language):
    """Two profiles side by side in What if…, and the settings view, at every projector size."""
    for size in SIZES:
        context, page = open_at(browser, live_server_url, size, language, presenter=False)
        try:
            config = {
                "apiVersion": "v1",
                "kind": "ConfigMap",
                "metadata": {"name": "kube-scheduler", "namespace": "kube-system"},
                "data": {"config.yaml": TWO_PROFILES},
            }
            if page.request.get(f"{live_server_url}{CONFIG_MAP}", headers=_teacher()).status == 404:
                api_write(page, "POST", "/clusters/demo/api/v1/namespaces/kube-system/configmaps", config)
            if page.locator('.pod[data-pod="default/weighed"]').count() == 0:
                apply_yaml(page, WEIGHTED_POD)
            explain(page, "default/weighed")
            page.wait_for_selector(".sched-summary", timeout=TIMEOUT_MS)
            page.click("#sched-whatif")
            page.wait_for_selector("#whatif-dialog[open] #whatif-copy .whatif-verdict", timeout=TIMEOUT_MS)
            page.select_option("#whatif-left", "bin-packing")
            page.wait_for_function(
                "() => document.querySelector('#whatif-real h4').textContent.includes('bin-packing')",
                timeout=TIMEOUT_MS,
            )
            assert page.locator("#whatif-real .whatif-profile").text_content().endswith("bin-packing")
            page.screenshot(path=str(SCREENSHOTS / f"what-if-{language}-{size[0]}x{size[1]}.png"))
            page.click("#whatif-close")
            page.click("#sched-settings")
            page.wait_for_selector("#settings-dialog[open] #settings-weights tr", timeout=TIMEOUT_MS)
            page.select_option("#settings-profile", "bin-packing")
            page.wait_for_selector('#settings-diff li[data-change="args"]', timeout=TIMEOUT_MS)
            page.screenshot(path=str(SCREENSHOTS / f"scheduler-settings-{language}-{size[0]}x{size[1]}.png"))
            assert not page.errors, page.errors
        finally:
            context.close()
    # The next tests start from the default configuration.
    context, page = open_at(browser, live_server_url, SIZES[0], "en", presenter=False)
    drop_config(page)
    context.close()
