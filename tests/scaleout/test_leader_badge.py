"""The dashboard's header shows who leads the control plane, and follows a takeover live."""

from __future__ import annotations

import os
import signal

import pytest
from django.conf import settings

from tests.scaleout import workloads
from tests.scaleout.support import free_port, wait_for

CHROMIUM = settings.KUBESIM_CHROMIUM


@pytest.mark.browser
def test_the_header_names_the_leader_and_follows_a_takeover(scaled):
    if not CHROMIUM.exists():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"no Chromium at {CHROMIUM} (CI=true: the browser tests must run)")
        pytest.skip(f"no Chromium at {CHROMIUM}")
    from playwright.sync_api import expect, sync_playwright

    port = free_port()
    scaled.serve(port)
    base = f"http://127.0.0.1:{port}/clusters/demo"
    first = scaled.controlplane("cp-a")
    wait_for(lambda: workloads.holder(base) == "cp-a", 20, "cp-a to lead")
    scaled.controlplane("cp-b")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        try:
            page = browser.new_page(locale="zh-CN", extra_http_headers={"Accept-Language": "zh-Hans"})
            page.goto(f"{base}/")
            expect(page.locator("#leader")).to_be_visible(timeout=10_000)
            expect(page.locator("#leader .leader-label")).to_have_text("领导者")
            expect(page.locator("#leader-holder")).to_have_text("cp-a")
            scaled.kill(first, signal.SIGTERM)  # hands the lease back: cp-b takes it at once
            expect(page.locator("#leader-holder")).to_have_text("cp-b", timeout=5_000)
        finally:
            browser.close()
