"""The teacher's node failure on the page: stop node2's kubelet from its menu, move the clock past
the grace period (NotReady, the unreachable taints) and the pods' 300 s tolerations (evicted,
replaced on node1), start it again (Ready); screenshots at projector sizes in both languages."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS, manage_live, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS, api_write

pytestmark = pytest.mark.browser

CLUSTER = "nodefail"
SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
RC = {
    "apiVersion": "v1",
    "kind": "ReplicationController",
    "metadata": {"name": "web"},
    "spec": {
        "replicas": 4,
        "selector": {"app": "web"},
        "template": {
            "metadata": {"labels": {"app": "web"}},
            "spec": {"containers": [{"name": "web", "image": "nginx:1.15"}]},
        },
    },
}
NODE2 = '.node-card[data-node="node2"]'


def node_menu(page, item: str) -> None:
    page.click(f"{NODE2} .node-menu")
    page.click(f'.menu-item:text-is("{item}")')


def shoot(browser, base_url: str, name: str) -> None:
    for language in ("en", "zh-hans"):
        for width, height in SIZES:
            context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
            context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
            tab = context.new_page()
            sign_in_as_teacher(tab, base_url)
            tab.goto(f"{base_url}/clusters/{CLUSTER}/")
            tab.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
            tab.wait_for_selector(f"{NODE2}.is-kubelet-stopped", timeout=TIMEOUT_MS)
            tab.locator(NODE2).scroll_into_view_if_needed()
            tab.screenshot(path=str(SCREENSHOTS / f"{name}-{language}-{width}x{height}.png"))
            context.close()


def test_the_teacher_stops_a_kubelet_and_the_node_fails_as_a_real_one_does(page, browser):
    manage_live(
        page.base_url,
        "shell",
        "-c",
        f"from cluster.controlplane.demo import create_demo; create_demo('{CLUSTER}')",
    )
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{page.base_url}/clusters/{CLUSTER}/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    api_write(page, "POST", f"/clusters/{CLUSTER}/api/v1/namespaces/default/replicationcontrollers", RC)
    page.wait_for_function(
        "() => document.querySelectorAll('.node-card .pod.phase-Running').length === 4", timeout=TIMEOUT_MS
    )
    on_node2 = page.locator(f"{NODE2} .pod").count()

    node_menu(page, "Stop the kubelet (node failure)")
    page.wait_for_selector('.toast:has-text("The kubelet on node2 stopped")', timeout=TIMEOUT_MS)
    page.wait_for_selector(
        f'{NODE2}.is-kubelet-stopped .node-alert:has-text("kubelet stopped")', timeout=TIMEOUT_MS
    )
    assert page.locator(f"{NODE2} .badge-bad").count() == 0  # Ready until the grace period ends

    node_menu(page, "Move the clock forward 1 min")
    page.wait_for_selector(f'{NODE2} .badge-bad:text-is("NotReady")', timeout=TIMEOUT_MS)
    page.wait_for_selector(
        f'{NODE2} .chip-taint:has-text("node.kubernetes.io/unreachable:NoExecute")', timeout=TIMEOUT_MS
    )
    page.wait_for_selector(
        f'{NODE2} .chip-taint:has-text("node.kubernetes.io/unreachable:NoSchedule")', timeout=TIMEOUT_MS
    )
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shoot(browser, page.base_url, "node-failure-notready")

    node_menu(page, "Move the clock forward 5 min")
    # Evicted, node2's pods stay Terminating (nobody on node2 confirms); node1 runs all four.
    page.wait_for_function(
        """([sel, n]) => document.querySelectorAll(`${sel} .pod.phase-Terminating`).length === n
             && document.querySelectorAll('.node-card[data-node="node1"] .pod.phase-Running').length >= 4""",
        arg=[NODE2, on_node2],
        timeout=TIMEOUT_MS,
    )
    shoot(browser, page.base_url, "node-failure-evicted")

    node_menu(page, "Start the kubelet")
    page.wait_for_selector('.toast:has-text("The kubelet on node2 started")', timeout=TIMEOUT_MS)
    page.wait_for_function(
        f"""() => {{
          const card = document.querySelector('{NODE2}');
          return card && !card.classList.contains('is-kubelet-stopped') && !card.querySelector('.badge-bad')
            && !card.querySelector('.chip-taint');
        }}""",
        timeout=TIMEOUT_MS,
    )
    assert page.problems.errors == []
