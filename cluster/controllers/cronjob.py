"""The CronJob controller (batch/v1, v1.33): upstream's `pkg/controller/cronjob`
(cronjob_controllerv2.go's sync, syncCronJob and cleanupFinishedJobs; utils.go).

It reads the schedule with robfig/cron's parser (`k8s/cron.py`) in the CronJob's timeZone, and
runs on the cluster's simulated clock (`k8s/clock.py`, shifted per cluster by
cluster/controlplane/simtime.py): at each scheduled time it creates a Job named
`<cronjob>-<minutes since the epoch>` from the job template (unless the CronJob is suspended, the
start is later than startingDeadlineSeconds allows, or concurrencyPolicy Forbid finds a Job
still running; Replace deletes it first), keeps the finished Jobs within the history limits, and
asks the controller manager to sync it again at the next scheduled time. Each Job it creates
starts a story of its own in the flow: the CronJob controller plays the client's part.
"""

from __future__ import annotations

import contextlib
import copy
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import SimpleNamespace
from typing import Protocol

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver import store
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.client.informer import db
from cluster.controllers import texts
from cluster.controllers.host import ControllerHost
from cluster.controllers.owned import live_owner
from cluster.controllers.pods import controller_ref, owner_reference
from cluster.flow import gate, titles, writers
from cluster.flow import texts as flow_texts
from cluster.flow.recorder import StepSpec, record_step, record_steps, skip_steps, start_trace
from cluster.kubeapi.humanize import parse_time
from cluster.models import FlowTrace
from k8s import clock, cron

SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp"
NEXT_SCHEDULE_DELTA = timedelta(milliseconds=100)
TITLE = "CronJob controller"
COMPONENT = "cronjob-controller"
NONE_MISSED, FEW_MISSED, MANY_MISSED = 0, 1, 2


class InvalidSchedule(ValueError):
    """A grammatical schedule that never fires (31 February)."""


