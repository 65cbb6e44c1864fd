"""The broadcast hub's plain read of new steps gives what the ORM's .values() gives."""

from __future__ import annotations

import pytest
from django.db.models import F

from cluster.flow import steprows
from cluster.flow.recorder import StepSpec, record_steps, start_trace
from cluster.flow.steprows import STEP_COLUMNS
from cluster.models import Cluster, FlowStep

pytestmark = pytest.mark.django_db


def _orm(cluster: Cluster, after: int) -> list[dict]:
    """The steps and their trace's verb, client and causes (TRACE_COLUMNS)."""
    steps = FlowStep.objects.filter(trace__cluster=cluster, pk__gt=after).order_by("pk")
    found = steps.values("id", *STEP_COLUMNS, trace_verb=F("trace__verb"), trace_client=F("trace__client"))
    return [
        {**step, "trace_causes": causes}
        for step, causes in zip(found, steps.values_list("trace__causes", flat=True), strict=True)
    ]


def test_new_steps_read_as_the_orm_reads_them_and_only_the_clusters_own():
    cluster, other = Cluster.objects.create(name="since"), Cluster.objects.create(name="other")
    trace = start_trace(cluster, "Pod", "default", "web", "create", "kubectl", causes="abc def")
    elsewhere = start_trace(other, "Pod", "default", "web", "create", "kubectl")
    record_steps(trace.pk, [StepSpec(1, 'é "quoted"', "调度器", skipped=True), StepSpec(2, "b", "c")])
    record_steps(elsewhere.pk, [StepSpec(1, "x", "y")])
    record_steps(trace.pk, [StepSpec(3, "d", "e", node="n1", revision=7)])
    everything = steprows.since(cluster.pk, 0)
    assert everything == _orm(cluster, 0)
    assert [step["step"] for step in everything] == [1, 2, 3]
    assert everything[0]["skipped"] is True and everything[1]["final"] is False
    assert everything[0]["created_at"].utcoffset().total_seconds() == 0
    assert steprows.since(cluster.pk, everything[1]["id"]) == _orm(cluster, everything[1]["id"])
