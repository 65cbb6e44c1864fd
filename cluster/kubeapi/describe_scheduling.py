"""`kubectl describe` for PriorityClasses, DaemonSets and Jobs, in kubectl's layout (describe.go's
describePriorityClass, describeDaemonSet, describeJob), read through the API server."""

from __future__ import annotations

from datetime import UTC, datetime

from cluster.kubeapi.describe import _owned, _time, _with_events, events_of
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.describe_workloads import _controlled_by, pod_template, pods_status
from cluster.kubeapi.humanize import human_duration, parse_time
from k8s.selectors import format_label_selector, format_labels


def describe_priority_class(pc: dict) -> list[str]:
    lines = [
        f"Name:\t{pc['metadata']['name']}",
        f"Value:\t{pc.get('value', 0)}",
        f"GlobalDefault:\t{'true' if pc.get('globalDefault') else 'false'}",
    ]
    if pc.get("preemptionPolicy"):
        lines.append(f"PreemptionPolicy:\t{pc['preemptionPolicy']}")
    lines.append(f"Description:\t{pc.get('description', '')}")
    lines.append(f"Annotations:\t{format_labels(pc['metadata'].get('annotations'))}")
    return lines


def describe_daemon_set(ds: dict, pods: list[dict]) -> list[str]:
    meta, spec, status = ds["metadata"], ds.get("spec") or {}, ds.get("status") or {}
    template = spec.get("template") or {}
    lines = [f"Name:\t{meta['name']}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"Selector:\t{format_label_selector(spec.get('selector'), empty='')}")
    lines.append(f"Node-Selector:\t{format_labels((template.get('spec') or {}).get('nodeSelector'))}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += [
        f"Desired Number of Nodes Scheduled: {status.get('desiredNumberScheduled', 0)}",
        f"Current Number of Nodes Scheduled: {status.get('currentNumberScheduled', 0)}",
        f"Number of Nodes Scheduled with Up-to-date Pods: {status.get('updatedNumberScheduled', 0)}",
        f"Number of Nodes Scheduled with Available Pods: {status.get('numberAvailable', 0)}",
        f"Number of Nodes Misscheduled: {status.get('numberMisscheduled', 0)}",
        f"Pods Status:\t{pods_status(pods)}",
    ]
    return lines + pod_template(template)


def describe_job(job: dict) -> list[str]:
    meta, spec, status = job["metadata"], job.get("spec") or {}, job.get("status") or {}
    lines = [f"Name:\t{meta['name']}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines.append(f"Selector:\t{format_label_selector(spec.get('selector'), empty='')}")
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += _controlled_by(meta)
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
        lines.append(f"Start Time:\t{_time(start)}")
    if end:
        lines.append(f"Completed At:\t{_time(end)}")
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


def _describe(kind: str):
    def describe_hook(read, namespace: str, name: str) -> str:
        from cluster.apiserver import service as api

        cluster = read.cluster
        obj = api.get(cluster, kind, namespace if kind != "PriorityClass" else None, name)
        if kind == "PriorityClass":
            lines = describe_priority_class(obj)
        elif kind == "DaemonSet":
            lines = describe_daemon_set(obj, _owned(cluster, "Pod", obj))
        else:
            lines = describe_job(obj)
        return _with_events(lines, events_of(cluster, obj), datetime.now(UTC))

    describe_hook.__name__ = f"describe_{kind.lower()}"
    return describe_hook


DESCRIBE_PRIORITY_CLASS = _describe("PriorityClass")
DESCRIBE_DAEMON_SET = _describe("DaemonSet")
DESCRIBE_JOB = _describe("Job")
