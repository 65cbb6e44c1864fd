"""Scheduling attempts: every cycle the scheduler ran for a pod, with the engine's full explanation."""

from __future__ import annotations

from django.db import models

from cluster.models import Cluster, FlowTrace
from scheduler.engine.compact import expand


class SchedulingAttempt(models.Model):
    SCHEDULED = "Scheduled"
    UNSCHEDULABLE = "Unschedulable"

    # Lookups by cluster use the (cluster, namespace, pod, -created_at) index.
    cluster = models.ForeignKey(
        Cluster, on_delete=models.CASCADE, related_name="scheduling_attempts", db_index=False
    )
    namespace = models.CharField(max_length=253)
    pod = models.CharField(max_length=253)
    pod_uid = models.CharField(max_length=36)
    attempt = models.PositiveIntegerField()  # 1 for the first cycle of this pod
    result = models.CharField(max_length=20)  # Scheduled / Unschedulable
    node = models.CharField(max_length=253, blank=True)
    message = models.TextField(blank=True)  # the FailedScheduling text, or "Successfully assigned …"
    revision = models.BigIntegerField()  # the cluster revision the scheduler's snapshot reflected
    nodes = models.PositiveIntegerField()  # how many nodes the cycle considered
    # scheduler.engine.compact form; to_json() expands it. NULL while it is being built
    # (scheduler/explanations.py: readers call explanations.ready() first).
    decision = models.JSONField(null=True)
    # Where the pod went after this attempt (queue, backoff, rejecting plugins, the events that
    # would retry it) and what had woken it for this attempt.
    queue = models.JSONField(default=dict, blank=True)
    trace = models.ForeignKey(FlowTrace, null=True, blank=True, on_delete=models.SET_NULL)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        indexes = [models.Index(fields=["cluster", "namespace", "pod", "-created_at"])]

    def to_json(self) -> dict:
        return {
            "id": self.pk,
            "namespace": self.namespace,
            "pod": self.pod,
            "podUID": self.pod_uid,
            "attempt": self.attempt,
            "result": self.result,
            "node": self.node,
            "message": self.message,
            "revision": self.revision,
            "nodes": self.nodes,
            "trace": self.trace_id,
            "createdAt": self.created_at.isoformat(),
            "queue": self.queue,
            "decision": None if self.decision is None else expand(self.decision),
        }
