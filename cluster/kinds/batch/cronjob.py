"""CronJobs (batch/v1, `cronjobs`, short name `cj`): upstream `pkg/registry/batch/cronjob`,
SetDefaults_CronJob, ValidateCronJob(Create|Update) with robfig/cron's parser (`k8s/cron.py`),
printCronJob and `kubectl describe cronjob`."""

from __future__ import annotations

import re
from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.kinds.batch.job import nonnegative
from cluster.kinds.core.podspec import pod_spec_defaults, validate_pod_spec
from cluster.kubeapi.describe import events_of, rfc_time, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.describe_workloads import pod_template
from cluster.kubeapi.humanize import since
from cluster.kubeapi.tables import (
    AGE_COLUMN,
    CONTAINERS_IMAGES_SELECTOR,
    NAME_COLUMN,
    TableSpec,
    age,
    containers_images,
)
from k8s import clock, cron
from k8s.labels import format_label_selector

ALLOW, FORBID, REPLACE = "Allow", "Forbid", "Replace"
# validation.go's validTimeZoneCharacters, per part of the name.
_TIME_ZONE_PART = re.compile(r"^[A-Za-z.\-_0-9+]{1,14}$")
# A CronJob's name leaves room for the Jobs' "-<minutes since the epoch>" suffix.
MAX_NAME = 52


def defaults(obj: dict) -> None:
    """SetDefaults_CronJob, and the job template's pod spec defaults."""
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    if not spec.get("concurrencyPolicy"):
        spec["concurrencyPolicy"] = ALLOW
    spec.setdefault("suspend", False)
    spec.setdefault("successfulJobsHistoryLimit", 3)
    spec.setdefault("failedJobsHistoryLimit", 1)
    template = spec.get("jobTemplate")
    job_spec = template.get("spec") if isinstance(template, dict) else None
    pod = job_spec.get("template") if isinstance(job_spec, dict) else None
    if isinstance(pod, dict) and isinstance(pod.setdefault("spec", {}), dict):
        pod.setdefault("metadata", {})
        pod_spec_defaults(pod["spec"])
    obj.setdefault("status", {})


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    name = (obj.get("metadata") or {}).get("name") or ""
    if old is None and len(name) > MAX_NAME:
        errors.invalid("metadata.name", name, f"must be no more than {MAX_NAME} characters")
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    old_spec = (old or {}).get("spec") or {}
    schedule = spec.get("schedule")
    if not schedule:
        errors.required("spec.schedule")
    else:
        # A TZ= in the schedule is only kept on an update of a CronJob that had one.
        _schedule(errors, schedule, "TZ" in str(old_spec.get("schedule", "")), spec.get("timeZone"))
    nonnegative(errors, "spec.startingDeadlineSeconds", spec.get("startingDeadlineSeconds"))
    if old is None or old_spec.get("timeZone") != spec.get("timeZone"):
        _time_zone(errors, spec.get("timeZone"))
    policy = spec.get("concurrencyPolicy")
    if not policy:
        errors.required("spec.concurrencyPolicy")
    elif policy not in (ALLOW, FORBID, REPLACE):
        errors.not_supported("spec.concurrencyPolicy", policy, (ALLOW, FORBID, REPLACE))
    _job_template(errors, spec.get("jobTemplate"))
    nonnegative(errors, "spec.successfulJobsHistoryLimit", spec.get("successfulJobsHistoryLimit"))
    nonnegative(errors, "spec.failedJobsHistoryLimit", spec.get("failedJobsHistoryLimit"))


def _schedule(errors: FieldErrors, schedule: object, allow_tz: bool, time_zone: object) -> None:
    """validateScheduleFormat: robfig/cron's parser, and no TZ= beside the timeZone field."""
    text = str(schedule)
    try:
        cron.parse_standard(text)
    except cron.CronError as err:
        errors.invalid("spec.schedule", schedule, str(err))
    if allow_tz and "TZ" in text and time_zone is not None:
        errors.invalid(
            "spec.schedule", schedule, "cannot use both timeZone field and TZ or CRON_TZ in schedule"
        )
    elif not allow_tz and "TZ" in text:
        errors.invalid(
            "spec.schedule", schedule, "cannot use TZ or CRON_TZ in schedule, use timeZone field instead"
        )


def _time_zone(errors: FieldErrors, time_zone: object) -> None:
    """validateTimeZone."""
    if time_zone is None:
        return
    text = str(time_zone)
    if not text:
        errors.invalid("spec.timeZone", time_zone, "timeZone must be nil or non-empty string")
        return
    for part in text.split("/"):
        if part in (".", "..") or part.startswith("-") or not _TIME_ZONE_PART.match(part):
            errors.invalid("spec.timeZone", time_zone, f"unknown time zone {text}")
            return
    if text.lower() == "local":
        errors.invalid(
            "spec.timeZone",
            time_zone,
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
        )
    try:
        cron.load_location(text)
    except cron.CronError as err:
        errors.invalid("spec.timeZone", time_zone, str(err))


