"""Lab versions in Chromium: the teacher edits a lab in the middle of a class; the student keeps
her version, her place and her passed step; the board names the step the new version removes, and
moving the class maps her progress by step id."""

from __future__ import annotations

import re

import pytest

from tests.labs.test_versions import lab_text
from tests.labs_browser.test_board_attempts import _console, _join
from tests.labs_browser.test_instructor_browser import TIMEOUT_MS, shot, teacher_page  # noqa: F401

pytestmark = pytest.mark.browser


def _panel_step(student) -> str:
    return student.locator("#lab-body h2").text_content()


def test_editing_a_lab_mid_class_keeps_the_students_version_and_progress(teacher_page, browser, labs_server):  # noqa: F811
    page, base = teacher_page, teacher_page.base
    page.goto(f"{base}/labs/manage/new")
    page.fill("#lab-source", lab_text("a", "b", "c").replace("id: versions", "id: versions-ui"))
    page.click(".labs-editor button.labs-primary")
    page.wait_for_url(f"{base}/labs/manage/versions-ui/", timeout=TIMEOUT_MS)
    assert page.locator("#lab-version").text_content() == "v1"
    page.goto(f"{base}/labs/manage/")
    row = page.locator("tr", has=page.locator("code", has_text=re.compile("^versions-ui$")))
    row.locator("text=Publish").click()
    row = page.locator("tr", has=page.locator("code", has_text=re.compile("^versions-ui$")))
    row.locator("text=Open a class session").click()
    page.wait_for_selector(".labs-join-code", timeout=TIMEOUT_MS)
    board_url = page.url
    code = page.locator(".labs-join-code").text_content().strip()

    context, student = _join(browser, base, code, "Alice")
    _console(student, "label nodes node1 a=1")
    student.wait_for_function(
        "() => document.querySelector('#lab-body h2').textContent.startsWith('2.')", timeout=TIMEOUT_MS
    )

    # Mid-class, the teacher removes step b and adds d: version 2.
    page.goto(f"{base}/labs/manage/versions-ui/")
    page.fill(
        "#lab-source", lab_text("a", "c", "d", title="Versions 2").replace("id: versions", "id: versions-ui")
    )
    page.click(".labs-editor button.labs-primary")
    page.wait_for_url(f"{base}/labs/manage/versions-ui/", timeout=TIMEOUT_MS)
    assert page.locator("#lab-version").text_content() == "v2"
    shot(page, "editor-version-2")

    # Alice keeps version 1: the same step, her passed step still passed.
    student.reload()
    student.wait_for_selector("#lab-body h2", timeout=TIMEOUT_MS)
    assert _panel_step(student).startswith("2. Step b")
    assert student.locator("#lab-steps li.done").count() == 1

    page.goto(board_url)
    page.wait_for_selector("#version-banner:not([hidden])", timeout=TIMEOUT_MS)
    banner = page.locator("#version-banner").text_content()
    assert "newer version (2)" in banner and "Step b" in banner and "Alice" in banner
    assert page.locator('#students .lab-row[data-student="Alice"] .c-step').text_content() == "2/3"
    assert page.locator(".labs-board-title h1").text_content() == "Versions"  # the class's version
    shot(page, "board-newer-version")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#version-move")
    page.wait_for_selector("#version-moved", timeout=TIMEOUT_MS)
    assert "Moved 1 student(s) to version 2" in page.locator("#version-banner").text_content()
    assert "Removed steps" in page.locator("#version-banner").text_content()
    title = "() => document.querySelector('.labs-board-title h1').textContent === 'Versions 2'"
    page.wait_for_function(title, timeout=TIMEOUT_MS)
    shot(page, "board-moved-version")

    # Her step a stays passed; b is gone; she is on c, the new version's second step.
    student.wait_for_function(
        "() => document.querySelector('#lab-body h2').textContent.startsWith('2. Step c')", timeout=TIMEOUT_MS
    )
    assert student.locator("#lab-steps li.done").count() == 1
    shot(student, "student-moved-version")
    page.click(".lang-switch button[value=zh-hans]")
    page.wait_for_selector('html[lang="zh-hans"]', timeout=TIMEOUT_MS)
    page.goto(f"{base}/labs/manage/versions-ui/")
    shot(page, "editor-version-2-zh")
    page.click(".lang-switch button[value=en]")
    context.close()
    # The server is shared with the other labs browser tests, which count the published labs.
    page.goto(f"{base}/labs/manage/")
    row = page.locator("tr", has=page.locator("code", has_text=re.compile("^versions-ui$")))
    row.locator("text=Unpublish").click()
    page.wait_for_url(f"{base}/labs/manage/", timeout=TIMEOUT_MS)
