"""Describe, Events and Logs for a pod; replaying a finished trace; picking a trace."""

from __future__ import annotations

import pytest

from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard

pytestmark = pytest.mark.browser


def pod_yaml(name: str, image: str = "nginx:1.15") -> str:
    return (
        f"apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\nspec:\n  nodeName: node1\n"
        f"  containers:\n    - name: web\n      image: {image}\n"
    )


def test_inspector_shows_describe_events_and_logs_of_a_pod(page):
    open_dashboard(page)
    # nginx 1.19 and later log their entrypoint's start-up lines (1.15 writes nothing).
    apply_yaml(page, pod_yaml("inspect-web", image="nginx:1.25"))
    chip = '.node-card[data-node="node1"] .pod[data-pod="default/inspect-web"][data-state="Running"]'
    page.wait_for_selector(chip, timeout=TIMEOUT_MS)
    page.click(chip)
    page.click('.menu-item:text-is("Describe / Events / Logs")')
    out = page.locator("#inspect-out")
    page.wait_for_function("() => document.getElementById('inspect-out').textContent.startsWith('Name:')")
    assert "inspect-web" in out.text_content()
    page.click('#pane-inspect button[data-view="events"]')
    page.wait_for_function("() => document.getElementById('inspect-out').textContent.startsWith('LAST SEEN')")
    assert "Started" in out.text_content()
    page.click('#pane-inspect button[data-view="logs"]')
    page.wait_for_function(
        "() => document.getElementById('inspect-out').textContent.includes('start worker processes')"
    )
    assert "/docker-entrypoint.sh: Configuration complete; ready for start up" in out.text_content()
    page.click('.node-card[data-node="node2"] .node-menu')
    page.click('.menu-item:text-is("Describe / Events / Logs")')
    page.wait_for_function("() => document.getElementById('inspect-title').textContent.includes('node2')")
    assert "Logs exist for pods only." in out.text_content()


def test_replay_walks_a_finished_trace_again_and_the_picker_selects_a_trace(page):
    open_dashboard(page)
    apply_yaml(page, pod_yaml("replay-web"))
    page.wait_for_selector(
        '.node-card[data-node="node1"] .pod[data-pod="default/replay-web"][data-state="Running"]',
        timeout=TIMEOUT_MS,
    )
    page.wait_for_function("() => document.querySelector('.caption-num')?.textContent === 'end'")
    page.click("#replay")
    page.wait_for_selector("#replay-bar:not([hidden])", timeout=TIMEOUT_MS)
    assert page.locator("#replay-label").text_content().startswith("Replaying · 1/")
    page.wait_for_function(
        "() => /Replaying · [2-9]/.test(document.getElementById('replay-label').textContent)",
        timeout=TIMEOUT_MS,
    )
    options = page.locator("#trace-select option")
    assert options.count() >= 2
    labels = options.all_text_contents()
    target = next(i for i, label in enumerate(labels) if "replay-web" in label)
    page.select_option("#trace-select", index=target)
    assert "replay-web" in page.locator(".caption-meta").text_content()


def test_a_long_trace_loaded_from_the_snapshot_replays_whole_fetching_its_other_steps(page):
    """The snapshot carries a long trace's first and newest steps and its counts; Replay fetches
    the others from …/flow/steps and walks the trace's own steps and one pod's chain in full."""
    open_dashboard(page)
    rc = (
        "apiVersion: v1\nkind: ReplicationController\nmetadata:\n  name: long-web\nspec:\n  replicas: 3\n"
        "  selector:\n    app: long-web\n  template:\n    metadata:\n      labels:\n        app: long-web\n"
        "    spec:\n      containers:\n        - name: web\n          image: nginx:1.15\n"
    )
    apply_yaml(page, rc)
    running = '.pod[data-pod^="default/long-web-"][data-state="Running"]'
    page.wait_for_function(f"() => document.querySelectorAll('{running}').length === 3", timeout=TIMEOUT_MS)
    page.wait_for_function("() => document.querySelector('.caption-num')?.textContent === 'end'")
    fetched: list[str] = []
    page.on(
        "request",
        lambda request: fetched.append(request.url) if "/flow/steps?trace=" in request.url else None,
    )
    page.reload()
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_function("() => document.querySelector('.caption-num')?.textContent === 'end'")
    assert "long-web" in page.locator("#trace-select option").nth(1).text_content()
    page.click("#replay")
    page.wait_for_selector("#replay-bar:not([hidden])", timeout=TIMEOUT_MS)
    assert fetched, "the replay fetched the steps the snapshot left out"
    # Steps 1–6 of the RC, one pod's 7–13 and the ending: 14 entries, none missing.
    assert page.locator("#replay-label").text_content().endswith("/14")
    page.eval_on_selector("#replay-scrub", "el => { el.value = '12'; el.dispatchEvent(new Event('input')); }")
    page.wait_for_function("() => document.querySelector('.caption-num')?.textContent === '13'")
