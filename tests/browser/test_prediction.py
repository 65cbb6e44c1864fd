"""The prediction round in a classroom: the teacher arms it from the flow panel, three students'
pages ask "Which node will the scheduler pick?", each guesses, the teacher creates a pod, and at
its step 9 every page reveals the scheduler's answer and the class's guesses against it; at the
pace, and in step mode (open until Next records step 9). A page opened after the reveal shows it
too. Screenshots at 1280×720, 1600×1000 and 1920×1080 in English and Chinese.
"""

from __future__ import annotations

import pytest

from tests.browser.conftest import SCREENSHOTS, PageProblems, sign_in_as_teacher
from tests.browser.helpers import TIMEOUT_MS, api_write

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1600, 1000), (1920, 1080)]
PODS = "/clusters/demo/api/v1/namespaces/default/pods"
QUESTION = {"en": "Which node will the scheduler pick?", "zh-hans": "调度器会选哪个节点？"}
PICKED = {"en": "The scheduler picked {node}", "zh-hans": "选择了 {node}"}


def open_page(browser, base_url: str, size, language: str, teacher: bool = False):
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="en-US")
    context.add_cookies([{"name": "django_language", "value": language, "url": base_url}])
    page = context.new_page()
    page.base_url, page.language = base_url, language
    page.problems = PageProblems()
    page.on("pageerror", page.problems.exception)
    page.on("console", page.problems.console)
    if teacher:
        sign_in_as_teacher(page, base_url)
    page.goto(f"{base_url}/clusters/demo/")
    page.wait_for_selector('#conn[data-state="live"]', timeout=TIMEOUT_MS)
    page.wait_for_selector('.node-card[data-node="node1"]', timeout=TIMEOUT_MS)
    return context, page


@pytest.fixture
def classroom(browser, live_server_url):
    teacher_context, teacher = open_page(browser, live_server_url, (1600, 1000), "en", teacher=True)
    students = [
        open_page(browser, live_server_url, size, language)
        for size, language in [((1280, 720), "en"), ((1920, 1080), "zh-hans"), ((1600, 1000), "en")]
    ]
    yield teacher, [page for _, page in students]
    if teacher.locator("#step-mode").is_checked():
        teacher.click("label.switch")
    # The demo is shared with the later browser tests: no answer may stay on their pages (a new
    # round replaces the revealed one, and is cancelled).
    api_write(teacher, "POST", "/clusters/demo/prediction", {"ask_plugin": False})
    api_write(teacher, "DELETE", "/clusters/demo/prediction")
    for context, _ in students:
        context.close()
    teacher_context.close()


def bare_pod(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "web", "image": "nginx:1.15"}]},
    }


def arm(teacher, ask_plugin: bool) -> None:
    if teacher.locator("#predict-ask-plugin").is_checked() != ask_plugin:
        teacher.click("#predict-ask-plugin")
    teacher.click("#predict-arm")


def guess(page, node: str, plugin: str | None = None) -> None:
    page.wait_for_selector(
        f'#prediction[data-state="open"] .predict-node[data-node="{node}"]', timeout=TIMEOUT_MS
    )
    page.click(f'.predict-node[data-node="{node}"]')
    page.wait_for_selector(f'.predict-node.is-mine[data-node="{node}"]', timeout=TIMEOUT_MS)
    if plugin:
        page.select_option("#predict-plugin", plugin)
        page.wait_for_function(
            "(p) => document.querySelector('.predict-status').textContent.includes(p)",
            arg=plugin,
            timeout=TIMEOUT_MS,
        )


def bars(page) -> dict[str, int]:
    found = page.locator(".predict-bar")
    return {
        found.nth(i).get_attribute("data-node"): int(found.nth(i).get_attribute("data-count"))
        for i in range(found.count())
    }


def revealed(page, node: str) -> None:
    page.wait_for_selector('#prediction[data-state="closed"]', timeout=TIMEOUT_MS)
    page.wait_for_function(
        "() => !document.querySelector('.predict-decided').textContent.includes('…')", timeout=TIMEOUT_MS
    )
    assert PICKED[page.language].format(node=node) in page.locator(".predict-headline").inner_text()


def shoot(page, name: str) -> None:
    size = page.viewport_size
    page.screenshot(
        path=str(SCREENSHOTS / f"prediction-{name}-{page.language}-{size['width']}x{size['height']}.png")
    )


