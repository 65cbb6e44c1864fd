"""What a viewer and the teacher see: the read-only note, the kubeconfig link, the presenter switch."""

from __future__ import annotations

import json
import urllib.request

import pytest

from tests.browser.conftest import SCREENSHOTS
from tests.browser.helpers import TIMEOUT_MS, open_dashboard
from tests.support.auth import teacher_headers

pytestmark = pytest.mark.browser
SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]


def policy(base: str) -> dict:
    request = urllib.request.Request(f"{base}/clusters/demo/policy", headers=teacher_headers())
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_viewer_sees_read_only_and_how_to_get_write_access(browser, live_server_url, lang):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in SIZES:
        context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US")
        tab = context.new_page()
        tab.base_url = live_server_url
        open_dashboard(tab)
        if lang == "zh":
            tab.click('.lang-switch button[value="zh-hans"]')
            tab.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
        note = tab.locator("#readonly-note")
        assert note.is_visible()
        assert ("老师" if lang == "zh" else "read-only") in note.inner_text()
        assert tab.locator("#class-may-write").count() == 0
        assert tab.locator("#pace").is_disabled() and tab.locator("#step-mode").is_disabled()
        assert tab.locator("#kubectl-copy code").inner_text().startswith("kubectl --server http://")
        tab.screenshot(path=str(SCREENSHOTS / f"viewer-read-only-{lang}-{width}x{height}.png"))
        context.close()


def test_the_teacher_lets_the_class_write_with_the_presenter_switch(page, live_server_url):
    open_dashboard(page)
    assert page.locator("#readonly-note").count() == 0
    assert not page.locator("#pace").is_disabled()
    assert page.locator("#kubectl-copy code").inner_text() == "KUBECONFIG=demo.kubeconfig kubectl"
    assert page.locator("#kubeconfig-download").get_attribute("href") == "/clusters/demo/kubeconfig"
    switch = page.locator("#class-may-write")
    assert not switch.is_checked()
    switch.check()
    page.wait_for_function("() => document.querySelector('#toasts').textContent.includes('class may now')")
    assert policy(live_server_url)["class_may_write"] is True
    page.screenshot(path=str(SCREENSHOTS / "teacher-class-may-write-1280.png"))
    switch.uncheck()
    page.wait_for_function("() => document.querySelector('#toasts').textContent.includes('Only the teacher')")
    assert policy(live_server_url)["class_may_write"] is False
    assert not page.problems.errors
