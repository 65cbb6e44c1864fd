"""A pod being deleted gracefully reads Terminating on its card until its kubelet removes it."""

from __future__ import annotations

import pytest

from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard

pytestmark = pytest.mark.browser

POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: slow-stop\nspec:\n  nodeName: node2\n"
    "  terminationGracePeriodSeconds: 3\n  containers:\n    - name: sleeper\n      image: busybox:1.36\n"
    '      command: ["sleep", "3600"]\n'
)
CARD = '.node-card[data-node="node2"] .pod[data-pod="default/slow-stop"]'


def test_a_terminating_pod_card_reads_terminating_then_goes(page):
    open_dashboard(page)
    apply_yaml(page, POD)
    page.wait_for_selector(f'{CARD}[data-state="Running"]', timeout=TIMEOUT_MS)
    page.click("#tab-console")
    page.fill("#console-input", "delete pod slow-stop --wait=false")
    page.press("#console-input", "Enter")
    page.wait_for_selector(f'{CARD}[data-state="Terminating"]', timeout=TIMEOUT_MS)
    assert "Terminating" in page.locator(CARD).inner_text()
    # busybox's sleep ignores SIGTERM: the kubelet kills it when the 3 s grace period is over.
    page.wait_for_selector(CARD, state="detached", timeout=TIMEOUT_MS)
