"""Preemption and the scheduling queue on the page: the Pending lane's queue line, the scheduler
panel's victims and the queue facts of each attempt."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard, pod_chip

pytestmark = pytest.mark.browser


def pod_yaml(name: str, cpu: str, priority: int) -> str:
    """A pod of PriorityClass p<priority> (created first in the same document), or of none for 0."""
    klass = (
        f"apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata:\n  name: p{priority}\n"
        f"value: {priority}\n---\n"
        if priority
        else ""
    )
    line = f"  priorityClassName: p{priority}\n" if priority else ""
    return f"""\
{klass}apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels:
    app: {name}
spec:
{line}  containers:
    - name: c
      image: nginx:1.15
      resources:
        requests:
          cpu: "{cpu}"
"""


def test_high_priority_pod_preempts_and_the_panel_shows_victims_and_queue(page):
    open_dashboard(page)
    apply_yaml(page, pod_yaml("low-a", "3", 0) + "---\n" + pod_yaml("low-b", "3", 10))
    for name in ("low-a", "low-b"):
        page.locator(f'.node-card .pod[data-pod="default/{name}"]').wait_for(timeout=TIMEOUT_MS)
    # An equal-priority pod cannot preempt: it waits, and the lane says what would retry it.
    apply_yaml(page, pod_yaml("same", "2", 0))
    # Its own row (pods other tests left pending may come first in the lane).
    row = '#pending-lane .lane-pod:has(.pod[data-pod="default/same"])'
    page.wait_for_selector(f"{row} .lane-queue-retry", timeout=TIMEOUT_MS)
    retry = page.locator(f"{row} .lane-queue-retry").text_content()
    assert "a scheduled or nominated pod is deleted" in retry
    assert "unschedulablePods" in page.locator(f"{row} .lane-queue-name").text_content()
    page.screenshot(path=str(SCREENSHOTS / "preemption_pending_lane.png"), full_page=True)

    apply_yaml(page, pod_yaml("high", "2", 1000))
    node = page.locator('.node-card:has(.pod[data-pod="default/high"])')
    node.wait_for(timeout=TIMEOUT_MS)
    assert page.locator('.pod[data-pod="default/low-a"]').count() == 0  # the victim is gone
    page.click("#tab-scheduler")
    page.select_option("#sched-pod", "default/high")
    page.wait_for_selector("#sched-attempt option >> nth=1", state="attached", timeout=TIMEOUT_MS)
    # The panel opens on the attempt that preempted, and lists the attempts as a story.
    assert page.locator("#sched-attempt").input_value() == "1"
    options = page.locator("#sched-attempt option").all_text_contents()
    assert options[1].startswith("#1") and "Preempted default/low-a on node" in options[1], options
    assert options[0].startswith("#2") and "Scheduled to node" in options[0], options
    block = page.locator(".sched-preemption")
    block.wait_for(timeout=TIMEOUT_MS)
    text = block.text_content()
    assert "minHighestPriority" in text
    # The tie-break in a class's words, upstream's name beside it, no negated or shifted scores.
    assert "highest victim priority (minHighestPriority): " in text
    assert "-2147483648" not in text and "=-" not in text
    assert "✗ default/low-a (0)" in text
    assert "unschedulablePods" in page.locator(".sched-queue").text_content()
    page.screenshot(path=str(SCREENSHOTS / "preemption_scheduler_panel.png"), full_page=True)
    page.select_option("#sched-attempt", "0")
    woken = page.locator(".sched-queue-woken")
    woken.wait_for(timeout=TIMEOUT_MS)
    assert "Pod/Delete default/low-a" in woken.text_content()
    assert pod_chip(page, node.get_attribute("data-node"), "high").count() == 1
    assert not page.problems.errors