def timestamp(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def rfc3339(value: datetime) -> str:
    """Go's time.RFC3339 layout: `Z` for UTC, else the offset as `+05:30`."""
    offset = value.utcoffset() or timedelta()
    if not offset:
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    minutes = int(offset.total_seconds()) // 60
    sign = "+" if minutes >= 0 else "-"
    return value.strftime("%Y-%m-%dT%H:%M:%S") + f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def schedule_of(cj: dict) -> tuple[cron.Schedule, str]:
    """formatSchedule + cron.ParseStandard: (the schedule, a warning about TZ= in it, or "")."""
    spec = cj.get("spec") or {}
    text = spec.get("schedule", "")
    warning = ""
    if "TZ" in text:
        warning = (
            f'CRON_TZ or TZ used in schedule "{text}" is not officially supported, see '
            "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more details"
        )
    elif spec.get("timeZone") is not None:
        try:
            cron.load_location(spec["timeZone"])
            text = f"TZ={spec['timeZone']} {text}"
        except cron.CronError:
            pass
    return cron.parse_standard(text), warning


def most_recent_schedule_time(
    cj: dict, now: datetime, schedule: cron.Schedule, include_deadline: bool
) -> tuple[datetime, datetime | None, int]:
    """mostRecentScheduleTime: (the last schedule or creation time, the most recent time a Job
    should have been created or None, how many were missed: none, few or many)."""
    meta, spec, status = cj["metadata"], cj.get("spec") or {}, cj.get("status") or {}
    earliest = parse_time(status.get("lastScheduleTime")) or parse_time(meta.get("creationTimestamp")) or now
    missed = NONE_MISSED
    deadline = spec.get("startingDeadlineSeconds")
    if include_deadline and deadline is not None:
        scheduling_deadline = now - timedelta(seconds=deadline)
        if scheduling_deadline > earliest:
            earliest = scheduling_deadline
    first = schedule.next(earliest)
    if first is not None and now < first:
        return earliest, None, missed
    second = schedule.next(first) if first is not None else None
    if second is not None and now < second:
        return earliest, first, missed
    # A schedule that never fires (31 February) has no next time (Go's zero time), so no gap.
    between = round((second - first).total_seconds()) if first is not None and second is not None else 0
    if between < 1:
        raise InvalidSchedule("time difference between two schedules is less than 1 second")
    elapsed = int((now - first).total_seconds())
    count = elapsed // between + 1
    most_recent = None
    t = schedule.next(first + timedelta(seconds=(count - 2) * between))
    while t is not None and t <= now:
        most_recent = t
        t = schedule.next(t)
    missed = MANY_MISSED if count > 100 else FEW_MISSED if count > 0 else NONE_MISSED
    return earliest, most_recent, missed


def next_schedule_time_duration(cj: dict, now: datetime, schedule: cron.Schedule) -> timedelta:
    """nextScheduleTimeDuration: how long until the next run is due (and 100 ms more)."""
    try:
        earliest, most_recent, missed = most_recent_schedule_time(cj, now, schedule, False)
    except InvalidSchedule:
        most_recent = now
    else:
        if most_recent is None:
            most_recent = earliest if missed == NONE_MISSED else now
    following = schedule.next(most_recent)
    if following is None:
        return timedelta(days=365 * 5)  # never again within five years: a distant recheck
    return following + NEXT_SCHEDULE_DELTA - now


def is_finished(job: dict) -> str:
    """IsJobFinished: "Complete" or "Failed" (its True condition), or ""."""
    for condition in (job.get("status") or {}).get("conditions") or []:
        if condition.get("type") in ("Complete", "Failed") and condition.get("status") == "True":
            return condition["type"]
    return ""


def job_name(cj: dict, scheduled: datetime) -> str:
    """getJobName: the scheduled time in minutes since the epoch (one Job per scheduled time)."""
    return f"{cj['metadata']['name']}-{int(scheduled.timestamp()) // 60}"


def job_from_template(cj: dict, scheduled: datetime) -> dict:
    """getJobFromTemplate2."""
    template = (cj.get("spec") or {}).get("jobTemplate") or {}
    template_meta = template.get("metadata") or {}
    zone = cron.load_location((cj.get("spec") or {}).get("timeZone") or "")
    annotations = dict(template_meta.get("annotations") or {})
    annotations[SCHEDULED_TIMESTAMP] = rfc3339(scheduled.astimezone(zone))
    meta = {
        "name": job_name(cj, scheduled),
        "namespace": cj["metadata"].get("namespace", "default"),
        "annotations": annotations,
        "ownerReferences": [owner_reference(cj)],
    }
    if template_meta.get("labels"):
        meta["labels"] = dict(template_meta["labels"])
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": meta,
        "spec": copy.deepcopy(template.get("spec") or {}),
    }


def job_ref(job: dict) -> dict:
    """getRef: the Job as an ObjectReference in status.active."""
    meta = job["metadata"]
    return {
        "kind": "Job",
        "namespace": meta.get("namespace", ""),
        "name": meta["name"],
        "uid": meta.get("uid", ""),
        "apiVersion": "batch/v1",
        "resourceVersion": meta.get("resourceVersion", ""),
    }


class CronJobClient(Protocol):
    def create_job(self, job: dict) -> dict: ...  # ApiError 409 when the name is taken

    def get_job(self, namespace: str, name: str) -> dict: ...  # ApiError 404

    def delete_job(self, job: dict) -> None: ...

    def event(self, cj: dict, type_: str, reason: str, message: str) -> None: ...


@dataclass
class Outcome:
    """What one sync decided: the status to write, when to sync again, the Jobs it created."""

    cj: dict
    update_status: bool = False
    requeue_after: timedelta | None = None
    created: list[dict] = field(default_factory=list)
    next_run: datetime | None = None


