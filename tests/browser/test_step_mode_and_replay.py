"""Step mode a teacher can trust, and a replay that shows the cluster as it was at each step."""

from __future__ import annotations

import pytest

from bench.server import nginx_rc
from tests.browser.helpers import TIMEOUT_MS, api_write, open_dashboard, record_flow_steps

pytestmark = pytest.mark.browser

PODS = "/clusters/demo/api/v1/namespaces/default/pods"
RCS = "/clusters/demo/api/v1/namespaces/default/replicationcontrollers"


def bare_pod(name: str, node: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {
            "nodeSelector": {"kubernetes.io/hostname": node},
            "containers": [{"name": "web", "image": "nginx:1.15"}],
        },
    }


def wait_until(page, condition, timeout_ms: int = TIMEOUT_MS) -> None:
    waited = 0
    while not condition():
        if waited >= timeout_ms:
            raise AssertionError("timed out waiting for the condition")
        page.wait_for_timeout(100)
        waited += 100


def step_mode(page, on: bool) -> None:
    if page.locator("#step-mode").is_checked() != on:
        page.click("label.switch")
    page.wait_for_function("(on) => document.getElementById('step-mode').checked === on", arg=on)


def test_shortcuts_work_from_any_control_but_text_fields_and_digits_never_leak(page):
    open_dashboard(page)
    page.click("label.switch")  # focus now sits on the step-mode checkbox
    try:
        assert page.evaluate("document.activeElement.id") == "step-mode"
        page.keyboard.press("p")
        assert page.locator("body.presenter").count() == 1
        page.keyboard.press("p")
        assert page.locator("body.presenter").count() == 0
        page.keyboard.press("3")  # opens the console and focuses its input ...
        assert page.get_attribute("#tab-console", "aria-selected") == "true"
        assert page.evaluate("document.activeElement.id") == "console-input"
        assert page.input_value("#console-input") == ""  # ... without typing the 3 into it
        page.keyboard.type("n2p")  # a text field keeps its keys
        assert page.input_value("#console-input") == "n2p"
        assert page.get_attribute("#tab-console", "aria-selected") == "true"
        assert page.locator("body.presenter").count() == 0
        page.fill("#console-input", "")
        page.focus("#pace")  # a slider is not a text field
        page.keyboard.press("1")
        assert page.get_attribute("#tab-scheduler", "aria-selected") == "true"
        page.focus("#trace-select")
        page.keyboard.press("2")
        assert page.get_attribute("#tab-yaml", "aria-selected") == "true"
        assert page.problems.errors == []
    finally:
        step_mode(page, False)


def test_one_next_is_one_step_of_the_story_for_all_its_pods_and_the_highlight_never_goes_back(page):
    messages = record_flow_steps(page)
    open_dashboard(page)
    step_mode(page, True)
    try:
        api_write(page, "POST", RCS, nginx_rc("stepper", 2))
        wait_until(page, lambda: any(m["object"]["name"] == "stepper" for m in messages))
        trace = next(m["trace"] for m in messages if m["object"]["name"] == "stepper")

        def steps() -> list[dict]:
            return [m for m in messages if m["trace"] == trace]

        page.wait_for_selector(".caption-wait", timeout=TIMEOUT_MS)
        highest = 0
        page.focus("#step-mode")  # N works with the switch focused
        for _ in range(20):
            page.wait_for_selector("#next-step:enabled, .caption.is-ending", timeout=TIMEOUT_MS)
            if page.locator(".caption.is-ending").count():
                break
            before = len(steps())
            page.keyboard.press("n")
            wait_until(page, lambda n=before: len(steps()) > n)
            page.wait_for_timeout(700)  # long enough for a second step, if Next let two through
            numbers = {m["step"] for m in steps()[before:]}
            assert len(numbers) == 1, [m["step"] for m in steps()[before:]]  # one step number a press
            page.wait_for_function(
                "(n) => [String(n), n === 13 ? 'end' : '']"
                ".includes(document.querySelector('.caption-num').textContent)",
                arg=min(numbers),
            )
            assert min(numbers) >= highest  # the story moves forward
            highest = min(numbers)
            # A pod bound (10, 11) but not yet started by its kubelet is Pending, as kubectl says.
            for message in steps():
                name = message["object"]["name"]
                latest = [m["step"] for m in steps() if m["object"]["name"] == name][-1]
                chip = page.locator(f'.pod[data-pod="default/{name}"]')
                if message["object"]["kind"] == "Pod" and latest in (10, 11) and chip.count():
                    assert chip.first.get_attribute("data-state") == "Pending"
        numbers = sorted(m["step"] for m in steps() if m["object"]["kind"] == "Pod")
        assert numbers == sorted(list(range(7, 14)) * 2)  # two pods, every step once each
        assert highest == 13
        assert page.locator(".node-card .pod[data-state='Running']").count() >= 2
    finally:
        step_mode(page, False)


