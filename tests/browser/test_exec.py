"""`kubectl exec -it` in the web console: a terminal session in line mode, seen on the pod's card and
in its story."""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import TIMEOUT_MS, apply_yaml, open_dashboard, pod_chip

pytestmark = pytest.mark.browser

POD = """\
apiVersion: v1
kind: Pod
metadata:
  name: exec-web
spec:
  nodeName: node1
  containers:
    - name: nginx
      image: nginx:1.25
"""
SIZES = ((1280, 720), (1600, 1000), (1920, 1080))


def _screen_has(page, text: str) -> None:
    page.wait_for_function(
        "(text) => document.querySelector('#console-out').textContent.includes(text)",
        arg=text,
        timeout=TIMEOUT_MS,
    )


def _shots(page, lang: str) -> None:
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("window.scrollTo(0, 0)")
        page.screenshot(path=str(SCREENSHOTS / f"exec-session-{lang}-{width}x{height}.png"), full_page=True)


def test_exec_it_bash_in_the_console(page):
    open_dashboard(page)
    apply_yaml(page, POD)
    page.wait_for_selector(
        '.node-card[data-node="node1"] .pod[data-pod="default/exec-web"][data-state="Running"]',
        timeout=TIMEOUT_MS,
    )
    page.click("#tab-console")
    page.fill("#console-input", "exec -it exec-web -- bash")
    page.press("#console-input", "Enter")
    _screen_has(page, "root@exec-web:/# ")
    assert page.locator("#console-form .console-prompt").is_hidden()

    chip = pod_chip(page, "node1", "exec-web")
    page.wait_for_selector('.pod[data-pod="default/exec-web"].has-exec', timeout=TIMEOUT_MS)
    assert chip.get_attribute("data-exec") == "1"
    assert "exec session open: kubectl exec -it exec-web -- bash" in chip.get_attribute("title")

    page.fill("#console-input", "hostname")
    page.press("#console-input", "Enter")
    _screen_has(page, "root@exec-web:/# hostname\nexec-web\nroot@exec-web:/# ")
    page.fill("#console-input", "cat /etc/nginx/conf.d/default.conf | grep listen")
    page.press("#console-input", "Enter")
    _screen_has(page, "    listen       80;\n    listen  [::]:80;\n")
    page.press("#console-input", "ArrowUp")  # the shell's history, not kubectl's
    assert page.input_value("#console-input") == "cat /etc/nginx/conf.d/default.conf | grep listen"
    page.fill("#console-input", "half a line")
    page.press("#console-input", "Control+c")
    _screen_has(page, "^C\nroot@exec-web:/# ")

    story = page.locator("#exec-story")
    story.wait_for(state="visible", timeout=TIMEOUT_MS)
    assert "kubectl exec -it exec-web -c nginx -- bash" in story.text_content()
    assert "open now" in story.text_content()
    page.locator("#exec-story").scroll_into_view_if_needed()
    _shots(page, "en")

    # Switching the language reloads the page: its socket closes and the session ends, as when a
    # terminal closes; the story keeps it. A new session in Chinese:
    page.click('.lang-switch button[value="zh-hans"]')
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => !document.querySelector('.pod[data-pod=\"default/exec-web\"]').classList.contains('has-exec')",
        timeout=TIMEOUT_MS,
    )
    page.click("#tab-console")
    page.fill("#console-input", "exec -it exec-web -- bash")
    page.press("#console-input", "Enter")
    _screen_has(page, "root@exec-web:/# ")
    page.wait_for_selector('.pod[data-pod="default/exec-web"].has-exec', timeout=TIMEOUT_MS)
    page.locator("#exec-story").wait_for(state="visible", timeout=TIMEOUT_MS)
    # The story is the flow view's: it redraws in its own animation frame, after the cards.
    page.wait_for_function(
        "() => document.getElementById('exec-story').textContent.includes('进行中')", timeout=TIMEOUT_MS
    )
    assert "已结束：客户端断开了连接" in page.locator("#exec-story").text_content()
    _shots(page, "zh")
    page.set_viewport_size({"width": 1440, "height": 1000})
    page.fill("#console-input", "exit 4")
    page.press("#console-input", "Enter")
    _screen_has(page, "command terminated with exit code 4")
    page.locator("#console-form .console-prompt").wait_for(state="visible", timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => [...document.querySelectorAll('#exec-story .exec-state')]"
        ".some((s) => s.textContent.endsWith(' 4'))",
        timeout=TIMEOUT_MS,
    )
    page.fill("#console-input", "exec exec-web -- nginx -v")
    page.press("#console-input", "Enter")
    _screen_has(page, "nginx version: nginx/1.25.5")
    assert not page.problems.errors


def test_exec_i_without_a_terminal_streams_lines_until_ctrl_d(page):
    open_dashboard(page)
    apply_yaml(page, POD.replace("exec-web", "exec-sh"))
    page.wait_for_selector(
        '.node-card[data-node="node1"] .pod[data-pod="default/exec-sh"][data-state="Running"]',
        timeout=TIMEOUT_MS,
    )
    page.click("#tab-console")
    page.fill("#console-input", "exec -i exec-sh -- sh")
    page.press("#console-input", "Enter")
    page.wait_for_selector('.pod[data-pod="default/exec-sh"].has-exec', timeout=TIMEOUT_MS)
    page.fill("#console-input", "hostname")
    page.press("#console-input", "Enter")
    _screen_has(page, "hostname\nexec-sh\n")
    page.press("#console-input", "Control+d")  # stdin closes: sh reaches the end of its script
    page.locator("#console-form .console-prompt").wait_for(state="visible", timeout=TIMEOUT_MS)
    assert not page.problems.errors
