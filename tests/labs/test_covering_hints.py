"""A wrong answer gets the hint that covers it, or says what was checked; a check's own hint shows
with its failure once the student acted (never on the starting state, which fails every step)."""

from __future__ import annotations

import json

import pytest

from labs.checks import Probe, run_check
from labs.labmodel import Text
from labs.loader import LabValidationError, load_lab
from labs.models import ClassSession, LabDefinition, StepProgress
from labs.selftest import forget
from tests.labs.conftest import join
from tests.labs.test_checks import check
from tests.labs.test_versions import lab_text

QUESTION = Text("Who binds a pod to a node?", "谁把 Pod 绑定到节点？")
KUBELET = Text("The kubelet only runs it.", "kubelet 只负责运行。")


def test_a_known_wrong_answer_gets_its_hint_and_another_says_what_was_checked():
    c = check("answer", question=QUESTION, accept=["scheduler"], wrong=((("kubelet", ".*etcd.*"), KUBELET),))
    known = run_check(Probe(None), c, "Kubelet")
    assert not known.passed and known.hint == KUBELET
    assert (
        known.message.en
        == "Checked your answer to “Who binds a pod to a node?”: it is not one of the accepted answers."
    )
    assert known.found.en == "Your answer: Kubelet"
    other = run_check(Probe(None), c, "controller")
    assert other.hint is None and other.message.zh.startswith("已检查你对“谁把 Pod 绑定到节点？”的回答")
    assert run_check(Probe(None), c, "").message == QUESTION  # no answer yet: the question itself
    assert run_check(Probe(None), c, "scheduler").passed
    assert "hint" not in other.as_dict() and known.as_dict()["hint"] == KUBELET.as_dict()


WRONG = """        wrong:
          - answers: ["kubelet"]
            hint: {en: "The kubelet only runs it.", zh: "kubelet 只负责运行。"}
"""
ANSWER_STEP = """  - id: who
    title: {en: Who, zh: 谁}
    instructions: {en: Answer, zh: 回答}
    checks:
      - type: answer
        question: {en: "Who binds?", zh: "谁绑定？"}
        accept: ["scheduler"]
"""


def test_the_loader_reads_and_checks_wrong_answers_and_check_hints():
    text = lab_text("a") + ANSWER_STEP + WRONG + '    solution: {answer: "scheduler"}\n'
    text = text.replace(
        "        label: a=1\n",
        '        label: a=1\n        hint: {en: "Try kubectl label.", zh: "试试 kubectl label。"}\n',
    )
    lab = load_lab(text)
    assert lab.steps[0].checks[0].hint == Text("Try kubectl label.", "试试 kubectl label。")
    assert lab.steps[1].checks[0].params["wrong"] == ((("kubelet",), KUBELET),)
    broken = text.replace('answers: ["kubelet"]', 'answers: ["(kubelet"]').replace(
        'hint: {en: "The', 'hnt: {en: "The'
    )
    with pytest.raises(LabValidationError) as info:
        load_lab(broken)
    errors = [str(e) for e in info.value.errors]
    assert any("step 2 ('who'), check 1, wrong 1: unknown key 'hnt'" in e for e in errors), errors
    assert any("wrong 1" in e and "regular expression" in e for e in errors), errors


@pytest.mark.django_db(transaction=True)
def test_the_panel_shows_a_checks_hint_only_once_the_student_acted(teacher):
    text = lab_text("a").replace(
        "        label: a=1\n",
        '        label: a=1\n        hint: {en: "Label node1, not node2.", zh: "给 node1 打标签。"}\n',
    )
    teacher.post("/labs/manage/new", {"source": text})
    LabDefinition.objects.filter(slug="versions").update(published=True)
    teacher.post("/labs/manage/sessions/new", {"lab": "versions"})
    alice = join(ClassSession.objects.get(lab__slug="versions"), "Alice")
    state = alice.get("/lab/state").json()
    assert state["step"]["failures"] and "hint" not in state["step"]["failures"][0]  # did nothing yet
    progress = alice.student.progress.get(step_id="a")
    progress.attempts = 1
    progress.save()
    state = alice.get("/lab/state").json()
    assert state["step"]["failures"][0]["hint"] == {
        "en": "Label node1, not node2.",
        "zh": "给 node1 打标签。",
    }
    forget(alice.student.sandbox)


@pytest.mark.django_db(transaction=True)
def test_a_wrong_answer_in_a_bundled_lab_gets_its_hint(student_a):
    session = student_a.student.session
    session.lab = LabDefinition.objects.get(slug="nodename")
    session.save()
    student = student_a.student
    student.current_step = 1
    student.save()
    student.progress.all().delete()
    StepProgress.objects.create(student=student, step_id="no-scheduled-event", index=1)
    state = student_a.post(
        "/lab/answer", json.dumps({"answer": "yes"}), content_type="application/json"
    ).json()
    failure = next(f for f in state["step"]["failures"] if "hint" in f)
    assert "Reason column" in failure["hint"]["en"] and state["step"]["attempts"] == 1
    forget(student.sandbox)
