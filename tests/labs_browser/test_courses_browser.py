"""Courses in Chromium: the teacher builds a course of two labs on /labs/manage/ (a refused form
first), three students join once; at their own pace one finishes lab 1 and goes on to lab 2 while
another is still on lab 1, and re-reads step 1 of lab 1 from lab 2; at the teacher's pace lab 2
opens for everyone on "Open next lab for everyone". Screenshots at three sizes in both languages."""

from __future__ import annotations

import re

import pytest

from tests.labs.test_versions import lab_text
from tests.labs_browser.test_board_attempts import _console, _join
from tests.labs_browser.test_instructor_browser import TIMEOUT_MS, shot, teacher_page  # noqa: F401

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
LABS = {
    "course-one": (("a", "b"), "Course lab one", "课程实验一"),
    "course-two": (("c",), "Course lab two", "课程实验二"),
}


def _new_lab(page, base: str, lab_id: str, steps, title: str, title_zh: str) -> None:
    page.goto(f"{base}/labs/manage/new")
    text = lab_text(*steps, title=title).replace("id: versions", f"id: {lab_id}")
    page.fill("#lab-source", text.replace("zh: 版本", f"zh: {title_zh}"))
    page.click(".labs-editor button.labs-primary")
    page.wait_for_url(f"{base}/labs/manage/{lab_id}/", timeout=TIMEOUT_MS)


def _publish(page, base: str, lab_id: str, label: str) -> None:
    page.goto(f"{base}/labs/manage/")
    row = page.locator("#main tr, tr", has=page.locator("code", has_text=re.compile(f"^{lab_id}$"))).first
    row.locator(f"text={label}").click()
    page.wait_for_url(f"{base}/labs/manage/", timeout=TIMEOUT_MS)


def _course(page, base: str, slug: str, pace: str) -> str:
    """Build the course through the form and open a class on it: the join code."""
    page.goto(f"{base}/labs/manage/")
    page.click("#new-course")
    page.fill("#course-id", slug)
    page.fill("#course-title-en", f"Course {slug}")
    page.fill("#course-title-zh", f"课程 {slug}")
    page.check(f"input[name=pace][value={pace}]")
    for lab_id in ("course-two", "course-one"):  # added in the wrong order, then put right
        page.select_option("#course-add", lab_id)
        page.click("#course-add-button")
    page.click('#course-labs li[data-lab="course-one"] button[data-move="-1"]')
    assert page.locator("#course-labs li").evaluate_all("(items) => items.map((i) => i.dataset.lab)") == [
        "course-one",
        "course-two",
    ]
    page.click("#course-save")
    page.wait_for_selector("#course-saved", timeout=TIMEOUT_MS)
    assert page.locator("#course-version").text_content() == "v1"
    page.click("#course-open")
    page.wait_for_selector(".labs-join-code", timeout=TIMEOUT_MS)
    return page.locator(".labs-join-code").text_content().strip()


def _title_is(page, title: str) -> None:
    page.wait_for_function(
        f"() => document.getElementById('lab-title').textContent === {title!r}", timeout=TIMEOUT_MS
    )


def _finish_lab_one(student) -> None:
    _console(student, "kubectl label nodes node1 a=1")
    student.wait_for_function(
        "() => document.querySelector('#lab-body h2').textContent.startsWith('2.')", timeout=TIMEOUT_MS
    )
    _console(student, "kubectl label nodes node1 b=1")
    student.wait_for_selector("#lab-body .lab-done", timeout=TIMEOUT_MS)


def _step_cell(board, name: str) -> str:
    return board.locator(f'#students .lab-row[data-student="{name}"] .c-step').text_content()


def _wait_cell(board, name: str, text: str) -> None:
    cell = f"document.querySelector('#students .lab-row[data-student=\"{name}\"] .c-step')"
    board.wait_for_function(f"() => {cell} && {cell}.textContent === {text!r}", timeout=TIMEOUT_MS)


def _shots(page, name: str, zh_too: bool = True, prepare=None) -> None:
    """The page at the three sizes, in English and (switching the page's language) Chinese;
    `prepare` puts the page back as it was after the switch reloads it."""
    languages = [("en", "")] + ([("zh-hans", "-zh")] if zh_too else [])
    for language, suffix in languages:
        if page.locator(f'html[lang="{language}"]').count() == 0:
            page.click(f".lang-switch button[value={language}]")
            page.wait_for_selector(f'html[lang="{language}"]', timeout=TIMEOUT_MS)
            if prepare:
                prepare()
        for width, height in SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_timeout(300)
            shot(page, f"{name}-{width}x{height}{suffix}")
    page.click(".lang-switch button[value=en]")
    page.wait_for_selector('html[lang="en"]', timeout=TIMEOUT_MS)
    page.set_viewport_size({"width": 1600, "height": 1000})