class CronJobSync:
    """ControllerV2's sync, syncCronJob and cleanupFinishedJobs, against `CronJobClient`."""

    def __init__(self, client: CronJobClient) -> None:
        self.client = client

    def sync(self, cj: dict, jobs: list[dict], now: datetime) -> Outcome:
        outcome = Outcome(copy.deepcopy(cj))
        outcome.update_status = self.cleanup_finished_jobs(outcome.cj, jobs)
        self.sync_cron_job(outcome, jobs, now)
        return outcome

    def cleanup_finished_jobs(self, cj: dict, jobs: list[dict]) -> bool:
        spec = cj.get("spec") or {}
        if spec.get("failedJobsHistoryLimit") is None and spec.get("successfulJobsHistoryLimit") is None:
            return False
        succeeded = [j for j in jobs if is_finished(j) == "Complete"]
        failed = [j for j in jobs if is_finished(j) == "Failed"]
        changed = False
        for finished, limit in (
            (succeeded, "successfulJobsHistoryLimit"),
            (failed, "failedJobsHistoryLimit"),
        ):
            if spec.get(limit) is not None and self.remove_oldest_jobs(cj, finished, spec[limit]):
                changed = True
        return changed

    def remove_oldest_jobs(self, cj: dict, jobs: list[dict], most: int) -> bool:
        surplus = len(jobs) - most
        if surplus <= 0:
            return False
        changed = False
        for job in sorted(jobs, key=_start_time)[:surplus]:
            if self.delete_job(cj, job):
                changed = True
        return changed

    def delete_job(self, cj: dict, job: dict) -> bool:
        try:
            self.client.delete_job(job)
        except ApiError as error:
            self.client.event(cj, "Warning", "FailedDelete", f"Deleted job: {error.message}")
            return False
        _remove_active(cj, job["metadata"].get("uid", ""))
        self.client.event(cj, "Normal", "SuccessfulDelete", f"Deleted job {job['metadata']['name']}")
        return True

    def sync_cron_job(self, out: Outcome, jobs: list[dict], now: datetime) -> None:
        cj = out.cj
        status = cj.setdefault("status", {})
        children = set()
        for job in jobs:
            uid = job["metadata"].get("uid", "")
            children.add(uid)
            found = _in_active(cj, uid)
            finished = is_finished(job)
            if not found and not finished:
                message = f"Saw a job that the controller did not create or forgot: {job['metadata']['name']}"
                self.client.event(cj, "Warning", "UnexpectedJob", message)
            elif found and finished:
                _remove_active(cj, uid)
                message = f"Saw completed job: {job['metadata']['name']}, condition: {finished}"
                self.client.event(cj, "Normal", "SawCompletedJob", message)
                out.update_status = True
            elif finished:  # finished, not active: its completion time still counts
                completed = (job.get("status") or {}).get("completionTime")
                last = status.get("lastSuccessfulTime")
                if completed and (last is None or parse_time(completed) > parse_time(last)):
                    status["lastSuccessfulTime"] = completed
                    out.update_status = True
        for ref in list(status.get("active") or []):
            if ref.get("uid") in children:
                continue
            try:
                self.client.get_job(ref.get("namespace", ""), ref.get("name", ""))
            except ApiError as error:
                if error.code != 404:
                    return
                self.client.event(cj, "Normal", "MissingJob", f"Active job went missing: {ref.get('name')}")
                _remove_active(cj, ref.get("uid", ""))
                out.update_status = True
        if cj["metadata"].get("deletionTimestamp"):
            return
        spec = cj.get("spec") or {}
        if spec.get("timeZone") is not None:
            try:
                cron.load_location(spec["timeZone"])
            except cron.CronError as err:
                self.client.event(
                    cj, "Warning", "UnknownTimeZone", f'invalid timeZone: "{spec["timeZone"]}": {err}'
                )
                return
        if spec.get("suspend"):
            return
        try:
            schedule, warning = schedule_of(cj)
        except cron.CronError as err:
            message = f'unparseable schedule: "{spec.get("schedule")}" : {err}'
            self.client.event(cj, "Warning", "UnparseableSchedule", message)
            return
        if warning:
            self.client.event(cj, "Warning", "UnsupportedSchedule", warning)
        try:
            _, scheduled, missed = most_recent_schedule_time(cj, now, schedule, True)
        except InvalidSchedule as err:
            self.client.event(
                cj, "Warning", "InvalidSchedule", f"invalid schedule: {spec.get('schedule')} : {err}"
            )
            return
        requeue = next_schedule_time_duration(cj, now, schedule)
        out.requeue_after = requeue
        out.next_run = now + requeue - NEXT_SCHEDULE_DELTA
        if scheduled is None or scheduled > now:
            return
        if missed == MANY_MISSED:
            message = (
                "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or check "
                "clock skew"
            )
            self.client.event(cj, "Warning", "TooManyMissedTimes", message)
        deadline = spec.get("startingDeadlineSeconds")
        if deadline is not None and scheduled + timedelta(seconds=deadline) < now:
            stamp = scheduled.astimezone(UTC).strftime("%a, %d %b %Y %H:%M:%S +0000")
            self.client.event(cj, "Warning", "MissSchedule", f"Missed scheduled time to start a job: {stamp}")
            return
        name = job_name(cj, scheduled)
        last = parse_time(status.get("lastScheduleTime"))
        if any(ref.get("name") == name for ref in status.get("active") or []) or last == scheduled.replace(
            microsecond=0
        ):
            return
        if spec.get("concurrencyPolicy") == "Forbid" and status.get("active"):
            message = "Not starting job because prior execution is running and concurrency policy is Forbid"
            self.client.event(cj, "Normal", "JobAlreadyActive", message)
            return
        if spec.get("concurrencyPolicy") == "Replace":
            for ref in list(status.get("active") or []):
                try:
                    job = self.client.get_job(ref.get("namespace", ""), ref.get("name", ""))
                except ApiError as error:
                    self.client.event(cj, "Warning", "FailedGet", f"Get job: {error.message}")
                    return
                if not self.delete_job(cj, job):
                    return
                out.update_status = True
        wanted = job_from_template(cj, scheduled)
        try:
            created = self.client.create_job(wanted)
        except ApiError as error:
            if error.code != 409:
                self.client.event(cj, "Warning", "FailedCreate", f"Error creating job: {error.message}")
                return
            try:
                created = self.client.get_job(wanted["metadata"]["namespace"], wanted["metadata"]["name"])
            except ApiError:
                return
            if (controller_ref(created) or {}).get("uid") != cj["metadata"].get("uid") or _in_active(
                cj, created["metadata"].get("uid", "")
            ):
                return
        else:
            out.created.append(created)
            self.client.event(cj, "Normal", "SuccessfulCreate", f"Created job {created['metadata']['name']}")
        status.setdefault("active", []).append(job_ref(created))
        status["lastScheduleTime"] = timestamp(scheduled)
        out.update_status = True


