"""What the containers do, on the page: an init container that exits 1 reads Init:Error on its
card, a readiness probe on a closed port reads 0/1 with the prober's words, and the Inspect view
follows a loop pod's growing log (container picker, timestamps, the kubectl command it matches);
screenshots at projector sizes in both languages."""

from __future__ import annotations

import re

import pytest

from tests.browser.conftest import SCREENSHOTS, manage_live, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS, api_write

pytestmark = pytest.mark.browser

CLUSTER = "podstates"
SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
PODS = f"/clusters/{CLUSTER}/api/v1/namespaces/default/pods"
LOOP = "i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"
REFUSED = r"Readiness probe failed: dial tcp 10\.244\.\d+\.\d+:8080: connect: connection refused"
NO_PREVIOUS = 'previous terminated container "check-db" in pod "init-fails" not found'
STAMPED = r"/^\d{4}-\d\d-\d\dT[\d:.]+Z tick 0$/m.test(t)"


def pod(name: str, containers: list[dict], **spec) -> dict:
    spec = {"containers": containers, **spec}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def busybox(name: str, *command: str) -> dict:
    return {"name": name, "image": "busybox:1.36", "command": list(command)}


INIT_FAILS = pod(
    "init-fails",
    [{"name": "web", "image": "nginx:1.25"}],
    initContainers=[busybox("check-db", "sh", "-c", "echo checking db; exit 1")],
    restartPolicy="Never",
)
PROBE = {"tcpSocket": {"port": 8080}, "periodSeconds": 2, "failureThreshold": 1}
NOT_READY = pod("not-ready", [{"name": "web", "image": "nginx:1.25", "readinessProbe": PROBE}])
TICKER = pod(
    "ticker",
    [busybox("tick", "sh", "-c", LOOP)],
    initContainers=[busybox("hello", "echo", "init says hello")],
)


def chip(page, name: str):
    return page.locator(f'.node-card .pod[data-pod="default/{name}"]')


def open_logs(page, name: str) -> None:
    chip(page, name).click()
    page.click('.menu-item:text-is("Describe / Events / Logs"), .menu-item:text-is("详情 / 事件 / 日志")')
    page.click('#pane-inspect .seg button[data-view="logs"]')
    page.wait_for_selector("#logs-bar:not([hidden]) #logs-container", timeout=TIMEOUT_MS)


def log_text(page) -> str:
    return page.locator("#inspect-out").text_content()


def wait_log(page, test: str, arg=None) -> None:
    """Wait until `test` (JavaScript, of the log's text `t` and `arg`) holds."""
    script = f"([arg]) => {{ const t = document.querySelector('#inspect-out').textContent; return {test}; }}"
    page.wait_for_function(script, arg=[arg], timeout=TIMEOUT_MS)


def test_cards_show_init_and_probe_states_and_inspect_follows_a_log(page, browser):
    create = f"from cluster.controlplane.demo import create_demo; create_demo('{CLUSTER}')"
    manage_live(page.base_url, "shell", "-c", create)
    page.set_viewport_size({"width": 1600, "height": 1000})
    page.goto(f"{page.base_url}/clusters/{CLUSTER}/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    for body in (INIT_FAILS, NOT_READY, TICKER):
        api_write(page, "POST", PODS, body)

    # kubectl's STATUS and READY, as the server's printer computed them.
    page.wait_for_selector('.pod[data-pod="default/init-fails"][data-state="Init:Error"]', timeout=TIMEOUT_MS)
    assert "phase-Failed" in chip(page, "init-fails").get_attribute("class")
    assert chip(page, "init-fails").get_attribute("data-ready") == "0/1"
    running = '.pod[data-pod="default/ticker"][data-state="Running"][data-ready="1/1"]'
    page.wait_for_selector(running, timeout=TIMEOUT_MS)
    page.wait_for_selector('.pod[data-pod="default/not-ready"][data-state="Running"]', timeout=TIMEOUT_MS)
    assert chip(page, "not-ready").get_attribute("data-ready") == "0/1"
    assert chip(page, "not-ready").locator(".pod-ready").text_content() == "0/1"
    assert "is-unready" in chip(page, "not-ready").get_attribute("class")
    # The prober's Unhealthy event names the failure on the card.
    failing = '.pod[data-pod="default/not-ready"].has-probe-failure .pod-probe'
    page.wait_for_selector(failing, timeout=TIMEOUT_MS)
    title = chip(page, "not-ready").get_attribute("title")
    assert re.search(REFUSED, title) and "Ready 0/1 · Restarts 0" in title

    # The loop pod's log grows while the Inspect view follows it.
    open_logs(page, "ticker")
    assert page.locator("#logs-container option").all_text_contents() == ["hello (init)", "tick"]
    assert page.locator("#logs-command").text_content() == "kubectl logs ticker -c tick --tail=500 -f"
    wait_log(page, "t.includes('tick 1\\n')")
    first = log_text(page).count("tick ")
    wait_log(page, "(t.match(/tick /g) || []).length >= arg + 2", first)
    assert log_text(page).splitlines()[:3] == ["tick 0", "tick 1", "tick 2"]
    page.check("#logs-timestamps")
    wait_log(page, STAMPED)
    assert "--timestamps" in page.locator("#logs-command").text_content()
    page.uncheck("#logs-timestamps")
    page.select_option("#logs-container", "hello")
    wait_log(page, "t.startsWith('init says hello')")
    assert page.locator("#logs-command").text_content() == "kubectl logs ticker -c hello --tail=500 -f"

    # --previous of a container that never restarted: kube-apiserver's words, not a blank.
    open_logs(page, "init-fails")
    page.select_option("#logs-container", "check-db")
    wait_log(page, "t.includes('checking db')")
    page.check("#logs-previous")
    wait_log(page, "t.includes(arg)", NO_PREVIOUS)
    assert page.locator("#logs-follow").is_checked() is False
    # The log's 400s are answers shown to the reader (a container waiting to start, no previous
    # run); Chromium reports each failed response all the same, and nothing else may be there.
    answered = "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    assert [e for e in page.problems.errors if answered not in e] == []
    shoot(browser, page.base_url)


def shoot(browser, base_url: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for language in ("en", "zh-hans"):
        for width, height in SIZES:
            context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
            context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
            tab = context.new_page()
            sign_in_as_teacher(tab, base_url)
            tab.goto(f"{base_url}/clusters/{CLUSTER}/")
            tab.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
            tab.wait_for_selector('.pod[data-pod="default/not-ready"] .pod-probe', timeout=TIMEOUT_MS)
            tab.locator('.pod[data-pod="default/not-ready"]').scroll_into_view_if_needed()
            tab.screenshot(path=str(SCREENSHOTS / f"pod-states-cards-{language}-{width}x{height}.png"))
            open_logs(tab, "ticker")
            wait_log(tab, "t.includes('tick ')")
            tab.locator("#pane-inspect").scroll_into_view_if_needed()
            tab.screenshot(path=str(SCREENSHOTS / f"pod-states-logs-{language}-{width}x{height}.png"))
            context.close()
