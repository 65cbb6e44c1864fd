"""Attempts that mean something, on the class board in Chromium: a correct `kubectl scale` leaves
Attempts at 0 (its pods start after the action; the step passes before the sandbox settles), a
wrong one counts once the sandbox settled, a student who did nothing is "not started", and the
teacher's stuck rule highlights who needs help."""

from __future__ import annotations

import re

import pytest

from tests.labs_browser.test_instructor_browser import TIMEOUT_MS, shot, teacher_page  # noqa: F401

pytestmark = pytest.mark.browser


def _join(browser, base: str, code: str, name: str):
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale="en-US")
    page = context.new_page()
    page.goto(f"{base}/join/?code={code}")
    page.fill("input[name=name]", name)
    page.click("form button.labs-primary")
    page.wait_for_url(re.compile(r".*/lab/$"), timeout=TIMEOUT_MS)
    page.wait_for_selector("#lab-body h2", timeout=TIMEOUT_MS)
    return context, page


def _console(page, command: str) -> None:
    page.dispatch_event("#tab-console", "click")  # the lab panel may cover the tabs: no pointer
    page.fill("#console-input", command)
    page.press("#console-input", "Enter")


# The board's row cells, by the column they used to be in (name, status, step, attempts, time,
# last failure).
CELLS = {1: "c-name", 2: "c-status", 3: "c-step", 4: "c-attempts", 5: "c-time", 6: "c-failure"}


def _cell(board, name: str, column: int) -> str:
    return board.locator(f'#students .lab-row[data-student="{name}"] .{CELLS[column]}').text_content()


def test_the_board_counts_only_wrong_actions_and_shows_who_is_stuck(teacher_page, browser, labs_server):  # noqa: F811
    board, base = teacher_page, teacher_page.base
    board.goto(f"{base}/labs/manage/")
    row = board.locator("tr", has=board.locator("code", has_text=re.compile("^scaling$")))
    row.locator("text=Open a class session").click()
    board.wait_for_selector(".labs-join-code", timeout=TIMEOUT_MS)
    code = board.locator(".labs-join-code").text_content().strip()

    students = {name: _join(browser, base, code, name) for name in ("Right", "Wrong", "Idle")}
    board.wait_for_selector('#students .lab-row[data-student="Idle"]', timeout=TIMEOUT_MS)
    _console(students["Right"][1], "kubectl scale rc nginx --replicas=5")
    _console(students["Wrong"][1], "kubectl scale rc nginx --replicas=4")

    # Right passes step 1 once the two new pods run; the action never counted, at step 1 or 2.
    board.wait_for_function(
        "() => document.querySelector('#students .lab-row[data-student=\"Right\"] .c-step')"
        ".textContent.startsWith('2/')",
        timeout=TIMEOUT_MS,
    )
    # Wrong's scale is judged once the sandbox settled: one attempt, and the failure is shown.
    board.wait_for_function(
        "() => document.querySelector('#students .lab-row[data-student=\"Wrong\"] .c-attempts')"
        ".textContent === '1'",
        timeout=TIMEOUT_MS,
    )
    board.wait_for_timeout(3000)  # longer than the sandbox's settle time
    assert _cell(board, "Right", 4) == "0"
    assert _cell(board, "Right", 2) == "Working"
    assert _cell(board, "Wrong", 2) == "Working" and "5" in _cell(board, "Wrong", 6)
    assert (_cell(board, "Idle", 2), _cell(board, "Idle", 4), _cell(board, "Idle", 6)) == (
        "Not started",
        "0",
        "—",
    )

    # The teacher's rule for this class: stuck after one wrong attempt.
    board.fill("#stuck-attempts", "1")
    board.click("#stuck-form button[type=submit]")
    board.wait_for_selector('#students .lab-row[data-student="Wrong"].is-stuck', timeout=TIMEOUT_MS)
    assert _cell(board, "Wrong", 2) == "Stuck"
    assert board.locator("#students .lab-row.is-stuck").count() == 1
    legend = board.locator("#status-legend").text_content()
    assert "Stuck 1" in legend and "Not started 1" in legend and "Working 1" in legend
    shot(board, "board-attempts-stuck-1600x1000")
    for context, _ in students.values():
        context.close()
