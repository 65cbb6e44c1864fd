"""The 13 steps, live: an uploaded pod walks through them; step mode holds the in-between state."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard, record_flow_steps

pytestmark = pytest.mark.browser


def pod_yaml(name: str, node: str) -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n"
        f"  nodeSelector:\n    kubernetes.io/hostname: {node}\n"
        "  containers:\n    - name: web\n      image: nginx:1.15\n"
    )


def wait_until(page, condition, timeout_ms: int = TIMEOUT_MS) -> None:
    waited = 0
    while not condition():
        if waited >= timeout_ms:
            raise AssertionError("timed out waiting for the condition")
        page.wait_for_timeout(100)
        waited += 100


def steps_of(messages: list[dict], pod: str) -> list[dict]:
    return [m for m in messages if (m.get("object") or {}).get("name") == pod]


def test_uploaded_pod_goes_through_the_numbered_steps_and_runs_on_its_node(page):
    messages = record_flow_steps(page)
    open_dashboard(page)
    apply_yaml(page, pod_yaml("flow-web", "node2"))
    running = '.node-card[data-node="node2"] .pod[data-pod="default/flow-web"][data-state="Running"]'
    page.wait_for_selector(running, timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => document.querySelector('.step[data-step=\"13\"]').classList.contains('is-done')",
        timeout=TIMEOUT_MS,
    )
    numbers = [m["step"] for m in steps_of(messages, "flow-web")]
    assert numbers[0] == 2 or numbers[:2] == [1, 2]
    assert sorted(set(numbers)) == list(range(numbers[0], 14))
    assert numbers == sorted(numbers)
    skipped = {m["step"] for m in steps_of(messages, "flow-web") if m["skipped"]}
    assert {5, 6} <= skipped  # a bare Pod has no controller to create it
    assert {2, 3, 9, 10, 11, 12, 13}.isdisjoint(skipped)
    reasons = []
    for number in sorted(skipped):
        item = page.locator(f'.step[data-step="{number}"]')
        assert "is-skipped" in item.get_attribute("class")
        reasons.append(item.locator(".step-note").text_content())
    assert reasons[0].startswith("skipped: A bare Pod")  # the reason, stated once for the run
    assert all(reason in ("skipped ↑", reasons[0]) for reason in reasons[1:])
    # The trace's ending entry follows step 13: the caption says how it ended.
    page.wait_for_function("() => document.querySelector('.caption-num')?.textContent === 'end'")
    assert "reached its goal" in page.locator(".caption").text_content()
    # The word fits its round badge (it used to spill over the circle's edges).
    badge = page.locator(".caption-num")
    assert badge.evaluate("el => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".caption").screenshot(path=str(SCREENSHOTS / "flow-ending-badge.png"))
    # The ending is the current entry now: no step badge is current, every step is done or skipped.
    assert "is-done" in page.locator('.step[data-step="13"]').get_attribute("class")
    assert page.problems.errors == []


def test_step_mode_next_advances_exactly_one_step_and_shows_the_state_between(page):
    messages = record_flow_steps(page)
    open_dashboard(page)
    page.check("#step-mode", force=True)
    try:
        apply_yaml(page, pod_yaml("step-web", "node1"))
        page.wait_for_selector(".caption-wait", timeout=TIMEOUT_MS)
        pending_lane = '#pending-lane .pod[data-pod="default/step-web"]'
        page.wait_for_selector(pending_lane, timeout=TIMEOUT_MS)
        seen = len(steps_of(messages, "step-web"))
        page.wait_for_timeout(600)
        assert len(steps_of(messages, "step-web")) == seen  # held: nothing moves without Next

        while page.locator(pending_lane).count():
            before = len(steps_of(messages, "step-web"))
            page.click("#next-step")
            wait_until(page, lambda n=before: len(steps_of(messages, "step-web")) > n)
            page.wait_for_timeout(700)  # long enough for a second step to show up if Next let two through
            after = steps_of(messages, "step-web")
            assert len(after) == before + 1, [m["step"] for m in after]
            # The caption reads every step in turn, each for a moment: it reaches this one.
            page.wait_for_function(
                "(n) => document.querySelector('.caption-num').textContent === String(n)",
                arg=after[-1]["step"],
                timeout=TIMEOUT_MS,
            )
        bound = '.node-card[data-node="node1"] .pod[data-pod="default/step-web"]'
        assert page.locator(bound).get_attribute("data-state") != "Running"
        assert steps_of(messages, "step-web")[-1]["step"] in (10, 11)
        page.click("#continue")
        page.wait_for_selector(f'{bound}[data-state="Running"]', timeout=TIMEOUT_MS)
        assert page.locator("#step-mode").is_checked()  # Continue finishes the trace, step mode stays
    finally:
        if page.locator("#step-mode").is_checked():
            page.uncheck("#step-mode", force=True)
