"""The teacher's "Class may write" reaches every open page at once (the banner, the controls, the
console's rights), and "Reset demo" puts the cluster back for the next class, every page watching.

Six viewers (1280×720, 1600×1000, 1920×1080, English and Chinese) stay open while the teacher
switches and resets; none reloads. Screenshots in artifacts/screenshots/.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS, PageProblems, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS, console

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
LANGUAGES = ["en", "zh-hans"]
WORDS = {  # the banner's words for students, read-only and writable, in each language
    "en": ("your teacher's demo, read-only", "Your teacher lets the class change this demo now"),
    "zh-hans": ("只读观看老师的演示", "老师现在允许全班修改这个演示集群"),
}


def open_page(browser, base_url: str, size, language: str, teacher: bool = False):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    page = context.new_page()
    page.base_url = base_url
    page.problems = PageProblems()
    page.on("pageerror", page.problems.exception)
    if teacher:
        sign_in_as_teacher(page, base_url)
    page.goto(f"{base_url}/clusters/demo/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_selector('.node-card[data-node="node1"]', timeout=TIMEOUT_MS)
    return context, page


def banner(page) -> str:
    return page.locator("#readonly-note").inner_text()


def writable(page) -> bool:
    return not page.locator("#pace").is_disabled() and not page.locator("#add-node").is_disabled()


@pytest.fixture
def pages(browser, live_server_url):
    teacher_context, teacher = open_page(browser, live_server_url, (1600, 1000), "en", teacher=True)
    viewers = [
        (size, language, *open_page(browser, live_server_url, size, language))
        for size in SIZES
        for language in LANGUAGES
    ]
    yield teacher, [(size, language, page) for size, language, _, page in viewers]
    if teacher.locator("#class-may-write").is_checked():
        teacher.locator("#class-may-write").uncheck()
    for _, _, context, _ in viewers:
        context.close()
    teacher_context.close()


def test_class_may_write_reaches_every_open_page_and_reset_demo_starts_afresh(pages):
    teacher, viewers = pages
    assert teacher.locator("#readonly-note").count() == 0 and teacher.locator("#leader").count() == 0
    for size, language, page in viewers:
        assert WORDS[language][0] in banner(page) and not writable(page)
        assert page.locator("#leader").count() == 0  # the embedded default elects no leader
        assert page.locator("#reset-demo").count() == 0  # the teacher's alone
        page.screenshot(path=str(SCREENSHOTS / f"viewer-read-only-{language}-{size[0]}x{size[1]}.png"))

    teacher.locator("#class-may-write").check()
    for size, language, page in viewers:
        page.wait_for_function("() => !document.getElementById('pace').disabled", timeout=TIMEOUT_MS)
        assert WORDS[language][1] in banner(page) and writable(page)
        page.screenshot(path=str(SCREENSHOTS / f"viewer-class-may-write-{language}-{size[0]}x{size[1]}.png"))
    student = viewers[0][2]
    assert console(student, "label nodes node1 lesson=access", expect="node1") == "node/node1 labeled\n"
    for _, _, page in viewers:  # every page sees the student's label, live
        page.locator('.node-card[data-node="node1"] .chip-label[title="lesson=access"]').wait_for(
            timeout=TIMEOUT_MS
        )

    teacher.locator("#class-may-write").uncheck()
    for _, language, page in viewers:
        page.wait_for_function("() => document.getElementById('pace').disabled", timeout=TIMEOUT_MS)
        assert WORDS[language][0] in banner(page) and not writable(page)
    refused = console(student, "label nodes node1 lesson=refused --overwrite", expect="forbidden")
    assert refused == (
        'Error from server (Forbidden): nodes "node1" is forbidden: User "system:anonymous" cannot patch '
        'resource "nodes" in API group "" at the cluster scope\n'
    )

    # Reset demo: a confirmation, then the course's starting state on every page.
    teacher.locator("#class-may-write").check()
    for _, _, page in viewers:
        page.wait_for_function("() => !document.getElementById('pace').disabled", timeout=TIMEOUT_MS)
    teacher.click("#reset-demo")
    teacher.wait_for_selector("#dialog[open]", timeout=TIMEOUT_MS)
    assert "node1 and node2" in teacher.locator("#dialog").inner_text()
    teacher.screenshot(path=str(SCREENSHOTS / "teacher-reset-demo-confirm.png"))
    teacher.click("#dialog-ok")
    done = "() => document.querySelector('#toasts').textContent.includes(\"course's starting state\")"
    teacher.wait_for_function(done, timeout=60_000)
    for size, language, page in viewers:
        label = '.node-card[data-node="node1"] .chip-label[title="lesson=access"]'
        page.wait_for_function(
            "(label) => !document.querySelector(label) && document.getElementById('pace').disabled",
            arg=label,
            timeout=TIMEOUT_MS,
        )
        assert WORDS[language][0] in banner(page)
        page.screenshot(path=str(SCREENSHOTS / f"viewer-after-reset-{language}-{size[0]}x{size[1]}.png"))
    teacher.wait_for_function("() => !document.getElementById('class-may-write').checked", timeout=TIMEOUT_MS)
    for _, _, page in [(None, None, teacher), *viewers]:
        assert page.problems.errors == []