def test_three_students_guess_and_step_9_reveals_the_answer_and_the_class_on_every_page(classroom, browser):
    teacher, students = classroom
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    assert teacher.locator("#prediction").is_hidden() and students[0].locator("#predict-arm").count() == 0
    arm(teacher, ask_plugin=True)
    for page in students:
        page.wait_for_selector('#prediction[data-state="open"]', timeout=TIMEOUT_MS)
        assert QUESTION[page.language] in page.locator("#prediction").inner_text()
        assert [b.get_attribute("data-node") for b in page.locator(".predict-node").all()] == [
            "master",
            "node1",
            "node2",
        ]
    guess(students[0], "node2", "ImageLocality")
    guess(students[1], "node1", "TaintToleration")
    guess(students[2], "node2")
    guess(students[2], "node1")  # changeable until the round closes
    teacher.wait_for_function(
        "() => document.querySelector('.predict-votes').dataset.votes === '3'", timeout=TIMEOUT_MS
    )
    for page in [teacher, *students]:
        shoot(page, "question")
    api_write(teacher, "POST", PODS, bare_pod("guess-me"))
    teacher.wait_for_selector('#prediction[data-state="closed"]', timeout=TIMEOUT_MS)
    node = api_write(teacher, "GET", f"{PODS}/guess-me")["spec"]["nodeName"]
    for page in [teacher, *students]:
        revealed(page, node)
        assert bars(page) == {"master": 0, "node1": 2, "node2": 1}
        assert page.locator(".predict-bar.is-answer").get_attribute("data-node") == node
        shoot(page, "answer")
    right = 2 if node == "node1" else 1
    assert f"{right} of 3 guessed right" in teacher.locator(".predict-score").inner_text()
    mine = students[0].locator(".predict-yours")
    assert ("is-right" in mine.get_attribute("class")) == (node == "node2")
    decided = teacher.locator(".predict-decided").inner_text()
    assert decided.startswith(("Decided by", "A tie")), decided
    # The projector: the teacher's page in presenter mode, from the back row.
    teacher.set_viewport_size({"width": 1920, "height": 1080})
    teacher.click("#presenter-toggle")
    shoot(teacher, "answer-presenter")
    teacher.click("#presenter-toggle")
    # Pages opened after the reveal get it from their snapshot, in every size and language.
    for size in SIZES:
        for language in ("en", "zh-hans"):
            context, late = open_page(browser, teacher.base_url, size, language)
            revealed(late, node)
            assert bars(late) == {"master": 0, "node1": 2, "node2": 1}
            shoot(late, "late")
            assert late.problems.errors == []
            context.close()
    for page in [teacher, *students]:
        assert page.problems.errors == []


def test_in_step_mode_the_round_stays_open_until_next_records_step_9(classroom):
    teacher, students = classroom
    teacher.click("label.switch")
    teacher.wait_for_function("() => document.getElementById('step-mode').checked", timeout=TIMEOUT_MS)
    arm(teacher, ask_plugin=False)
    for page, node in zip(students, ["node1", "node2", "master"], strict=True):
        guess(page, node)
        assert page.locator("#predict-plugin").count() == 0
    api_write(teacher, "POST", PODS, bare_pod("step-by-step"))
    nexts = 0
    while (state := api_write(teacher, "GET", "/clusters/demo/prediction")["round"])["state"] == "open":
        assert nexts < 12, "step 9 never came"
        for page in students:  # open on the server: open on every page, guesses still change
            assert page.locator('#prediction[data-state="open"]').count() == 1
        teacher.wait_for_function("() => !document.getElementById('next-step').disabled", timeout=TIMEOUT_MS)
        teacher.click("#next-step")
        nexts += 1
        teacher.wait_for_timeout(300)
    assert nexts >= 1  # step mode held the pod before its step 9
    node = state["answer"]["node"]
    for page in [teacher, *students]:
        revealed(page, node)
        assert bars(page) == {"master": 1, "node1": 1, "node2": 1}
        shoot(page, "step-mode-answer")
    assert teacher.locator(".predict-score").inner_text().startswith("1 of 3 guessed right")
    teacher.click("#continue")
    for page in [teacher, *students]:
        assert page.problems.errors == []
