"""A student's progress: checks run on sandbox changes, attempts, hints, answers, reset."""

from __future__ import annotations

import re

import pytest

from cluster.apiserver import service as api
from labs import sandbox
from labs.progress import evaluate, evaluate_watching
from labs.selftest import apply_solution, forget, settle
from labs.state import board_state, student_state

pytestmark = pytest.mark.django_db(transaction=True)


def test_joining_builds_a_private_sandbox_from_the_starting_state(student_a):
    student = student_a.student
    cluster = student.sandbox
    assert not cluster.public and cluster.owner_id == student.user_id
    names = [node["metadata"]["name"] for node in api.list_objects(cluster, "Node")[0]]
    assert names == ["master", "node1", "node2"]
    forget(cluster)


def test_a_step_passes_when_its_solution_is_applied_and_the_next_one_starts(student_a, nodeselector_lab):
    student = student_a.student
    settle(student.sandbox)
    evaluate(student)
    state = student_state(student)
    assert state["current"] == 0 and state["step"]["failures"]
    assert state["step"]["failures"][0]["message"]["en"].startswith("Pod pod-example-zz should be Pending")
    apply_solution(student.sandbox, nodeselector_lab.steps[0].solution)
    settle(student.sandbox)
    evaluate(student)
    student.refresh_from_db()
    assert student.current_step == 1
    assert student.progress.get(step_id="pending-pod").passed_at is not None
    assert student_state(student)["step"]["id"] == "label-node"
    forget(student.sandbox)


def test_attempts_count_student_actions_not_component_writes(student_a, nodeselector_lab):
    student = student_a.student
    cluster = student.sandbox
    settle(cluster)
    evaluate(student)
    progress = student.progress.get(step_id="pending-pod")
    assert progress.attempts == 0
    api.create(
        cluster,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "wrong"},
            "spec": {"containers": [{"name": "c", "image": "nginx:1.15"}]},
        },
        api.Actor(client="kubectl"),
    )
    settle(cluster)  # the scheduler and kubelet write too; that is still one attempt
    evaluate(student)
    progress.refresh_from_db()
    assert (progress.attempts, progress.unsettled) == (0, True)  # judged once the sandbox settles
    evaluate(student, settled=True)
    progress.refresh_from_db()
    assert (progress.attempts, progress.unsettled) == (1, False)
    evaluate(student, settled=True)
    evaluate(student)
    progress.refresh_from_db()
    assert progress.attempts == 1  # same revision, same action: nothing re-counted
    forget(cluster)


def test_a_correct_action_judged_before_the_sandbox_settled_never_counts(student_a, nodeselector_lab):
    student = student_a.student
    cluster = student.sandbox
    settle(cluster)
    evaluate(student)
    apply_solution(cluster, nodeselector_lab.steps[0].solution)
    evaluate(student)  # the scheduler has not tried the pod yet: the step still fails
    first = student.progress.get(step_id="pending-pod")
    assert (first.attempts, first.unsettled, first.passed_at) == (0, True, None)
    settle(cluster)
    evaluate(student)
    first.refresh_from_db()
    assert first.passed_at is not None and first.attempts == 0 and not first.unsettled
    # The action that passed step 1 is no attempt at step 2, however long the class waits.
    evaluate(student, settled=True)
    second = student.progress.get(step_id="label-node")
    assert (second.attempts, second.unsettled, second.passed_at) == (0, False, None)
    forget(cluster)


def test_hints_answers_solution_and_reset_through_the_student_endpoints(student_a, nodeselector_lab):
    student = student_a.student
    state = student_a.get("/lab/state").json()
    assert state["step"]["solution"] is None and state["step"]["solution_after"] == 3
    assert student_a.post("/lab/hint", "{}", content_type="application/json").json()["step"]["hints"] == []
    progress = student.progress.get(step_id="pending-pod")
    progress.attempts = 3
    progress.save()
    state = student_a.get("/lab/state").json()
    assert "pod-example-zz" in state["step"]["solution"]["apply"]
    sandbox.reset(student, nodeselector_lab)
    student.refresh_from_db()
    assert student.current_step == 0 and student.progress.get().attempts == 0
    names = [node["metadata"]["name"] for node in api.list_objects(student.sandbox, "Node")[0]]
    assert names == ["master", "node1", "node2"]
    forget(student.sandbox)


def test_board_shows_each_student_and_a_histogram(session, student_a, student_b):
    board = board_state(session)
    assert [row["name"] for row in board["students"]] == ["Alice", "Bob"]
    assert board["histogram"][0] == 2 and sum(board["histogram"]) == 2
    forget(student_a.student.sandbox)
    forget(student_b.student.sandbox)


def test_the_student_page_is_the_sandbox_dashboard_with_the_lab_panel(student_a):
    response = student_a.get("/lab/")
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="lab-panel"' in html and student_a.student.sandbox.name in html
    assert re.search(r"labs/panel(\.[0-9a-f]{12})?\.js", html)  # hashed once static files are collected
    forget(student_a.student.sandbox)


def test_a_visitor_without_a_class_is_sent_to_join(outsider):
    assert outsider.get("/lab/").url == "/join/"
    assert "课堂代码" in outsider.get("/join/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()


def test_an_evaluation_names_the_kinds_whose_writes_can_change_the_current_step(student_a, nodeselector_lab):
    student = student_a.student
    settle(student.sandbox)
    # pending-pod reads the scheduler's attempts (schedulingFailure): any change may matter.
    assert evaluate_watching(student)[1] is None
    apply_solution(student.sandbox, nodeselector_lab.steps[0].solution)
    settle(student.sandbox)
    changed, watched = evaluate_watching(student)
    assert changed and student_state(student)["step"]["id"] == "label-node"
    # label-node checks a node's label and where the pod runs: Node and Pod writes only.
    assert watched == frozenset({"Node", "Pod"})
    forget(student.sandbox)