def test_a_course_at_the_students_pace_and_at_the_teachers(teacher_page, browser, labs_server):  # noqa: F811
    page, base = teacher_page, teacher_page.base
    for lab_id, (steps, title, title_zh) in LABS.items():
        _new_lab(page, base, lab_id, steps, title, title_zh)
        _publish(page, base, lab_id, "Publish")

    # A refused form: every problem named at its field, nothing stored, the input kept.
    page.goto(f"{base}/labs/manage/courses/new")
    page.fill("#course-id", "Bad Id")
    page.select_option("#course-add", "course-one")
    page.click("#course-add-button")
    page.evaluate("document.getElementById('course-id').removeAttribute('pattern')")
    page.click("#course-save")
    page.wait_for_selector("#course-errors", timeout=TIMEOUT_MS)
    errors = page.locator("#course-errors").text_content()
    assert "4 problems: nothing was saved." in errors and "at least two labs" in errors
    assert "both languages" in errors and "lowercase letters" in errors
    assert page.locator("#course-labs li").count() == 1  # the labs chosen are kept
    _shots(page, "course-form-errors", zh_too=False)

    # At the students' own pace.
    code = _course(page, base, "own-pace", "student")
    board_url = page.url
    students = {name: _join(browser, base, code, name) for name in ("Ann", "Ben", "Cy")}
    ann, ben = students["Ann"][1], students["Ben"][1]
    page.goto(board_url)
    page.wait_for_selector('#students .lab-row[data-student="Cy"]', timeout=TIMEOUT_MS)
    assert page.locator(".labs-board-title h1").text_content() == "Course own-pace"
    assert "Students go on at their own pace." in page.locator("#course-bar").text_content()
    assert page.locator("#open-next").count() == 0
    _finish_lab_one(ann)
    _console(ben, "kubectl label nodes node1 a=1")
    ann.click("#lab-next")
    _title_is(ann, "Course lab two")
    assert ann.locator("#lab-body h2").text_content().startswith("1. Step c")
    _wait_cell(page, "Ann", "L2 · 1/1")
    _wait_cell(page, "Ben", "L1 · 2/2")
    assert _step_cell(page, "Cy") == "L1 · 1/2"
    assert _title_is(ben, "Course lab one") is None
    # Sorting and filtering keep working across the course's labs.
    page.select_option("#board-sort", "progress")
    rows = page.locator("#students .lab-row[data-student]")
    names = rows.evaluate_all("(r) => r.map((x) => x.dataset.student)")
    assert names == ["Ann", "Ben", "Cy"]
    page.click('#histogram button[data-step="3"]')  # L2 · 1. Step c
    assert page.locator("#students .lab-row[data-student]").count() == 1
    page.click("#board-clear")
    page.select_option("#board-sort", "stuck")
    _shots(page, "course-board-own-pace")

    # Ann, in lab 2, re-reads step 1 of lab 1: its instructions and her result.
    def reread() -> None:
        ann.click('#lab-course li[data-lab="0"] summary')
        ann.click('#lab-course li[data-lab="0"] .lab-step-link >> nth=0')
        ann.wait_for_selector("#lab-review:not([hidden])", timeout=TIMEOUT_MS)

    reread()
    review = ann.locator("#lab-review").text_content()
    assert "Label node1 a=1." in review and "Passed ✓" in review and "Course lab one" in review
    assert "label nodes node1 a=1" in review  # her console commands of that lab
    assert "null" not in review and "undefined" not in review
    assert ann.locator("#lab-body").is_hidden()
    _shots(ann, "course-student-review", prepare=reread)
    reread()
    ann.click("#lab-review-close")
    assert ann.locator("#lab-body h2").text_content().startswith("1. Step c")
    # Ben re-reads the step he passed in the lab he is on.
    ben.click("#lab-back summary")
    ben.click("#lab-back .lab-step-link >> text=Step a")
    ben.wait_for_selector("#lab-review:not([hidden])", timeout=TIMEOUT_MS)
    assert "Passed ✓" in ben.locator("#lab-review").text_content()
    for context, _student in students.values():
        context.close()

    # At the teacher's pace: lab 2 opens for everyone on the teacher's action.
    code = _course(page, base, "teacher-pace", "teacher")
    board_url = page.url
    students = {name: _join(browser, base, code, name) for name in ("Dee", "Eve", "Fay")}
    dee = students["Dee"][1]
    _finish_lab_one(dee)
    dee.wait_for_selector("#lab-next-wait", timeout=TIMEOUT_MS)
    assert "Your teacher opens it for everyone." in dee.locator("#lab-next-wait").text_content()
    assert dee.locator("#lab-next").count() == 0
    page.goto(board_url)
    page.wait_for_selector('#students .lab-row[data-student="Fay"]', timeout=TIMEOUT_MS)
    assert "1 of 2 labs open." in page.locator("#course-bar").text_content()
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#open-next")
    for name, (_context, student) in students.items():
        _title_is(student, "Course lab two")
        assert student.locator("#lab-body h2").text_content().startswith("1. Step c"), name
    page.wait_for_function(
        "() => [...document.querySelectorAll('#students .lab-row[data-student] .c-step')]"
        ".every((c) => c.textContent.startsWith('L2'))",
        timeout=TIMEOUT_MS,
    )
    assert "2 of 2 labs open." in page.locator("#course-bar").text_content()
    assert page.locator("#open-next").count() == 0
    _shots(page, "course-board-teacher-pace")
    _shots(students["Eve"][1], "course-student-lab-two")
    for context, _student in students.values():
        context.close()

    page.goto(f"{base}/labs/manage/")
    _shots(page, "course-manage")
    page.goto(f"{base}/labs/manage/courses/own-pace/")
    _shots(page, "course-form")
    # The server is shared with the other labs browser tests, which count the published labs.
    for lab_id in LABS:
        _publish(page, base, lab_id, "Unpublish")
