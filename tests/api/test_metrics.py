"""`/metrics`: the requests a cluster's API server answered, in Prometheus' text format."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from cluster.api.metrics import BUCKETS, Registry, describe, exposition
from cluster.api.paths import resolve
from cluster.controlplane import runtime
from cluster.controlplane.demo import create_demo
from cluster.models import Cluster


def series(text: str, metric: str, **labels: str) -> float | None:
    """The value of the one series of `metric` whose labels include `labels`."""
    for line in text.splitlines():
        match = re.fullmatch(rf"{metric}\{{(.*)\}} (\S+)", line)
        if match and all(f'{k}="{v}"' in match[1].split(",") for k, v in labels.items()):
            return float(match[2])
    return None


def test_labels_name_the_verb_scope_and_resource_as_upstream():
    pods = resolve("", "v1", "namespaces/default/pods")
    pod = resolve("", "v1", "namespaces/default/pods/web/log")
    nodes = resolve("", "v1", "nodes")
    common = {"apply": False, "dry_run": False, "group": "", "version": "v1"}
    listed = describe("GET", pods, watch=False, **common)
    assert (listed.verb, listed.scope, listed.resource) == ("LIST", "namespace", "pods")
    assert describe("GET", pods, watch=True, **common).verb == "WATCH"
    logged = describe("GET", pod, watch=False, **common)
    assert (logged.verb, logged.scope, logged.subresource) == ("GET", "resource", "log")
    assert describe("GET", nodes, watch=False, **common).scope == "cluster"
    assert describe("DELETE", pods, watch=False, **common).verb == "DELETECOLLECTION"
    applied = describe("PATCH", pod, watch=False, **{**common, "apply": True, "dry_run": True})
    assert (applied.verb, applied.dry_run) == ("APPLY", "All")


def test_the_exposition_is_prometheus_text_with_upstreams_buckets():
    registry = Registry()
    pods = describe(
        "GET",
        resolve("", "v1", "namespaces/default/pods"),
        watch=False,
        apply=False,
        dry_run=False,
        group="",
        version="v1",
    )
    registry.observe("c", pods, 200, 0.03)
    registry.observe("c", pods, 200, 0.5)
    registry.observe("c", pods, 403, None)
    text = exposition("c", registry)
    assert "# TYPE apiserver_request_total counter\n" in text
    assert "# TYPE apiserver_request_duration_seconds histogram\n" in text
    assert series(text, "apiserver_request_total", code="200", verb="LIST", resource="pods") == 2
    assert series(text, "apiserver_request_total", code="403", verb="LIST") == 1
    bucket = "apiserver_request_duration_seconds_bucket"
    assert series(text, bucket, le="0.025") == 0 and series(text, bucket, le="0.05") == 1
    assert series(text, bucket, le="0.6") == 2 and series(text, bucket, le="+Inf") == 2
    assert series(text, "apiserver_request_duration_seconds_sum", verb="LIST") == pytest.approx(0.53)
    assert text.count(f"{bucket}{{") == len(BUCKETS) + 1
    from cluster.client import counters

    expected = 2 * (2 + len(counters.DEFINITIONS))  # HELP and TYPE lines only
    assert exposition("other", registry).count("\n") == expected


@pytest.mark.django_db(transaction=True)
def test_a_clusters_metrics_count_its_own_requests_only():
    demo = create_demo("demo", pace_ms=0)
    try:
        client = Client()
        before = (
            series(
                client.get("/clusters/demo/metrics").content.decode(),
                "apiserver_request_total",
                verb="LIST",
                resource="nodes",
                code="200",
            )
            or 0
        )
        for _ in range(3):
            assert client.get("/clusters/demo/api/v1/nodes").status_code == 200
        assert client.delete("/clusters/demo/api/v1/nodes/node1").status_code == 403
        client.get("/clusters/nosuch/api/v1/nodes")  # no such cluster: no series
        answer = client.get("/clusters/demo/metrics")
        assert answer["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
        text = answer.content.decode()
        assert (
            series(text, "apiserver_request_total", verb="LIST", resource="nodes", code="200") == before + 3
        )
        assert series(
            text, "apiserver_request_total", verb="DELETE", resource="nodes", scope="resource", code="403"
        )
        owner = User.objects.create_user("student-m")
        Cluster.objects.create(name="lab-metrics01", public=False, owner=owner)
        student = Client()
        student.force_login(owner)
        mine = student.get("/clusters/lab-metrics01/metrics").content.decode()
        assert series(mine, "apiserver_request_total", resource="nodes") is None
        assert Client().get("/clusters/lab-metrics01/metrics").status_code == 404
    finally:
        runtime.forget(demo.name)


def test_the_components_counters_follow_the_requests_with_upstreams_help():
    from cluster.client import counters

    labels = {"profile": "default-scheduler", "result": "scheduled"}
    counters.add("counted", counters.SCHEDULE_ATTEMPTS, labels)
    counters.add("counted", counters.SCHEDULE_ATTEMPTS, labels)
    counters.add("counted", counters.SCHEDULE_ATTEMPTS, {**labels, "result": "unschedulable"})
    text = exposition("counted", Registry())
    assert "# TYPE scheduler_schedule_attempts_total counter\n" in text
    assert "# HELP scheduler_schedule_attempts_total [STABLE] Number of attempts to schedule pods" in text
    assert series(text, "scheduler_schedule_attempts_total", result="scheduled") == 2
    assert series(text, "scheduler_schedule_attempts_total", result="unschedulable") == 1
    assert series(exposition("quiet", Registry()), "scheduler_schedule_attempts_total") is None


@pytest.mark.django_db(transaction=True)
def test_the_scheduler_counts_preemption_attempts_and_its_queues_pending_pods():
    from bench.hostile.bodies import valid
    from cluster.apiserver import service as api
    from tests.support.demo import KUBECTL, drive

    demo = create_demo("demo", pace_ms=0)
    try:
        drive()
        huge = valid("Pod", "huge")
        huge["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "64"}}
        api.create(demo, huge, KUBECTL)
        drive()
        text = exposition("demo", Registry())
        assert "# TYPE scheduler_preemption_attempts_total counter\n" in text
        assert re.search(r"^scheduler_preemption_attempts_total [1-9]\d*$", text, re.M)
        assert "# TYPE scheduler_pending_pods gauge\n" in text
        assert series(text, "scheduler_pending_pods", queue="unschedulable") == 1
        assert series(text, "scheduler_pending_pods", queue="active") == 0
        assert series(text, "scheduler_pending_pods", queue="gated") == 0
        api.delete(demo, "Pod", "default", "huge", KUBECTL, grace_period=0)
        drive()
        assert series(exposition("demo", Registry()), "scheduler_pending_pods", queue="unschedulable") == 0
    finally:
        runtime.forget(demo.name)


def test_histogram_bounds_print_as_upstreams_exponential_buckets():
    from cluster.client import counters

    counters.observe("hist", counters.QUEUE_WORK_DURATION, {"name": "job"}, 0.002)
    counters.observe("hist", counters.QUEUE_WORK_DURATION, {"name": "job"}, 30)
    text = exposition("hist", Registry())
    bounds = re.findall(
        r'^workqueue_work_duration_seconds_bucket\{name="job",le="([^"]+)"\} (\S+)$', text, re.M
    )
    assert bounds == [
        ("1e-08", "0"),
        ("1e-07", "0"),
        ("1e-06", "0"),
        ("9.999999999999999e-06", "0"),
        ("9.999999999999999e-05", "0"),
        ("0.001", "0"),
        ("0.01", "1"),
        ("0.1", "1"),
        ("1", "1"),
        ("10", "1"),
        ("+Inf", "2"),
    ]
    assert series(text, "workqueue_work_duration_seconds_count", name="job") == 2
    assert series(text, "workqueue_work_duration_seconds_sum", name="job") == pytest.approx(30.002)


def test_an_item_in_progress_shows_as_unfinished_work_until_it_finishes():
    from cluster.client import counters

    counters.start_work("busy", "deployment")
    text = exposition("busy", Registry())
    assert series(text, "workqueue_unfinished_work_seconds", name="deployment") > 0
    assert series(text, "workqueue_longest_running_processor_seconds", name="deployment") > 0
    assert counters.finish_work("busy", "deployment") > 0
    assert series(exposition("busy", Registry()), "workqueue_unfinished_work_seconds") is None


@pytest.mark.django_db(transaction=True)
def test_the_controller_managers_workqueues_count_what_they_queue_and_sync():
    from bench.hostile.bodies import valid
    from cluster.apiserver import service as api
    from tests.support.demo import KUBECTL, drive

    demo = create_demo("demo", pace_ms=0)
    try:
        drive()
        before = exposition("demo", Registry())
        added = series(before, "workqueue_adds_total", name="replicationmanager")
        worked = series(before, "workqueue_work_duration_seconds_count", name="replicationmanager") or 0
        rc = valid("ReplicationController", "web")
        rc["spec"]["replicas"] = 3
        api.create(demo, rc, KUBECTL)
        drive()
        text = exposition("demo", Registry())
        assert "# TYPE workqueue_adds_total counter\n" in text
        assert "# HELP workqueue_depth [ALPHA] Current depth of workqueue\n" in text
        assert series(text, "workqueue_adds_total", name="replicationmanager") > added
        assert series(text, "workqueue_work_duration_seconds_count", name="replicationmanager") > worked
        queued = series(text, "workqueue_queue_duration_seconds_count", name="replicationmanager")
        assert queued == series(text, "workqueue_work_duration_seconds_count", name="replicationmanager")
        assert series(text, "workqueue_depth", name="replicationmanager") == 0
        # Every controller's queue has its series from the start, as upstream registers them
        # (counted per cluster name in this process: earlier tests' "demo" may have added to it).
        for queue in ("replicaset", "deployment", "daemonset", "statefulset", "job", "cronjob"):
            assert series(text, "workqueue_adds_total", name=queue) is not None, queue
        assert series(text, "workqueue_retries_total", name="replicationmanager") == 0
    finally:
        runtime.forget(demo.name)
