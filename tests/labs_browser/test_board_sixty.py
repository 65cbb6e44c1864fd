"""A board for a class of 60, in Chromium: sixty students join over HTTP (each browser its own
cookies), some do a step right, some wrong, some nothing; the board shows all sixty at 1600×1000
without the page scrolling, sorts, filters (status, step, name), highlights who is stuck, exports
the progress, and opens a student's sandbox read-only with their last commands in one click."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.labs_browser.test_instructor_browser import TIMEOUT_MS, shot, teacher_page  # noqa: F401

pytestmark = pytest.mark.browser

RIGHT = """apiVersion: v1
kind: Pod
metadata: {name: pod-example, labels: {app: nginx}}
spec:
  nodeName: node1
  containers: [{name: nginx, image: "nginx:1.15"}]
"""
WRONG = RIGHT.replace("node1", "node2")
MASTER = RIGHT.replace("pod-example", "pinned-master").replace("node1", "master")
NAMES = [f"Student {n:02d}" for n in range(1, 55)] + [
    "王小明",
    "李华",
    "Maximilian Alexander von Hohenberg-Ost",
    "Zoë",
    "Ana María",
    "Bob",
]


class Student:
    """A student's browser, driven over HTTP with its own cookie jar (a context without a page)."""

    def __init__(self, browser, base: str, code: str, name: str) -> None:
        self.context = browser.new_context()
        self.base, self.name = base, name
        self.context.request.get(f"{base}/join/?code={code}")
        response = self.context.request.post(
            f"{base}/join/", form={"code": code, "name": name, "csrfmiddlewaretoken": self._csrf()}
        )
        assert response.ok and response.url.endswith("/lab/"), (name, response.status, response.text()[:300])
        self.sandbox = self.state()["sandbox"]

    def _csrf(self) -> str:
        return next(c["value"] for c in self.context.cookies() if c["name"] == "csrftoken")

    def _post(self, path: str, body: dict) -> dict:
        response = self.context.request.post(
            f"{self.base}{path}",
            data=json.dumps(body),
            headers={"Content-Type": "application/json", "X-CSRFToken": self._csrf()},
        )
        assert response.ok, (path, response.status, response.text()[:300])
        return response.json()

    def state(self) -> dict:
        return self.context.request.get(f"{self.base}/lab/state").json()

    def console(self, command: str, stdin: str = "") -> dict:
        return self._post(f"/clusters/{self.sandbox}/ui/console", {"command": command, "stdin": stdin})

    def answer(self, text: str) -> dict:
        return self._post("/lab/answer", {"answer": text})


def _rows(board) -> list[str]:
    rows = board.locator("#students .lab-row[data-student]")
    return rows.evaluate_all("(rows) => rows.map((r) => r.dataset.student)")


def _fits(page) -> bool:
    """Every row in view, and neither the list nor the page scrolls."""
    return page.evaluate(
        "() => { const list = document.getElementById('students');"
        " return list.scrollHeight <= list.clientHeight + 1 && list.scrollWidth <= list.clientWidth + 1"
        " && document.documentElement.scrollHeight <= innerHeight + 1; }"
    )


def _wait_count(board, selector: str, count: int) -> None:
    board.wait_for_function(
        f"() => document.querySelectorAll({json.dumps(selector)}).length === {count}", timeout=60_000
    )


