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
    page.wait_for_function("() => document.querySelector('.caption-num').textContent === 'end'")
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
