"""Jobs (batch/v1, `jobs`): upstream `pkg/registry/batch/job`, SetDefaults_Job and the strategy's
generated selector, ValidateJob(Update), the printer's columns and `kubectl describe job`."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, status_subresource
from cluster.apiserver.validation import INT32_MAX
from cluster.kinds.core.podspec import ensure_template, validate_pod_spec, validate_restart_policy
from cluster.kubeapi.describe import events_of, rfc_time, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.describe_workloads import controlled_by, pod_template
from cluster.kubeapi.humanize import human_duration, parse_time
from cluster.kubeapi.tables import (
    AGE_COLUMN,
    CONTAINERS_IMAGES_SELECTOR,
    NAME_COLUMN,
    TableSpec,
    age,
    containers_images,
)
from k8s import clock
from k8s.labels import format_label_selector

JOB_UID_LABEL = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_UID_LABEL = "controller-uid"
LEGACY_NAME_LABEL = "job-name"


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    if spec.get("completions") is None and spec.get("parallelism") is None:
        spec["completions"] = 1
    spec.setdefault("parallelism", 1)
    spec.setdefault("backoffLimit", 6)
    spec.setdefault("completionMode", "NonIndexed")
    spec.setdefault("suspend", False)
    spec.setdefault(
        "podReplacementPolicy", "Failed" if spec.get("podFailurePolicy") else "TerminatingOrFailed"
    )
    template = ensure_template(spec)
    meta = obj.setdefault("metadata", {})
    labels = (template.get("metadata") or {}).get("labels")
    # The Job strategy's generateSelector: the pods are selected by the Job's own uid.
    uid, name = meta.get("uid"), meta.get("name")
    if uid and not spec.get("manualSelector"):
        pod_labels = template["metadata"].setdefault("labels", {})
        if isinstance(pod_labels, dict):
            for key, value in (
                (JOB_UID_LABEL, uid),
                (JOB_NAME_LABEL, name),
                (LEGACY_UID_LABEL, uid),
                (LEGACY_NAME_LABEL, name),
            ):
                pod_labels.setdefault(key, value)
        spec.setdefault("selector", {"matchLabels": {JOB_UID_LABEL: uid}})
    if labels and not meta.get("labels"):
        meta["labels"] = dict(template["metadata"]["labels"])
    obj.setdefault("status", {})


def _nonnegative(errors: FieldErrors, path: str, value: object) -> None:
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        errors.invalid(path, value, "must be greater than or equal to 0")
    elif value > INT32_MAX:
        errors.invalid(path, value, f"must be less than or equal to {INT32_MAX}")


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    for key in ("parallelism", "completions", "backoffLimit", "activeDeadlineSeconds"):
        _nonnegative(errors, f"spec.{key}", spec.get(key))
    if spec.get("selector") is None:
        errors.required("spec.selector")
    template = spec.get("template")
    if not isinstance(template, dict):
        errors.required("spec.template")
        return
    validate_pod_spec(errors, "spec.template.spec", template.get("spec"))
    validate_restart_policy(errors, spec, ("OnFailure", "Never"))
    if old is not None:
        old_spec = old.get("spec") or {}
        for key in ("completions", "selector", "template", "completionMode", "backoffLimitPerIndex"):
            if key == "completions" and old_spec.get("completions") != spec.get("completions"):
                errors.invalid("spec.completions", spec.get("completions"), "field is immutable")
            elif key != "completions" and spec.get(key) != old_spec.get(key):
                errors.invalid(
                    f"spec.{key}", spec.get(key) if key != "template" else "", "field is immutable"
                )


# -- kubectl get ----------------------------------------------------------------------------------
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


def _row(obj: dict, now: datetime) -> list:
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


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Status", "string", "", 0),
        ("Completions", "string", "", 0),
        ("Duration", "string", "", 0),
        AGE_COLUMN,
        *CONTAINERS_IMAGES_SELECTOR,
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_job(job: dict) -> list[str]:
    meta, spec, status = job["metadata"], job.get("spec") or {}, job.get("status") or {}
    lines = [f"Name:\t{meta['name']}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"Selector:\t{format_label_selector(spec.get('selector'), empty='')}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += controlled_by(meta)
    if spec.get("parallelism") is not None:
        lines.append(f"Parallelism:\t{spec['parallelism']}")
    completions = spec.get("completions")
    lines.append(f"Completions:\t{completions if completions is not None else '<unset>'}")
    if spec.get("completionMode"):
        lines.append(f"Completion Mode:\t{spec['completionMode']}")
    if spec.get("suspend") is not None:
        lines.append(f"Suspend:\t{'true' if spec['suspend'] else 'false'}")
    if spec.get("backoffLimit") is not None:
        lines.append(f"Backoff Limit:\t{spec['backoffLimit']}")
    if spec.get("ttlSecondsAfterFinished") is not None:
        lines.append(f"TTL Seconds After Finished:\t{spec['ttlSecondsAfterFinished']}")
    start, end = status.get("startTime"), status.get("completionTime")
    if start:
        lines.append(f"Start Time:\t{rfc_time(start)}")
    if end:
        lines.append(f"Completed At:\t{rfc_time(end)}")
    if start and end:
        lines.append(f"Duration:\t{human_duration(parse_time(end) - parse_time(start))}")
    if spec.get("activeDeadlineSeconds") is not None:
        lines.append(f"Active Deadline Seconds:\t{spec['activeDeadlineSeconds']}s")
    counts = (status.get("active", 0), status.get("succeeded", 0), status.get("failed", 0))
    if status.get("ready") is None:
        lines.append(f"Pods Statuses:\t{counts[0]} Active / {counts[1]} Succeeded / {counts[2]} Failed")
    else:
        lines.append(
            f"Pods Statuses:\t{counts[0]} Active ({status['ready']} Ready) / {counts[1]} Succeeded / "
            f"{counts[2]} Failed"
        )
    return lines + pod_template(spec.get("template"))


def describe(read, namespace: str, name: str) -> str:
    job = read.get("Job", namespace, name)
    return with_events(describe_job(job), events_of(read, job), clock.now())


KIND = KindInfo(
    kind="Job",
    plural="jobs",
    singular="job",
    group="batch",
    version="v1",
    namespaced=True,
    categories=("all",),
    subresources=(status_subresource("Job", "batch"),),
    workload=True,
    reset_rank=20,  # before Pods: it owns pods
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)