def _in_active(cj: dict, uid: str) -> bool:
    return any(ref.get("uid") == uid for ref in (cj.get("status") or {}).get("active") or [])


def _remove_active(cj: dict, uid: str) -> None:
    status = cj.setdefault("status", {})
    kept = [ref for ref in status.get("active") or [] if ref.get("uid") != uid]
    if kept:
        status["active"] = kept
    else:
        status.pop("active", None)


def _start_time(job: dict) -> tuple:
    """byJobStartTime: by status.startTime (none last), then by name."""
    start = (job.get("status") or {}).get("startTime")
    return (start is None, start or "", job["metadata"]["name"])


class ApiClient:
    """The sync's writes through the API server, in the database thread. A Job it creates starts
    a trace of its own (the CronJob controller as the client, steps 1–4), so the Job controller
    and the kubelets carry its pods through the 13 steps."""

    def __init__(self, cm: ControllerHost, cj: dict) -> None:
        self.cm = cm
        self.cj = cj
        self.actor = Actor("controller-manager", TITLE, flow=writers.COMPONENT)

    def create_job(self, job: dict) -> dict:
        meta = job["metadata"]
        with transaction.atomic():
            locked = store.lock(self.cm.cluster)
            if live_owner(locked, self.cj) is None:
                name = self.cj["metadata"]["name"]
                details = {"name": name, "group": "batch", "kind": "cronjobs"}
                raise ApiError(404, "NotFound", f'cronjobs.batch "{name}" not found', details)
            trace = start_trace(locked, "Job", meta["namespace"], meta["name"], "create", TITLE)
            actor = Actor("controller-manager", TITLE, trace, flow=writers.COMPONENT)
            created = api.create(self.cm.cluster, job, actor)
            _record_request_steps(locked, trace, created)
        self.cm.assume(created)
        return created

    def get_job(self, namespace: str, name: str) -> dict:
        return api.get(self.cm.cluster, "Job", namespace, name)

    def delete_job(self, job: dict) -> None:
        meta = job["metadata"]
        api.delete(
            self.cm.cluster, "Job", meta.get("namespace"), meta["name"], self.actor, propagation="Background"
        )
        self.cm.informer.store["Job"].pop((meta.get("namespace", ""), meta["name"]), None)

    def event(self, cj: dict, type_: str, reason: str, message: str) -> None:
        event_recorder.record(
            self.cm.cluster, cj, reason, message, self.actor, type_=type_, component=COMPONENT
        )


