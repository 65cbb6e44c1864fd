"""The cluster's remembered past stays within its bounds (cluster/retention.py), and what can
still be written to, or is still shown, is never pruned."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bench.hostile.bodies import valid
from cluster import retention
from cluster.apiserver import service as api
from cluster.controllers.garbage_collector import GarbageCollector
from cluster.flow.recorder import StepSpec, record_steps
from cluster.models import ApiObject, ExecSession, FlowStep, FlowTrace, Termination
from scheduler.models import SchedulingAttempt
from tests.support.demo import KUBECTL

pytestmark = pytest.mark.django_db(transaction=True)

LONG_AGO = timedelta(hours=1)


def old_traces(cluster, count: int, finished: bool = True, prefix: str = "old") -> list[str]:
    made = []
    for i in range(count):
        trace = FlowTrace.objects.create(
            id=f"{prefix}{'f' if finished else 'r'}{i:05d}",
            cluster=cluster,
            kind="Pod",
            name=f"p{i}",
            verb="create",
        )
        FlowStep.objects.create(
            trace=trace,
            seq=1,
            step=1,
            actor="kubectl",
            source="kubectl",
            target="apiserver",
            title_en="t",
            title_zh="t",
            detail_en="",
            detail_zh="",
        )
        made.append(trace.pk)
    then = timezone.now() - LONG_AGO
    FlowTrace.objects.filter(pk__in=made).update(created_at=then, finished_at=then if finished else None)
    return made


def test_old_finished_traces_go_with_their_steps_the_newest_and_running_and_named_stay(demo, settings):
    settings.KUBESIM_FLOW_TRACES_KEEP = 10
    finished = old_traces(demo, 30)
    running = old_traces(demo, 3, finished=False)
    pod = api.create(demo, valid("Pod", "kept"), KUBECTL)
    named = ApiObject.objects.get(cluster=demo, uid=pod["metadata"]["uid"])
    named.trace_id = finished[0]
    named.save(update_fields=["trace"])
    newest = list(
        FlowTrace.objects.filter(cluster=demo)
        .order_by("-created_at", "-pk")
        .values_list("pk", flat=True)[:10]
    )

    assert retention.prune(demo)["traces"] > 0

    left = set(FlowTrace.objects.filter(cluster=demo).values_list("pk", flat=True))
    assert set(running) <= left, "a running trace is still written to"
    assert finished[0] in left, "a live object names it: its controller writes its steps later"
    assert set(newest) <= left
    assert len(left) <= 10 + len(running) + 1
    assert set(FlowStep.objects.filter(trace__cluster=demo).values_list("trace_id", flat=True)) <= left
    assert FlowStep.objects.filter(trace_id__in=finished[1:]).exclude(trace_id__in=left).count() == 0


def test_a_recently_finished_trace_stays_for_its_grace(demo, settings):
    settings.KUBESIM_FLOW_TRACES_KEEP = 1
    made = old_traces(demo, 5)
    FlowTrace.objects.filter(pk__in=made).update(finished_at=timezone.now())
    retention.prune(demo)
    assert FlowTrace.objects.filter(pk__in=made).count() == 5


def test_each_pod_keeps_its_newest_scheduling_attempt(demo, settings):
    settings.KUBESIM_SCHEDULING_ATTEMPTS_KEEP = 5
    for pod in ("a", "b", "c"):
        for attempt in range(1, 8):
            SchedulingAttempt.objects.create(
                cluster=demo,
                namespace="default",
                pod=pod,
                attempt=attempt,
                result="Unschedulable",
                revision=1,
                nodes=3,
            )
    retention.prune(demo)
    left = SchedulingAttempt.objects.filter(cluster=demo)
    assert left.count() <= 5 + 3
    for pod in ("a", "b", "c"):
        assert left.filter(pod=pod).order_by("-attempt").first().attempt == 7


def test_closed_exec_sessions_are_bounded_open_ones_stay(demo, settings):
    settings.KUBESIM_EXEC_SESSIONS_KEEP = 4
    for seq in range(1, 21):
        ExecSession.objects.create(
            cluster=demo,
            seq=seq,
            namespace="default",
            pod="p",
            container="c",
            user="u",
            client="kubectl",
            closed_at=None if seq <= 2 else timezone.now(),
        )
    retention.prune(demo)
    left = ExecSession.objects.filter(cluster=demo)
    assert left.filter(closed_at__isnull=True).count() == 2
    assert sorted(left.filter(closed_at__isnull=False).values_list("seq", flat=True)) == [17, 18, 19, 20]


def test_a_deletion_mark_whose_object_is_gone_is_removed(demo):
    pod = api.create(demo, valid("Pod", "marked"), KUBECTL)
    Termination.objects.create(cluster=demo, uid=pod["metadata"]["uid"], client="kubectl")
    Termination.objects.create(cluster=demo, uid="00000000-0000-0000-0000-00000000dead", client="kubectl")
    assert retention.prune(demo)["terminations"] == 1
    assert list(Termination.objects.values_list("uid", flat=True)) == [pod["metadata"]["uid"]]


def test_the_garbage_collectors_sweep_prunes_at_most_every_so_often(demo, settings):
    settings.KUBESIM_FLOW_TRACES_KEEP = 2
    old_traces(demo, 10)
    collector = GarbageCollector(demo.name)
    api.create(demo, valid("Pod", "nudge"), KUBECTL)  # something new for the sweep to look at
    collector.sweep()
    assert FlowTrace.objects.filter(cluster=demo, pk__startswith="old").count() <= 2
    old_traces(demo, 10, prefix="more")
    api.create(demo, valid("Pod", "nudge2"), KUBECTL)
    collector.sweep()  # within PRUNE_SECONDS of the last: not pruned again yet
    assert FlowTrace.objects.filter(cluster=demo, pk__startswith="more").count() == 10
    collector.pruner.pruned_at -= retention.PRUNE_SECONDS
    api.create(demo, valid("Pod", "nudge3"), KUBECTL)
    collector.sweep()
    assert FlowTrace.objects.filter(cluster=demo, pk__startswith="more").count() < 10


def test_a_late_step_for_a_pruned_trace_is_dropped_not_an_error(demo):
    assert record_steps("prunedtrace00001", [StepSpec(12, "late", "迟到")]) == []
