"""The self-test of a lab: each step's checks fail before its solution and pass after it.

A fresh private cluster is built from the lab's starting state; the embedded control plane runs
in-process until it is idle (the control plane's deterministic driver) after the setup and after
each solution, so the result does not depend on timing. Errors carry the same locations as the loader's.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass, field

from asgiref.sync import async_to_sync

from cluster.apiserver import service as api
from cluster.controlplane.runtime import forget as drop
from cluster.controlplane.runtime import run_until_idle
from cluster.models import Cluster
from dashboard.console import run_command
from labs.checks import run_step
from labs.labmodel import Lab, Solution
from labs.sandbox import build
from labs.schema import LabError

SOLVER = api.Actor(client="api", detail="checklab")
MAX_BACKOFF_WAITS = 4
SETTLE_SECONDS = 60.0


@dataclass(slots=True)
class SelfTestReport:
    lab: str
    steps_passed: int = 0
    errors: list[LabError] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors


async def _settle(cluster_name: str) -> None:
    plane = await run_until_idle(cluster_name)
    # A pod that a change could help waits out its backoff (1 s, doubling) before the scheduler
    # retries it, as kube-scheduler's backoff queue does: wait for it, then settle again.
    for _ in range(MAX_BACKOFF_WAITS):
        # ... and a pod being deleted gracefully until its kubelet has stopped and removed it.
        waits = [
            w for w in (plane.scheduler.next_wakeup(), plane.kubelets.termination_wakeup()) if w is not None
        ]
        if not waits:
            return
        wakeup = min(waits)
        await asyncio.sleep(wakeup + 0.01)
        await plane.run_until_idle()


class NotSettled(RuntimeError):
    pass


async def _settle_within(cluster_name: str, seconds: float) -> None:
    try:
        await asyncio.wait_for(_settle(cluster_name), seconds)
    except TimeoutError:
        raise NotSettled(f"the control plane did not become idle within {seconds:g} s") from None


def settle(cluster: Cluster, seconds: float = SETTLE_SECONDS) -> None:
    """Run the controller manager, scheduler and kubelets until nothing changes any more."""
    async_to_sync(_settle_within)(cluster.name, seconds)


def forget(cluster: Cluster) -> None:
    drop(cluster.name)


def apply_solution(cluster: Cluster, solution: Solution) -> list[str]:
    """Run the solution's console commands, then apply its manifests; the problems, if any."""
    problems = []
    for command in solution.commands:
        result = run_command(cluster, command)
        if result.exit_code != 0:
            problems.append(f"command {command!r} failed: {result.output.strip()}")
        settle(cluster)  # as kubectl waits for a deletion, the next command sees it done
    if solution.apply.strip():
        try:
            api.apply_manifests(cluster, solution.apply, SOLVER)
        except api.ApiError as exc:
            problems.append(f"apply failed: {exc.message}")
    return problems


def _step_where(lab: Lab, index: int) -> str:
    return f"lab '{lab.id}', step {index + 1} ('{lab.steps[index].id}')"


def self_test(lab: Lab) -> SelfTestReport:
    """Apply the lab's solutions step by step to a fresh cluster and check every step both ways."""
    report = SelfTestReport(lab.id)
    name = f"checklab-{lab.id[:40]}-{secrets.token_hex(3)}"
    cluster = Cluster.objects.create(name=name, public=False, pace_ms=0)
    try:
        try:
            build(cluster, lab)
        except api.ApiError as exc:
            report.errors.append(LabError(f"lab '{lab.id}', cluster, manifests", exc.message))
            return report
        _run_steps(lab, cluster, report)
    except NotSettled as exc:
        report.errors.append(LabError(f"lab '{lab.id}'", str(exc)))
    finally:
        forget(cluster)
        cluster.delete()
    return report


def _run_steps(lab: Lab, cluster: Cluster, report: SelfTestReport) -> None:
    settle(cluster)
    for index, step in enumerate(lab.steps):
        where = _step_where(lab, index)
        if all(result.passed for result in run_step(cluster, step)):
            problem = "its checks already pass before its solution"
            report.errors.append(LabError(where, problem, step.line))
        for problem in apply_solution(cluster, step.solution):
            report.errors.append(LabError(f"{where}, solution", problem, step.line))
        settle(cluster)
        results = run_step(cluster, step, step.solution.answer)
        for check, result in zip(step.checks, results, strict=True):
            if not result.passed:
                text = f"still fails after the solution: {result.message.en} Found: {result.found.en}"
                report.errors.append(LabError(check.where, text, check.line))
        if all(result.passed for result in results):
            report.steps_passed += 1
