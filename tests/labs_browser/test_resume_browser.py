"""A student restores their sandbox and progress from the resume link in a fresh browser context."""

from __future__ import annotations

import re

import pytest

from tests.labs_browser.test_board_attempts import _join
from tests.labs_browser.test_instructor_browser import TIMEOUT_MS, shot, teacher_page  # noqa: F401

pytestmark = pytest.mark.browser
POD = (
    "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-example-zz\n  labels:\n    app: nginx\n"
    "spec:\n  nodeSelector:\n    zz: cxk\n  containers:\n    - name: nginx\n      image: nginx:1.15\n"
)


def test_the_resume_link_restores_the_sandbox_in_a_fresh_browser(teacher_page, browser, labs_server):  # noqa: F811
    board, base = teacher_page, teacher_page.base
    board.goto(f"{base}/labs/manage/")
    row = board.locator("tr", has=board.locator("code", has_text=re.compile("^nodeselector$")))
    row.locator("text=Open a class session").click()
    board.wait_for_selector(".labs-join-code", timeout=TIMEOUT_MS)
    code = board.locator(".labs-join-code").text_content().strip()

    first_context, first = _join(browser, base, code, "Mei")
    first.dispatch_event("#tab-yaml", "click")
    first.fill("#yaml-text", POD)
    first.press("#yaml-text", "Control+Enter")
    first.wait_for_function(
        "() => document.querySelector('#lab-body h2').textContent.startsWith('2.')", timeout=TIMEOUT_MS
    )
    first.dispatch_event("#lab-resume summary", "click")
    link = first.input_value("#lab-resume-link")
    resume_code = first.locator("#lab-resume-code").text_content()
    assert re.fullmatch(rf"{re.escape(base)}/resume/[-_A-Za-z0-9]{{40,}}", link)
    assert re.fullmatch(r"[A-Z2-9]{4}-[A-Z2-9]{4}", resume_code)
    before = first.evaluate("() => fetch('/lab/state').then((r) => r.json())")
    first_context.close()  # the browser is lost

    context = browser.new_context(viewport={"width": 1600, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.goto(link)
    page.wait_for_selector("#resume-continue", timeout=TIMEOUT_MS)
    assert "Continue as Mei" in page.locator("#resume-continue").text_content()
    shot(page, "resume-ask-1600x1000")
    page.click("#resume-continue")
    page.wait_for_url(re.compile(r".*/lab/$"), timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => document.querySelector('#lab-body h2') && "
        "document.querySelector('#lab-body h2').textContent.startsWith('2.')",
        timeout=TIMEOUT_MS,
    )
    assert page.locator(".lab-who").text_content() == f"Mei · {code}"
    page.wait_for_selector('.pod[data-pod="default/pod-example-zz"]', timeout=TIMEOUT_MS)
    state = page.evaluate("() => fetch('/lab/state').then((r) => r.json())")
    assert (state["student"], state["sandbox"], state["current"]) == ("Mei", before["sandbox"], 1)
    shot(page, "resume-restored-1600x1000")
    context.close()
