"""Tables of PriorityClasses, DaemonSets and Jobs, as v1.33's printers.go prints them."""

from __future__ import annotations

from datetime import datetime

from cluster.kubeapi.humanize import human_duration, parse_time
from cluster.kubeapi.tables import (
    AGE_COLUMN,
    CONTAINERS_IMAGES_SELECTOR,
    NAME_COLUMN,
    TableSpec,
    age,
    containers_images,
)
from k8s.selectors import format_label_selector, format_labels


def _priority_class_row(obj: dict, now: datetime) -> list:
    return [
        obj["metadata"]["name"],
        obj.get("value", 0),
        bool(obj.get("globalDefault")),
        age(obj, now),
        obj.get("preemptionPolicy") or "",
    ]


def _daemon_set_row(obj: dict, now: datetime) -> list:
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    template = spec.get("template") or {}
    return [
        obj["metadata"]["name"],
        status.get("desiredNumberScheduled", 0),
        status.get("currentNumberScheduled", 0),
        status.get("numberReady", 0),
        status.get("updatedNumberScheduled", 0),
        status.get("numberAvailable", 0),
        format_labels((template.get("spec") or {}).get("nodeSelector")),
        age(obj, now),
        *containers_images(template),
        format_label_selector(spec.get("selector")),
    ]


def has_condition(job: dict, kind: str) -> bool:
    return any(
        c.get("type") == kind and c.get("status") == "True"
        for c in (job.get("status") or {}).get("conditions") or []
    )


def job_status(job: dict) -> str:
    """printJob's STATUS cell."""
    if has_condition(job, "Complete"):
        return "Complete"
    if has_condition(job, "Failed"):
        return "Failed"
    if (job.get("metadata") or {}).get("deletionTimestamp"):
        return "Terminating"
    if has_condition(job, "Suspended"):
        return "Suspended"
    if has_condition(job, "FailureTarget"):
        return "FailureTarget"
    return "Running"


def job_completions(job: dict) -> str:
    spec, status = job.get("spec") or {}, job.get("status") or {}
    succeeded = status.get("succeeded", 0)
    if spec.get("completions") is not None:
        return f"{succeeded}/{spec['completions']}"
    parallelism = spec.get("parallelism") or 0
    return f"{succeeded}/1 of {parallelism}" if parallelism > 1 else f"{succeeded}/1"


def job_duration(job: dict, now: datetime) -> str:
    status = job.get("status") or {}
    start = parse_time(status.get("startTime"))
    if start is None:
        return ""
    end = parse_time(status.get("completionTime")) or now
    return human_duration(end - start)


def _job_row(obj: dict, now: datetime) -> list:
    spec = obj.get("spec") or {}
    return [
        obj["metadata"]["name"],
        job_status(obj),
        job_completions(obj),
        job_duration(obj, now),
        age(obj, now),
        *containers_images(spec.get("template")),
        format_label_selector(spec.get("selector")),
    ]


PRIORITY_CLASS = TableSpec(
    (
        NAME_COLUMN,
        ("Value", "integer", "", 0),
        ("Global-Default", "boolean", "", 0),
        AGE_COLUMN,
        ("PreemptionPolicy", "string", "", 0),
    ),
    _priority_class_row,
)
DAEMON_SET = TableSpec(
    (
        NAME_COLUMN,
        ("Desired", "integer", "", 0),
        ("Current", "integer", "", 0),
        ("Ready", "integer", "", 0),
        ("Up-to-date", "integer", "", 0),
        ("Available", "integer", "", 0),
        ("Node Selector", "string", "", 0),
        AGE_COLUMN,
        *CONTAINERS_IMAGES_SELECTOR,
    ),
    _daemon_set_row,
)
JOB = TableSpec(
    (
        NAME_COLUMN,
        ("Status", "string", "", 0),
        ("Completions", "string", "", 0),
        ("Duration", "string", "", 0),
        AGE_COLUMN,
        *CONTAINERS_IMAGES_SELECTOR,
    ),
    _job_row,
)