def _job_template(errors: FieldErrors, template: object) -> None:
    """ValidateJobTemplateSpec: a Job's spec, its selector generated for each Job."""
    base = "spec.jobTemplate.spec"
    job_spec = template.get("spec") if isinstance(template, dict) else None
    if not isinstance(job_spec, dict):
        errors.required("spec.jobTemplate.spec.template")
        return
    for key in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"):
        nonnegative(errors, f"{base}.{key}", job_spec.get(key))
    pod = job_spec.get("template")
    if not isinstance(pod, dict):
        errors.required(f"{base}.template")
    else:
        pod_spec = pod.get("spec") or {}
        validate_pod_spec(errors, f"{base}.template.spec", pod_spec)
        policy = pod_spec.get("restartPolicy") if isinstance(pod_spec, dict) else None
        if policy not in ("OnFailure", "Never"):
            errors.not_supported(f"{base}.template.spec.restartPolicy", policy, ("OnFailure", "Never"))
    if job_spec.get("selector") is not None:
        errors.invalid(f"{base}.selector", job_spec["selector"], "`selector` will be auto-generated")
    if job_spec.get("manualSelector"):
        errors.not_supported(f"{base}.manualSelector", job_spec["manualSelector"], ("nil", "false"))


# -- kubectl get ----------------------------------------------------------------------------------
def bool_ptr(value: object) -> str:
    """printBoolPtr."""
    if value is None:
        return "<unset>"
    return "True" if value else "False"


def _row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    last = status.get("lastScheduleTime")
    job_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    return [
        obj["metadata"]["name"],
        spec.get("schedule", ""),
        spec.get("timeZone") if spec.get("timeZone") is not None else "<none>",
        bool_ptr(spec.get("suspend")),
        len(status.get("active") or []),
        since(last, now) if last else "<none>",
        age(obj, now),
        *containers_images(job_spec.get("template")),
        format_label_selector(job_spec.get("selector")),
    ]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Schedule", "string", "", 0),
        ("Timezone", "string", "", 0),
        ("Suspend", "boolean", "", 0),
        ("Active", "integer", "", 0),
        ("Last Schedule", "string", "", 0),
        AGE_COLUMN,
        *CONTAINERS_IMAGES_SELECTOR,
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def _limit(value: object) -> str:
    return str(value) if value is not None else "<unset>"


def describe_cron_job(cj: dict) -> list[str]:
    """describeCronJob."""
    meta, spec, status = cj["metadata"], cj.get("spec") or {}, cj.get("status") or {}
    lines = [f"Name:\t{meta['name']}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += [
        f"Schedule:\t{spec.get('schedule', '')}",
        f"Concurrency Policy:\t{spec.get('concurrencyPolicy', '')}",
        f"Suspend:\t{bool_ptr(spec.get('suspend'))}",
        f"Successful Job History Limit:\t{_limit(spec.get('successfulJobsHistoryLimit'))}",
        f"Failed Job History Limit:\t{_limit(spec.get('failedJobsHistoryLimit'))}",
    ]
    deadline = spec.get("startingDeadlineSeconds")
    lines.append(f"Starting Deadline Seconds:\t{f'{deadline}s' if deadline is not None else '<unset>'}")
    job_spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    selector = job_spec.get("selector")
    lines.append(f"Selector:\t{format_label_selector(selector) if selector is not None else '<unset>'}")
    for label, key in (("Parallelism", "parallelism"), ("Completions", "completions")):
        lines.append(f"{label}:\t{_limit(job_spec.get(key))}")
    if job_spec.get("activeDeadlineSeconds") is not None:
        lines.append(f"Active Deadline Seconds:\t{job_spec['activeDeadlineSeconds']}s")
    lines += pod_template(job_spec.get("template"))
    last = status.get("lastScheduleTime")
    lines.append(f"Last Schedule Time:\t{rfc_time(last) if last else '<unset>'}")
    active = [ref.get("name", "") for ref in status.get("active") or []]
    lines.append(f"Active Jobs:\t{', '.join(active) if active else '<none>'}")
    return lines


def describe(read, namespace: str, name: str) -> str:
    cj = read.get("CronJob", namespace or "default", name)
    return with_events(describe_cron_job(cj), events_of(read, cj), clock.now())


KIND = KindInfo(
    kind="CronJob",
    plural="cronjobs",
    singular="cronjob",
    group="batch",
    version="v1",
    namespaced=True,
    short_names=("cj",),
    categories=("all",),
    subresources=(status_subresource("CronJob", "batch"),),
    workload=True,  # generation starts at 1; the controller manager watches it; the page lists it
    reset_rank=15,  # before its Jobs
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)
