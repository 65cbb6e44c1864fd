"""The Job controller (batch/v1, v1.33): run pods to completion.

It keeps `min(parallelism, completions - succeeded)` pods active, counts the pods that succeeded
and failed, and finishes the Job: Complete once `completions` pods succeeded (with
SuccessCriteriaMet first, as v1.33 writes), Failed with BackoffLimitExceeded once more pods failed
than `backoffLimit` allows (for restartPolicy OnFailure, once the containers' restarts reach it),
after FailureTarget, deleting the pods still active. Pods are created through the Replication
Controller's batches, so they follow the same 13 steps.
"""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.client.informer import db
from cluster.controllers.pods import is_active
from cluster.controllers.replicaset import ReplicaSetController
from cluster.controllers.replication import ReplicationManager
from cluster.models import ApiObject

BACKOFF_MESSAGE = "Job has reached the specified backoff limit"
COMPLETE_MESSAGE = "Reached expected number of succeeded pods"


def _phase(pod: dict) -> str:
    return (pod.get("status") or {}).get("phase") or "Pending"


def finished(job: dict) -> bool:
    return any(
        c.get("type") in ("Complete", "Failed") and c.get("status") == "True"
        for c in (job.get("status") or {}).get("conditions") or []
    )


def wanted_active(job: dict, succeeded: int) -> int:
    """How many pods should run now: parallelism, capped by the completions still missing."""
    spec = job.get("spec") or {}
    parallelism = spec.get("parallelism", 1) or 0
    completions = spec.get("completions")
    if spec.get("suspend"):
        return 0
    if completions is None:  # a work queue: done once any pod succeeded
        return 0 if succeeded else parallelism
    return max(0, min(parallelism, completions - succeeded))


def restarts(pod: dict) -> int:
    return sum(c.get("restartCount", 0) for c in (pod.get("status") or {}).get("containerStatuses") or [])


def _condition(kind: str, reason: str, message: str) -> dict:
    now = now_rfc3339()
    return {
        "type": kind,
        "status": "True",
        "lastProbeTime": now,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }


class JobController(ReplicationManager):
    kind = "Job"
    title = "Job controller"
    event_component = "job-controller"

    selects = ReplicaSetController.selects  # a LabelSelector, as a ReplicaSet's

    def counts(self, job: dict) -> tuple[list[dict], int, int]:
        """(active pods, succeeded, failed) among the Job's pods."""
        pods = self.cm.owned_pods(job)
        active = [p for p in pods if is_active(p)]
        phases = [_phase(p) for p in pods]
        return active, phases.count("Succeeded"), phases.count("Failed")

    async def sync(self, job: dict, trace_id: str | None) -> None:
        if finished(job):
            return
        active, succeeded, failed = self.counts(job)
        spec = job.get("spec") or {}
        limit = spec.get("backoffLimit", 6)
        on_failure = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy") == "OnFailure"
        restarted = sum(restarts(p) for p in active)
        over_limit = failed > limit or (on_failure and (restarted > 0 if limit == 0 else restarted >= limit))
        completions = spec.get("completions")
        done = succeeded >= (completions if completions is not None else 1) and not (
            completions is None and active
        )
        if over_limit:
            await db(self._finish)(job, active, succeeded, failed, trace_id, failed_=True)
            return
        if done:
            await db(self._finish)(job, active, succeeded, failed, trace_id, failed_=False)
            return
        want = wanted_active(job, succeeded)
        meta = job["metadata"]
        steps = trace_id is not None and trace_id not in self.cm.stepped
        if steps:
            steps = await db(self.cm.needs_steps)(
                trace_id, self.kind, meta.get("namespace", ""), meta["name"]
            )
        if steps:
            await self._record_decision(job, trace_id, len(active), want)
        if want > len(active):
            await self._create_pods(job, trace_id, want - len(active))
        await db(self._write_status)(job, trace_id)

    def room(self, locked, owner: dict) -> int:
        pods = ApiObject.objects.filter(cluster_id=locked.pk, kind="Pod", owner_uid=owner["metadata"]["uid"])
        succeeded = pods.filter(phase="Succeeded").count()
        active = pods.exclude(phase__in=("Succeeded", "Failed")).count()
        return wanted_active(owner, succeeded) - active

    # -- database thread ---------------------------------------------------------------------
    def _status(self, job: dict) -> dict:
        active, succeeded, failed = self.counts(job)
        status = dict(job.get("status") or {})
        status.setdefault("startTime", now_rfc3339())
        status["active"] = len(active)
        status["ready"] = sum(1 for p in active if _phase(p) == "Running")
        status["terminating"] = 0
        status["uncountedTerminatedPods"] = {}
        for key, value in (("succeeded", succeeded), ("failed", failed)):
            if value:
                status[key] = value
            else:
                status.pop(key, None)
        if not status["active"]:
            status.pop("active")
        return status

    def _write_status(self, job: dict, trace_id: str | None, status: dict | None = None) -> None:
        status = status if status is not None else self._status(job)
        if status == job.get("status"):
            return
        self._store_status(job, status, trace_id)

    def _finish(
        self, job: dict, active: list[dict], succeeded: int, failed: int, trace_id, failed_: bool
    ) -> None:
        actor = self.cm.actor(trace_id, self.title)
        for pod in active if failed_ else ():
            meta = pod["metadata"]
            try:
                api.delete(self.cm.cluster, "Pod", meta.get("namespace"), meta["name"], actor)
            except ApiError:
                continue
            self.cm.forget_pod(pod)
            event_recorder.record(
                self.cm.cluster,
                job,
                "SuccessfulDelete",
                f"Deleted pod: {meta['name']}",
                actor,
                component=self.event_component,
            )
        status = self._status(job)
        conditions = list(status.get("conditions") or [])
        if failed_:
            conditions += [
                _condition("FailureTarget", "BackoffLimitExceeded", BACKOFF_MESSAGE),
                _condition("Failed", "BackoffLimitExceeded", BACKOFF_MESSAGE),
            ]
            status.pop("active", None)
            status["ready"] = 0
        else:
            conditions += [
                _condition("SuccessCriteriaMet", "CompletionsReached", COMPLETE_MESSAGE),
                _condition("Complete", "CompletionsReached", COMPLETE_MESSAGE),
            ]
            status["completionTime"] = now_rfc3339()
        status["conditions"] = conditions
        self._write_status(job, trace_id, status)
        if failed_:
            event_recorder.record(
                self.cm.cluster,
                job,
                "BackoffLimitExceeded",
                BACKOFF_MESSAGE,
                actor,
                type_="Warning",
                component=self.event_component,
            )
        else:
            event_recorder.record(
                self.cm.cluster, job, "Completed", "Job completed", actor, component=self.event_component
            )
