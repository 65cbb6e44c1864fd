"""The board for a class: the progress export (JSON and CSV, spreadsheet-safe), a student's
sandbox read-only in one click (with their last console commands), and the console history's
bound."""

from __future__ import annotations

import csv
import io
import json

import pytest

from dashboard import history
from dashboard.models import ConsoleEntry
from labs.models import StepProgress
from labs.selftest import forget
from tests.labs.conftest import join

pytestmark = pytest.mark.django_db(transaction=True)


def _console(client, sandbox: str, command: str) -> dict:
    body = json.dumps({"command": command, "stdin": ""})
    return client.post(f"/clusters/{sandbox}/ui/console", body, "application/json").json()


def test_the_progress_exports_as_json_and_csv(teacher, session, student_a):
    alice = student_a.student
    evil = join(session, "=HYPERLINK(1)")
    first = StepProgress.objects.get(student=alice, index=0)
    first.attempts, first.last_failure = 2, [{"message": {"en": "Wrong node", "zh": "节点不对"}}]
    first.save()
    base = f"/labs/manage/sessions/{session.code}"

    data = teacher.get(f"{base}/progress.json").json()
    assert data["session"] == session.code and data["lab"]["id"] == "nodeselector"
    row = next(s for s in data["students"] if s["name"] == "Alice")
    assert (row["status"], row["current_step"], row["done"], row["attempts"]) == ("working", 1, False, 2)
    assert [s["state"] for s in row["steps"]][:2] == ["current", "not-reached"]
    assert row["steps"][0]["last_failure"] == [{"en": "Wrong node", "zh": "节点不对"}]
    assert len(row["steps"]) == data["lab"]["steps"]

    response = teacher.get(f"{base}/progress.csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert f"{session.code}-nodeselector-progress.csv" in response["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    alice_rows = [r for r in rows if r["student"] == "Alice"]
    assert len(alice_rows) == data["lab"]["steps"]
    assert (alice_rows[0]["attempts"], alice_rows[0]["step_state"], alice_rows[0]["last_failure"]) == (
        "2",
        "current",
        "Wrong node",
    )
    # A display name a spreadsheet would run as a formula stays text.
    assert any(r["student"] == "'=HYPERLINK(1)" for r in rows)
    zh = teacher.get(f"{base}/progress.csv", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode("utf-8-sig")
    assert "节点不对" in zh

    assert teacher.get(f"{base}/progress.xml").status_code == 404
    assert student_a.get(f"{base}/progress.json").status_code == 302  # staff only
    forget(alice.sandbox)
    forget(evil.student.sandbox)


def test_the_teacher_watches_a_student_read_only_with_their_last_commands(teacher, session, student_a):
    alice = student_a.student
    sandbox = alice.sandbox.name
    assert "node2" in _console(student_a, sandbox, "get nodes")["output"]
    wrong = _console(student_a, sandbox, "label nodes nowhere zz=cxk")
    assert wrong["exit_code"] == 1

    page = teacher.get(f"/labs/manage/sessions/{session.code}/students/{alice.pk}/")
    assert page.status_code == 200
    boot = page.context["boot"]
    assert boot["cluster"] == sandbox
    assert (boot["access"]["may_write"], boot["access"]["always"]) == (False, False)
    assert b"is-watching" in page.content and b"Alice" in page.content

    state = teacher.get(f"/labs/manage/sessions/{session.code}/students/{alice.pk}/watch.json").json()
    assert state["student"]["name"] == "Alice"
    commands = [c["command"] for c in state["commands"]]
    assert commands == ["label nodes nowhere zz=cxk", "get nodes"]  # newest first
    assert state["commands"][0]["exit_code"] == 1
    assert state["commands"][0]["output"] == wrong["output"]
    assert state["steps"][0]["state"] == "current"

    # Another class's teacher view does not reach her; a student never does.
    assert teacher.get(f"/labs/manage/sessions/NOSUCH/students/{alice.pk}/").status_code == 404
    assert student_a.get(f"/labs/manage/sessions/{session.code}/students/{alice.pk}/").status_code == 302
    forget(alice.sandbox)


def test_the_console_history_keeps_the_newest_few_per_private_cluster(session, student_a):
    alice = student_a.student
    for n in range(history.KEEP + 5):
        history.record(alice.sandbox, "alice", f"get pods {n}", "", "x" * (history.MAX_OUTPUT + 10), 0)
    kept = history.recent(alice.sandbox)
    assert len(kept) == history.KEEP == ConsoleEntry.objects.filter(cluster=alice.sandbox).count()
    assert kept[0]["command"] == f"get pods {history.KEEP + 4}"
    assert len(kept[0]["output"]) == history.MAX_OUTPUT and kept[0]["output"].endswith("(cut)")
    demo = alice.sandbox.__class__.objects.filter(public=True).first()
    if demo is not None:
        history.record(demo, "anyone", "get pods", "", "", 0)
        assert not ConsoleEntry.objects.filter(cluster=demo).exists()
    forget(alice.sandbox)
