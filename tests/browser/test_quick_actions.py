"""Quick actions go through the REST API and show up live: cordon, label, taint, add/remove node, scale."""

from __future__ import annotations

import pytest

from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard

pytestmark = pytest.mark.browser

RC = """\
apiVersion: v1
kind: ReplicationController
metadata:
  name: quick
spec:
  replicas: 2
  selector:
    app: quick
  template:
    metadata:
      labels:
        app: quick
    spec:
      containers:
        - name: web
          image: nginx:1.15
"""


def node_action(page, node: str, label: str) -> None:
    page.click(f'.node-card[data-node="{node}"] .node-menu')
    page.click(f'.menu-item:text-is("{label}")')


def fill_dialog(page, values: dict[str, str]) -> None:
    for name, value in values.items():
        field = page.locator(f'#dialog-fields [name="{name}"]')
        if field.evaluate("el => el.tagName") == "SELECT":
            field.select_option(value)
        else:
            field.fill(value)
    page.click("#dialog-ok")


def test_node_quick_actions_change_the_node_live(page):
    open_dashboard(page)
    card = '.node-card[data-node="node2"]'
    node_action(page, "node2", "Cordon")
    page.wait_for_selector(f"{card}.is-cordoned .badge-cordon", timeout=TIMEOUT_MS)
    node_action(page, "node2", "Uncordon")
    page.wait_for_selector(f"{card}:not(.is-cordoned)", timeout=TIMEOUT_MS)

    node_action(page, "node2", "Label…")
    fill_dialog(page, {"key": "course", "value": "k8s"})
    page.wait_for_selector(f'{card} .chip-label[title="course=k8s"]', timeout=TIMEOUT_MS)
    node_action(page, "node2", "Remove label")
    fill_dialog(page, {"key": "course"})
    page.wait_for_selector(f'{card} .chip-label[title="course=k8s"]', state="detached", timeout=TIMEOUT_MS)

    node_action(page, "node2", "Taint…")
    fill_dialog(page, {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"})
    taint = f'{card} .chip-taint[title="taint dedicated=gpu:NoSchedule"]'
    page.wait_for_selector(taint, timeout=TIMEOUT_MS)
    node_action(page, "node2", "Remove taint")
    fill_dialog(page, {"taint": "dedicated=gpu:NoSchedule"})
    page.wait_for_selector(taint, state="detached", timeout=TIMEOUT_MS)
    assert page.problems.errors == []


def test_add_and_remove_a_node(page):
    open_dashboard(page)
    page.click("#add-node")
    fill_dialog(page, {"name": "node7", "cpu": "2", "memory": "4Gi"})
    page.wait_for_selector('.node-card[data-node="node7"]', timeout=TIMEOUT_MS)
    assert "/ 2" in page.locator('.node-card[data-node="node7"] .bar-text').first.text_content()
    page.on("dialog", lambda dialog: dialog.accept())
    node_action(page, "node7", "Remove node")
    page.wait_for_selector('.node-card[data-node="node7"]', state="detached", timeout=TIMEOUT_MS)


def test_scaling_a_workload_from_its_chip(page):
    open_dashboard(page)
    apply_yaml(page, RC)
    chip = page.locator(".workload", has_text="quick")
    chip.wait_for(timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => document.querySelectorAll('.node-card .pod[data-pod^=\"default/quick-\"]').length === 2",
        timeout=TIMEOUT_MS,
    )
    chip.click()
    page.click('.menu-item:text-is("Scale…")')
    fill_dialog(page, {"replicas": "1"})
    page.wait_for_function(
        "() => document.querySelectorAll("
        "'.pod[data-pod^=\"default/quick-\"]:not([data-state=Terminating])').length === 1",
        timeout=TIMEOUT_MS,
    )
    page.wait_for_selector('.workload:has-text("quick") .wl-count:text-is("1/1")', timeout=TIMEOUT_MS)
