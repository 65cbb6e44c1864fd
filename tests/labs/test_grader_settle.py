"""The live grader judges an action once the sandbox settled (labs.grader): a wrong action becomes
one attempt after SETTLE_SECONDS without news, and nothing is counted before then."""

from __future__ import annotations

import asyncio
import time

import pytest

from cluster.apiserver import service as api
from labs import grader
from labs.models import StepProgress
from labs.selftest import forget, settle

pytestmark = pytest.mark.django_db(transaction=True)


def _row(student_id: int) -> tuple[int, bool]:
    row = StepProgress.objects.get(student_id=student_id, step_id="pending-pod")
    return row.attempts, row.unsettled


def _wrong(cluster) -> None:
    """A pod the step does not ask for: the student's action, and a wrong one."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "wrong", "labels": {"app": "x"}},
        "spec": {"containers": [{"name": "c", "image": "nginx:1.15"}]},
    }
    api.create(cluster, pod, api.Actor(client="kubectl"))


def test_a_wrong_action_is_one_attempt_once_the_sandbox_settled(student_a, nodeselector_lab, monkeypatch):
    monkeypatch.setattr(grader, "SETTLE_SECONDS", 1.0)
    student = student_a.student
    cluster = student.sandbox
    cluster.pace_ms = 0
    cluster.save(update_fields=["pace_ms"])
    settle(cluster)

    async def scenario() -> list[tuple[float, tuple[int, bool]]]:
        task = asyncio.get_running_loop().create_task(grader._run(student.pk, cluster.name))
        seen = []
        try:
            await asyncio.sleep(0.5)
            await asyncio.to_thread(_wrong, cluster)
            acted = time.monotonic()
            for _ in range(60):
                await asyncio.sleep(0.1)
                seen.append((time.monotonic() - acted, await asyncio.to_thread(_row, student.pk)))
                if seen[-1][1] == (1, False):
                    break
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            await asyncio.gather(*list(grader._stores), return_exceptions=True)
        return seen

    seen = asyncio.run(scenario())
    assert seen[-1][1] == (1, False), seen
    assert (0, True) in [state for _, state in seen]  # judged later, not at once
    assert seen[-1][0] >= 1.0  # not before the sandbox had been quiet for SETTLE_SECONDS
    forget(cluster)