def test_continue_finishes_the_traces_in_flight_and_keeps_step_mode(page):
    messages = record_flow_steps(page)
    open_dashboard(page)
    step_mode(page, True)
    try:
        api_write(page, "POST", PODS, bare_pod("go-on", "node1"))
        page.wait_for_selector('#pending-lane .pod[data-pod="default/go-on"]', timeout=TIMEOUT_MS)
        page.click("#next-step")
        wait_until(page, lambda: any(m["object"]["name"] == "go-on" and m["step"] == 9 for m in messages))
        page.click("#continue")
        page.wait_for_selector(
            '.node-card .pod[data-pod="default/go-on"][data-state="Running"]', timeout=TIMEOUT_MS
        )
        assert page.locator("#step-mode").is_checked()
        # Step mode still holds the next trace.
        api_write(page, "POST", PODS, bare_pod("held", "node2"))
        page.wait_for_selector('#pending-lane .pod[data-pod="default/held"]', timeout=TIMEOUT_MS)
        page.wait_for_timeout(800)
        assert page.locator('#pending-lane .pod[data-pod="default/held"]').count() == 1
        # Once go-on's story is told to its ending, the view tells held's, which waits for Next.
        page.wait_for_selector(".caption-wait", timeout=TIMEOUT_MS)
        assert page.locator('#pending-lane .pod[data-pod="default/held"]').count() == 1
    finally:
        step_mode(page, False)
    page.wait_for_selector(
        '.node-card .pod[data-pod="default/held"][data-state="Running"]', timeout=TIMEOUT_MS
    )


def test_replay_shows_the_cluster_as_it_was_at_each_step_then_returns_to_live(page):
    messages = record_flow_steps(page)
    open_dashboard(page)
    api_write(page, "POST", PODS, bare_pod("time-travel", "node2"))
    running = '.node-card[data-node="node2"] .pod[data-pod="default/time-travel"][data-state="Running"]'
    page.wait_for_selector(running, timeout=TIMEOUT_MS)
    trace = next(m["trace"] for m in messages if m["object"]["name"] == "time-travel")
    page.select_option("#trace-select", trace)
    snapshots: list[str] = []
    page.on("request", lambda r: snapshots.append(r.url) if "/snapshot?revision=" in r.url else None)
    page.click("#replay")
    page.wait_for_selector("#replay-bar:not([hidden])", timeout=TIMEOUT_MS)

    def scrub(index: int) -> None:
        page.evaluate(
            "(i) => { const s = document.getElementById('replay-scrub');"
            " s.value = String(i); s.dispatchEvent(new Event('input')); }",
            index,
        )

    scrub(0)  # step 1: the pod was just written, not yet scheduled
    page.wait_for_selector('#pending-lane .pod[data-pod="default/time-travel"][data-state="Pending"]')
    assert page.locator(running).count() == 0
    assert page.locator("#past-badge").is_visible()
    page.screenshot(path="artifacts/screenshots/replay-first-step.png")
    last = int(page.get_attribute("#replay-scrub", "max"))
    scrub(last)  # step 13: Running on node2
    page.wait_for_selector(running, timeout=TIMEOUT_MS)
    assert page.locator("#replay-label").text_content().endswith(f"{last + 1}/{last + 1}")
    assert page.locator(".caption-num").text_content() == "end"  # the ending entry follows step 13
    assert snapshots  # read back from the server's event log
    page.click("#replay-exit")
    page.wait_for_selector("#replay-bar[hidden]", state="attached")
    assert not page.locator("#past-badge").is_visible()
    page.wait_for_selector(running)
    assert page.problems.errors == []
