"""CronJobs: upstream's utils_test.go tables (mostRecentScheduleTime, nextScheduleTimeDuration),
then the controller on the demo cluster, on the simulated clock: a run at each scheduled time,
suspend, concurrencyPolicy, startingDeadlineSeconds, history limits, and the teacher's jump."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from cluster.apiserver import service as api
from cluster.controllers import cronjob
from cluster.controllers.cronjob import (
    FEW_MISSED,
    MANY_MISSED,
    NEXT_SCHEDULE_DELTA,
    NONE_MISSED,
    InvalidSchedule,
    most_recent_schedule_time,
    next_schedule_time_duration,
)
from cluster.controlplane import simtime
from cluster.models import Cluster, FlowTrace
from k8s import clock, cron
from tests.support.demo import KUBECTL, drive

TOP = datetime(2016, 5, 19, 10, 0, tzinfo=UTC)  # topOfTheHour()


def after(delta: timedelta) -> datetime:
    return TOP + delta


def stamp(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def cj(
    schedule: str, created: datetime = TOP, last: datetime | None = None, deadline: int | None = None
) -> dict:
    spec = {"schedule": schedule}
    if deadline is not None:
        spec["startingDeadlineSeconds"] = deadline
    status = {"lastScheduleTime": stamp(last)} if last else {}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "mycronjob", "creationTimestamp": stamp(created)},
        "spec": spec,
        "status": status,
    }


M = timedelta(minutes=1)
H = timedelta(hours=1)


MOST_RECENT = [
        (
            "now before next schedule",
            cj("0 * * * *"),
            False,
            after(timedelta(seconds=30)),
            TOP,
            None,
            NONE_MISSED,
        ),
        (
            "now just after next schedule",
            cj("0 * * * *"),
            False,
            after(61 * M),
            TOP,
            after(60 * M),
            NONE_MISSED,
        ),
        (
            "missed 5 schedules",
            cj("0 * * * *", created=after(timedelta(seconds=10))),
            False,
            after(301 * M),
            after(timedelta(seconds=10)),
            after(300 * M),
            FEW_MISSED,
        ),
        (
            "complex schedule",
            cj("30 6-16/4 * * 1-5", last=after(30 * M)),
            False,
            after(24 * H + 31 * M),
            after(30 * M),
            after(24 * H + 30 * M),
            FEW_MISSED,
        ),
        (
            "another complex schedule",
            cj("30 10,11,12 * * 1-5", last=after(30 * M)),
            False,
            after(30 * H + 30 * M),
            after(30 * M),
            None,
            FEW_MISSED,
        ),
        (
            "complex schedule with longer diff between executions",
            cj("30 6-16/4 * * 1-5", last=after(30 * M)),
            False,
            after(96 * H + 31 * M),
            after(30 * M),
            after(96 * H + 30 * M),
            FEW_MISSED,
        ),
        (
            "complex schedule with shorter diff between executions",
            cj("30 6-16/4 * * 1-5"),
            False,
            after(24 * H + 31 * M),
            TOP,
            after(24 * H + 30 * M),
            FEW_MISSED,
        ),
        (
            "@every schedule",
            cj("@every 1h", created=after(-59 * M), last=after(M), deadline=10),
            False,
            after(7 * 24 * H),
            after(M),
            after(6 * 24 * H + 23 * H + M),
            MANY_MISSED,
        ),
        (
            "earliestTime being CreationTimestamp and LastScheduleTime",
            cj("0 * * * *", last=TOP),
            False,
            after(timedelta(seconds=30)),
            TOP,
            None,
            NONE_MISSED,
        ),
        (
            "earliestTime being LastScheduleTime",
            cj("*/5 * * * *", last=after(30 * M)),
            False,
            after(31 * M),
            after(30 * M),
            None,
            NONE_MISSED,
        ),
        (
            "earliestTime being LastScheduleTime (within StartingDeadlineSeconds)",
            cj("*/5 * * * *", last=after(30 * M), deadline=60),
            True,
            after(31 * M),
            after(30 * M),
            None,
            NONE_MISSED,
        ),
        (
            "earliestTime being LastScheduleTime (outside StartingDeadlineSeconds)",
            cj("*/5 * * * *", last=after(30 * M), deadline=60),
            True,
            after(32 * M),
            after(31 * M),
            None,
            NONE_MISSED,
        ),
    ]  # fmt: skip


@pytest.mark.parametrize(("name", "job", "include", "now", "earliest", "recent", "missed"), MOST_RECENT)
def test_most_recent_schedule_time(name, job, include, now, earliest, recent, missed):
    schedule = cron.parse_standard(job["spec"]["schedule"])
    assert most_recent_schedule_time(job, now, schedule, include) == (earliest, recent, missed)


def test_a_rogue_cron_job_is_an_invalid_schedule():
    job = cj("59 23 31 2 *", created=after(timedelta(seconds=10)))
    with pytest.raises(InvalidSchedule, match="time difference between two schedules is less than 1 second"):
        most_recent_schedule_time(job, after(H), cron.parse_standard("59 23 31 2 *"), False)


DURATIONS = [
        (
            "complex schedule skipping weekend",
            cj("30 6-16/4 * * 1-5", last=after(30 * M)),
            after(24 * H + 31 * M),
            3 * H + 59 * M,
        ),
        (
            "another complex schedule skipping weekend",
            cj("30 10,11,12 * * 1-5", last=after(30 * M)),
            after(30 * H + 30 * M),
            66 * H,
        ),
        (
            "once a week cronjob, missed two runs",
            cj("0 12 * * 4", last=after(2 * H)),
            after(19 * 24 * H + H + 30 * M),
            48 * H + 30 * M,
        ),
        ("no previous run of a cronjob", cj("0 12 * * 5"), after(6 * H), 20 * H),
    ]  # fmt: skip


@pytest.mark.parametrize(("name", "job", "now", "expected"), DURATIONS)
def test_next_schedule_time_duration(name, job, now, expected):
    schedule = cron.parse_standard(job["spec"]["schedule"])
    assert next_schedule_time_duration(job, now, schedule) == expected + NEXT_SCHEDULE_DELTA


def test_a_jobs_name_is_its_scheduled_minute_and_it_carries_the_scheduled_time_in_the_time_zone():
    job = cj("0 * * * *")
    job["metadata"].update(uid="u1", namespace="default")
    job["spec"]["timeZone"] = "Asia/Kolkata"
    job["spec"]["jobTemplate"] = {"metadata": {"labels": {"a": "b"}}, "spec": {"template": {"spec": {}}}}
    made = cronjob.job_from_template(job, TOP)
    assert made["metadata"]["name"] == f"mycronjob-{int(TOP.timestamp()) // 60}"
    assert made["metadata"]["annotations"] == {cronjob.SCHEDULED_TIMESTAMP: "2016-05-19T15:30:00+05:30"}
    assert made["metadata"]["labels"] == {"a": "b"}
    assert made["metadata"]["ownerReferences"][0]["kind"] == "CronJob"


# -- on the demo cluster ---------------------------------------------------------------------------
START = datetime(2026, 3, 2, 9, 0, 30, tzinfo=UTC)  # a Monday, half a minute past nine
live = pytest.mark.django_db(transaction=True)


@pytest.fixture
def at_start(fake_clock):
    fake_clock._now = START
    return fake_clock


def hello(schedule: str = "*/1 * * * *", command: tuple[str, ...] = ("echo", "hi"), **spec) -> dict:
    container = {"name": "hello", "image": "busybox:1.36", "command": list(command)}
    return {
        "apiVersion": "batch/v1",
        "kind": "CronJob",
        "metadata": {"name": "hello"},
        "spec": {
            "schedule": schedule,
            "jobTemplate": {
                "spec": {"template": {"spec": {"containers": [container], "restartPolicy": "Never"}}}
            },
            **spec,
        },
    }


def jobs(cluster) -> list[dict]:
    items, _ = api.list_objects(cluster, "Job", "default")
    return sorted(items, key=lambda j: j["metadata"]["name"])


def events(cluster) -> list[tuple[str, str]]:
    items, _ = api.list_objects(cluster, "Event", "default")
    ordered = sorted(items, key=lambda e: int(e["metadata"]["resourceVersion"]))
    return [(e["reason"], e["message"]) for e in ordered if e["involvedObject"]["kind"] == "CronJob"]


@live
def test_a_cron_job_runs_a_job_at_each_scheduled_minute(demo, at_start):
    drive()
    api.create(demo, hello(), KUBECTL)
    drive()
    assert jobs(demo) == []  # 09:00:30: the first run is at 09:01:00
    at_start.advance(31)
    drive()
    (first,) = jobs(demo)
    scheduled = datetime(2026, 3, 2, 9, 1, tzinfo=UTC)
    assert first["metadata"]["name"] == f"hello-{int(scheduled.timestamp()) // 60}"
    assert first["metadata"]["annotations"][cronjob.SCHEDULED_TIMESTAMP] == "2026-03-02T09:01:00Z"
    status = api.get(demo, "CronJob", "default", "hello")["status"]
    assert status["lastScheduleTime"] == "2026-03-02T09:01:00Z"
    at_start.advance(2)
    drive()
    assert jobs(demo)[0]["status"].get("succeeded") == 1  # echo: done at once
    status = api.get(demo, "CronJob", "default", "hello")["status"]
    assert "active" not in status and status["lastSuccessfulTime"]
    assert ("SuccessfulCreate", f"Created job {first['metadata']['name']}") in events(demo)
    assert (
        "SawCompletedJob",
        f"Saw completed job: {first['metadata']['name']}, condition: Complete",
    ) in events(demo)
    at_start.advance(60)
    drive()
    assert len(jobs(demo)) == 2
    trace = FlowTrace.objects.get(kind="Job", name=jobs(demo)[1]["metadata"]["name"])
    assert trace.client == "CronJob controller"
    assert sorted({s.step for s in trace.steps.all()}) == list(range(14))


@live
def test_history_limits_keep_the_newest_finished_jobs(demo, at_start):
    drive()
    api.create(demo, hello(successfulJobsHistoryLimit=2), KUBECTL)
    at_start.advance(1)
    for _ in range(5):
        at_start.advance(30)
        drive()
        at_start.advance(30)
        drive()
    names = [j["metadata"]["name"] for j in jobs(demo)]
    assert len(names) == 2
    assert [reason for reason, _ in events(demo)].count("SuccessfulDelete") >= 2


@live
def test_suspend_and_forbid_and_replace(demo, at_start):
    drive()
    api.create(demo, hello(command=("sleep", "3600"), concurrencyPolicy="Forbid"), KUBECTL)
    at_start.advance(31)
    drive()
    at_start.advance(60)
    drive()
    assert len(jobs(demo)) == 1  # the first still sleeps: Forbid skips the second
    assert (
        "JobAlreadyActive",
        "Not starting job because prior execution is running and concurrency policy is Forbid",
    ) in events(demo)
    patch = {"spec": {"concurrencyPolicy": "Replace"}}
    api.patch(demo, "CronJob", "default", "hello", patch, "application/merge-patch+json", KUBECTL)
    at_start.advance(60)
    drive()
    remaining = [j for j in jobs(demo) if not j["metadata"].get("deletionTimestamp")]
    assert len(remaining) == 1 and remaining[0]["metadata"]["name"].endswith(
        str(int(at_start.now().timestamp()) // 60)
    )
    api.patch(
        demo,
        "CronJob",
        "default",
        "hello",
        {"spec": {"suspend": True}},
        "application/merge-patch+json",
        KUBECTL,
    )
    before = len(jobs(demo))
    at_start.advance(180)
    drive()
    assert len(jobs(demo)) == before


@live
def test_a_start_later_than_the_deadline_is_not_made_up_for(demo, at_start):
    """The controller got to 10:00 only at 10:00:20 (a parked cluster, a busy one): with a 10 s
    deadline that run is skipped (upstream looks for unmet times within the deadline only); the
    11:00 run is on time."""
    drive()
    api.create(demo, hello(schedule="0 * * * *", startingDeadlineSeconds=10), KUBECTL)
    at_start.advance(59 * 60 + 30 + 20)
    drive()
    assert jobs(demo) == []
    at_start.advance(3600 - 19)  # 11:00:01
    drive()
    assert len(jobs(demo)) == 1


@live
def test_the_teachers_jump_moves_only_this_clusters_clock(demo, at_start):
    drive()
    api.create(demo, hello(schedule="0 * * * *"), KUBECTL)
    drive()
    assert jobs(demo) == []
    cluster = Cluster.objects.get(name="demo")
    offset = simtime.jump(cluster, 60 * 60)  # an hour ahead: 10:00 has come for this cluster
    assert offset == 3600
    drive()
    (job,) = jobs(demo)
    assert job["metadata"]["annotations"][cronjob.SCHEDULED_TIMESTAMP] == "2026-03-02T10:00:00Z"
    assert job["metadata"]["creationTimestamp"].startswith("2026-03-02T10:00")  # the cluster's own time
    assert clock.now() == at_start.now()  # outside the cluster: the process clock
    with pytest.raises(ValueError):
        simtime.jump(cluster, -5)
