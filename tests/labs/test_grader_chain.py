"""The grader checks a student's next change while the last outcome's store still waits for the
database's writer: it works from that outcome, and the two are stored in order (labs.grader)."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.layers import get_channel_layer

from labs import grader
from labs.models import StepProgress, Student
from labs.progress import student_group
from labs.selftest import apply_solution, forget, settle

pytestmark = pytest.mark.django_db(transaction=True)


def _solve(cluster, step) -> None:
    assert apply_solution(cluster, step.solution) == []
    settle(cluster)


def test_the_next_check_does_not_wait_for_the_last_store_and_both_are_stored_in_order(
    student_a, nodeselector_lab
):
    student = student_a.student
    cluster = student.sandbox
    settle(cluster)
    steps = nodeselector_lab.steps

    async def scenario() -> tuple[list[dict], list[int]]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(student_group(student.pk), channel)
        chain = grader._Chain()
        # The store thread busy: the stores queue as they do behind a class's writes.
        busy = threading.Event()
        held = [grader.STORE_LANE.submit(busy.wait, 30)]
        told, stored = [], []
        try:
            for step in steps[:2]:
                await asyncio.to_thread(_solve, cluster, step)
                await grader._check_once(student.pk, True, chain)
                told.append((await asyncio.wait_for(layer.receive(channel), 10))["state"])
                stored.append(await asyncio.to_thread(_stored_step, student.pk))
            assert not chain.last.done()
        finally:
            busy.set()
        for future in held:
            await asyncio.wrap_future(future)
        await chain.last
        return told, stored

    told, stored = asyncio.run(scenario())
    assert [state["current"] for state in told] == [1, 2]
    assert stored == [0, 0]  # each result was told before anything was stored
    student.refresh_from_db()
    assert student.current_step == 2
    rows = {row.step_id: row for row in StepProgress.objects.filter(student=student)}
    assert rows["pending-pod"].passed_at is not None
    assert rows["label-node"].passed_at is not None and rows["label-node"].attempts == 0
    forget(cluster)


def _stored_step(student_id: int) -> int:
    return Student.objects.values_list("current_step", flat=True).get(pk=student_id)