def _record_request_steps(locked, trace: FlowTrace, job: dict) -> None:
    """Steps 1–4 of a Job the CronJob controller created, the controller in the client's part."""
    revision = int(job["metadata"].get("resourceVersion") or 0)
    event = SimpleNamespace(object=job, revision=revision, type="ADDED")
    actor = Actor("controller-manager", TITLE, flow=writers.COMPONENT)
    specs = [
        StepSpec(1, *flow_texts.open_watches(locked.name, revision), revision=revision),
        StepSpec(2, *flow_texts.request_sent(actor, TITLE, "create", event), revision=revision),
        StepSpec(3, *flow_texts.object_stored(event), revision=revision),
        StepSpec(4, *flow_texts.event_sent(event), revision=revision, title=titles.event_sent(event.type)),
    ]
    record_steps(trace, specs, locked)


class CronJobController:
    kind = "CronJob"

    def __init__(self, manager: ControllerHost) -> None:
        self.cm = manager

    def jobs(self, cj: dict) -> list[dict]:
        """getJobsToBeReconciled: the Jobs it controls."""
        uid = cj["metadata"]["uid"]
        namespace = cj["metadata"].get("namespace", "")
        return [
            job
            for job in self.cm.informer.items("Job")
            if job["metadata"].get("namespace", "") == namespace
            and (controller_ref(job) or {}).get("uid") == uid
        ]

    async def sync(self, cj: dict, trace_id: str | None) -> None:
        meta = cj["metadata"]
        steps = trace_id is not None and trace_id not in self.cm.stepped
        if steps:
            steps = await db(self.cm.needs_steps)(
                trace_id, self.kind, meta.get("namespace", ""), meta["name"]
            )
        if steps:
            await gate.before_step(self.cm.cluster_name, trace_id, 5)
            en, zh = texts.event_received(cj)
            await db(record_step)(trace_id, 5, detail_en=en, detail_zh=zh, obj=_ref(cj))
            await gate.before_step(self.cm.cluster_name, trace_id, 6)
        outcome = await db(self._sync)(cj)
        if outcome.requeue_after is not None:
            seconds = max(outcome.requeue_after.total_seconds(), 0.0)
            self.cm.requeue_after(self.kind, meta.get("namespace", ""), meta["name"], seconds)
        if steps:
            await db(self._record_decision)(cj, trace_id, outcome)

    # -- database thread ---------------------------------------------------------------------
    def _sync(self, cj: dict) -> Outcome:
        client = ApiClient(self.cm, cj)
        outcome = CronJobSync(client).sync(cj, self.jobs(cj), clock.now())
        if outcome.update_status:
            body = copy.deepcopy(outcome.cj)
            body["metadata"].pop("resourceVersion", None)
            with contextlib.suppress(ApiError):  # deleted meanwhile
                self.cm.assume(api.update(self.cm.cluster, body, client.actor, subresource="status"))
        return outcome

    def _record_decision(self, cj: dict, trace_id: str, outcome: Outcome) -> None:
        created = [job["metadata"]["name"] for job in outcome.created]
        en, zh = texts.cron_job_decided(cj, created, outcome.next_run)
        record_step(trace_id, 6, detail_en=en, detail_zh=zh, obj=_ref(cj))
        self.cm.stepped.add(trace_id)
        en, zh = texts.cron_job_no_pod(created)
        skip_steps(FlowTrace(pk=trace_id), range(7, 14), en, zh, obj=_ref(cj))


def _ref(obj: dict) -> tuple[str, str, str]:
    meta = obj["metadata"]
    return obj["kind"], meta.get("namespace", ""), meta["name"]