def test_a_board_for_sixty(teacher_page, browser, labs_server):  # noqa: F811
    board, base = teacher_page, teacher_page.base
    board.goto(f"{base}/labs/manage/")
    row = board.locator("tr", has=board.locator("code", has_text=re.compile("^nodename$")))
    row.locator("text=Open a class session").click()
    board.wait_for_selector(".labs-join-code", timeout=TIMEOUT_MS)
    code = board.locator(".labs-join-code").text_content().strip()

    students = [Student(browser, base, code, name) for name in NAMES]
    _wait_count(board, "#students .lab-row[data-student]", 60)

    # 20 do step 1 right; of those, 6 answer step 2, and 3 of those finish the lab; 8 do it wrong.
    for student in students[:20]:
        assert student.console("apply -f -", RIGHT)["exit_code"] == 0
    for student in students[20:28]:
        assert student.console("apply -f -", WRONG)["exit_code"] == 0
    _wait_count(board, '#students .lab-row[data-student] .c-step:not([title=""])', 60)
    board.wait_for_function(
        "() => [...document.querySelectorAll('#students .lab-row .c-step')]"
        ".filter((c) => c.textContent.startsWith('2/')).length === 20",
        timeout=60_000,
    )
    for student in students[:6]:
        student.answer("no")
    for student in students[:3]:
        assert student.console("apply -f -", MASTER)["exit_code"] == 0
    _wait_count(board, "#students .lab-row.is-done", 3)
    # The wrong ones count once their sandboxes settled; one wrong attempt makes them stuck here.
    board.wait_for_function(
        "() => [...document.querySelectorAll('#students .lab-row .c-attempts')]"
        ".filter((c) => c.textContent === '1').length === 8",
        timeout=60_000,
    )
    board.fill("#stuck-attempts", "1")
    board.click("#stuck-form button[type=submit]")
    _wait_count(board, "#students .lab-row.is-stuck", 8)

    # Sixty rows, all in view at 1600×1000; stuck first (the default sort), then working.
    assert _fits(board)
    names = _rows(board)
    assert len(names) == 60 and set(names[:8]) == {s.name for s in students[20:28]}
    legend = board.locator("#status-legend").text_content()
    for count in ("Stuck 8", "Working 17", "Not started 32", "Done ✓ 3"):
        assert count in legend
    histogram = board.locator("#histogram .lab-hist-n").all_text_contents()
    assert histogram == ["40", "14", "3", "3"]
    shot(board, "board-60-1600x1000")

    board.select_option("#board-sort", "name")
    assert _rows(board)[:3] == ["Ana María", "Bob", "Maximilian Alexander von Hohenberg-Ost"]
    board.select_option("#board-sort", "progress")
    assert set(_rows(board)[:3]) == {s.name for s in students[:3]}

    # Filters: a status, a step of the histogram, a name; "Show everyone" clears them.
    board.click('#status-legend [data-status="stuck"]')
    assert len(_rows(board)) == 8 and "Showing 8 of 60" in board.locator("#board-shown").text_content()
    shot(board, "board-60-stuck-filter-1600x1000")
    board.click('#status-legend [data-status="stuck"]')
    board.click('#histogram .lab-hist-col[data-step="2"]')
    assert set(_rows(board)) == {s.name for s in students[3:6]}
    board.click("#board-clear")
    board.fill("#board-search", "王")
    assert _rows(board) == ["王小明"]
    board.click("#board-clear")
    assert len(_rows(board)) == 60

    # A student's details beside the list; the long name is whole there.
    long_name = "Maximilian Alexander von Hohenberg-Ost"
    board.locator(f'#students .lab-row[data-student="{long_name}"]').click()
    assert long_name in board.locator("#student-detail").text_content()
    board.keyboard.press("Escape")
    assert board.locator("#student-detail").is_hidden()

    # Export: the file is what the board shows.
    with board.expect_download() as download:
        board.click("#export-json")
    exported = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert len(exported["students"]) == 60
    assert sum(s["status"] == "stuck" for s in exported["students"]) == 8
    with board.expect_download() as download:
        board.click("#export-csv")
    assert Path(download.value.path()).read_text(encoding="utf-8-sig").count("\n") == 1 + 60 * 3

    # One click on a stuck student's eye: their sandbox, read-only, with their last command.
    wrong = students[20]
    wrong.console("get pods -o wide")
    board.click(f'#students .lab-row[data-student="{wrong.name}"] .c-watch')
    board.wait_for_url(re.compile(r".*/students/\d+/$"), timeout=TIMEOUT_MS)
    board.wait_for_selector("#watch-commands .lab-command", timeout=TIMEOUT_MS)
    commands = board.locator("#watch-commands .lab-command-line code").all_text_contents()
    assert commands[:2] == ["$ kubectl get pods -o wide", "$ kubectl apply -f -"]
    assert "node2" in board.locator("#watch-commands .lab-command-out").first.text_content()
    assert "pod-example" in board.locator("#watch-commands .lab-command-stdin").first.text_content()
    assert board.locator("body.is-read-only").count() == 1
    assert board.locator("#console-form").is_hidden()
    board.wait_for_selector(".node-name", timeout=TIMEOUT_MS)
    shot(board, "board-60-watch-1600x1000")

    # The board at the other projector sizes and in Chinese.
    board.goto(f"{base}/labs/manage/sessions/{code}/")
    _wait_count(board, "#students .lab-row[data-student]", 60)
    for width, height in ((1280, 720), (1920, 1080)):
        board.set_viewport_size({"width": width, "height": height})
        board.wait_for_timeout(300)
        assert board.evaluate("() => document.documentElement.scrollHeight <= innerHeight + 1")
        shot(board, f"board-60-{width}x{height}")
    assert _fits(board)  # at 1920×1080 too
    board.click(".lang-switch button[value=zh-hans]")
    board.wait_for_selector('html[lang="zh-hans"]', timeout=TIMEOUT_MS)
    _wait_count(board, "#students .lab-row[data-student]", 60)
    for width, height in ((1280, 720), (1600, 1000), (1920, 1080)):
        board.set_viewport_size({"width": width, "height": height})
        board.wait_for_timeout(300)
        assert board.evaluate("() => document.documentElement.scrollHeight <= innerHeight + 1")
        shot(board, f"board-60-{width}x{height}-zh")
    assert "卡住了 8" in board.locator("#status-legend").text_content()
    board.goto(f"{base}/labs/manage/sessions/{code}/students/{_id_of(board, base, code, wrong.name)}/")
    board.wait_for_selector("#watch-commands .lab-command", timeout=TIMEOUT_MS)
    shot(board, "board-60-watch-1920x1080-zh")
    board.click(".lang-switch button[value=en]")
    for student in students:
        student.context.close()


def _id_of(page, base: str, code: str, name: str) -> int:
    board = page.request.get(f"{base}/labs/manage/sessions/{code}/board.json").json()
    return next(s["id"] for s in board["students"] if s["name"] == name)
