"""The instructor's editor, the class board and a student's panel, driven in Chromium."""

from __future__ import annotations

import re

import pytest

from labs.loader import bundled_paths
from tests.browser.conftest import SCREENSHOTS
from tests.labs_browser.conftest import TEACHER

pytestmark = pytest.mark.browser
TIMEOUT_MS = 20_000


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"labs-{name}.png"), full_page=True)


@pytest.fixture
def teacher_page(browser, labs_server):
    context = browser.new_context(viewport={"width": 1600, "height": 1000}, locale="en-US")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    base = labs_server["url"]
    page.goto(f"{base}/admin/login/?next=/admin/")
    page.fill("#id_username", TEACHER[0])
    page.fill("#id_password", TEACHER[1])
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}/admin/", timeout=TIMEOUT_MS)
    page.base = base
    yield page
    context.close()
    assert errors == []


def test_the_instructor_imports_edits_saves_and_runs_a_class(teacher_page, browser, labs_server, tmp_path):
    page, base = teacher_page, teacher_page.base
    shot(page, "admin-home")
    page.click("text=Labs: write, test, import, publish")
    page.wait_for_url(f"{base}/labs/manage/", timeout=TIMEOUT_MS)
    slugs = page.locator("#labs-table tbody tr td code").all_text_contents()
    assert slugs[:3] == ["list-watch", "nodename", "nodeselector"] and slugs[8] == "scaling"
    assert page.locator(".labs-state.is-published").count() == 11
    shot(page, "manage")

    # Import a file, find the error by its line number, fix it and save.
    source = bundled_paths()[1].read_text().replace("id: nodename", "id: imported-nodename", 1)
    broken = source.replace("checks:", "chekcs:", 1)
    path = tmp_path / "imported-nodename.yaml"
    path.write_text(broken)
    page.set_input_files("input[type=file][name=file]", str(path))
    page.click("form.labs-inline button[type=submit]")
    page.wait_for_selector("#lab-source", timeout=TIMEOUT_MS)
    lines = page.locator("#lab-lines span").count()
    assert lines == len(broken.split("\n"))
    page.locator("#lab-source").press("End")  # any edit validates
    page.locator("#lab-source").type(" ")
    error = page.locator("#lab-errors .lab-error-line").first
    error.wait_for(timeout=TIMEOUT_MS)
    line = int(re.search(r"\d+", error.text_content()).group())
    assert "chekcs" in broken.split("\n")[line - 1] or page.locator("#lab-lines .is-error").count() >= 1
    shot(page, "editor-error")
    page.fill("#lab-source", source)
    page.click(".labs-editor button.labs-primary")
    try:
        page.wait_for_url(f"{base}/labs/manage/imported-nodename/", timeout=TIMEOUT_MS)
    except Exception:
        print("SERVERLOG", labs_server["log"].read_text()[-3000:])
        raise
    shot(page, "editor-saved")
    page.goto(f"{base}/labs/manage/")
    assert "imported-nodename" in page.locator("#labs-table").text_content()

    # A class session on the nodeSelector lab: the board, a student, a wrong turn, a reset.
    row = page.locator("tr", has=page.locator("code", has_text=re.compile("^nodeselector$")))
    row.locator("text=Open a class session").click()
    page.wait_for_selector(".labs-join-code", timeout=TIMEOUT_MS)
    code = page.locator(".labs-join-code").text_content().strip()

    student_context = browser.new_context(viewport={"width": 1600, "height": 1000}, locale="en-US")
    student = student_context.new_page()
    student.goto(f"{base}/join/?code={code}")
    student.fill("input[name=name]", "Alice")
    student.click("form button.labs-primary")
    student.wait_for_url(re.compile(r".*/lab/$"), timeout=TIMEOUT_MS)
    shot(student, "student-joined")
    student.wait_for_selector("#lab-body h2", timeout=TIMEOUT_MS)
    # The first step, done; then the wrong node labelled.
    # Until the panel docks beside the page it may cover the tools: act without pointer clicks.
    student.dispatch_event("#tab-yaml", "click")
    student.fill(
        "#yaml-text",
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: pod-example-zz\n  labels:\n    app: nginx\n"
        "spec:\n  nodeSelector:\n    zz: cxk\n  containers:\n    - name: nginx\n      image: nginx:1.15\n",
    )
    student.press("#yaml-text", "Control+Enter")
    student.wait_for_function(
        "() => document.querySelector('#lab-body h2').textContent.startsWith('2.')", timeout=TIMEOUT_MS
    )
    student.dispatch_event("#tab-console", "click")
    student.fill("#console-input", "label nodes node2 zz=cxk")
    student.press("#console-input", "Enter")
    student.wait_for_selector(".lab-failures li", timeout=TIMEOUT_MS)
    for _ in range(2):
        button = student.locator("text=Show a hint")
        if button.count():
            button.click()
            student.wait_for_timeout(300)
    hints = student.locator(".lab-hint").all_text_contents()
    assert any("Labelled the wrong node?" in h and "kubectl label nodes node2 zz-" in h for h in hints)
    shot(student, "student-wrong-node-hint")

    page.wait_for_selector("#students .lab-row", timeout=TIMEOUT_MS)
    columns = page.locator("#histogram .lab-hist-col")
    assert columns.count() >= 2
    # Read in the page at one moment: the board redraws its histogram as the student's checks land,
    # and a column read while it was being replaced has no computed style.
    radius = page.evaluate(
        "() => getComputedStyle(document.querySelector('#histogram .lab-hist-fill')).borderTopLeftRadius"
    )
    assert radius == "6px"  # not the dashboard's round .bar
    clipped = page.evaluate(
        "() => [...document.querySelectorAll('#histogram .lab-hist-label')]"
        ".filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent)"
    )
    assert clipped == [], "a step label is clipped"
    shot(page, "board")
    before = labs_server["log"].read_text()
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#students .lab-row").first.click()  # its details and actions open beside the list
    page.locator("#student-detail").get_by_role("button", name="Reset").click()
    student.wait_for_function(
        "() => document.querySelector('#lab-body h2').textContent.startsWith('1.')", timeout=TIMEOUT_MS
    )
    page.wait_for_timeout(1000)
    assert "Traceback" not in labs_server["log"].read_text()[len(before) :]
    shot(student, "student-after-reset")
    student_context.close()
