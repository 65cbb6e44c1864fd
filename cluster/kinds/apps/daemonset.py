"""Defaults and validation of DaemonSets (apps/v1) and Jobs (batch/v1), as upstream's
SetDefaults_DaemonSet / SetDefaults_Job, the Job strategy's generated selector, and
ValidateDaemonSet / ValidateJob."""

from __future__ import annotations

from cluster.apiserver import defaults, validators
from cluster.apiserver.fielderrors import FieldErrors

INT32_MAX = 2**31 - 1
JOB_UID_LABEL = "batch.kubernetes.io/controller-uid"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"
LEGACY_UID_LABEL = "controller-uid"
LEGACY_NAME_LABEL = "job-name"


def _template(spec: dict) -> dict:
    template = spec.setdefault("template", {})
    if isinstance(template, dict):
        template.setdefault("metadata", {})
        if isinstance(template.setdefault("spec", {}), dict):
            defaults.pod_spec(template["spec"])
    return template if isinstance(template, dict) else {}


def daemon_set_defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    strategy = spec.setdefault("updateStrategy", {})
    if isinstance(strategy, dict):
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.setdefault("rollingUpdate", {})
            if isinstance(rolling, dict):
                rolling.setdefault("maxUnavailable", 1)
                rolling.setdefault("maxSurge", 0)
    spec.setdefault("revisionHistoryLimit", 10)
    _template(spec)
    status = obj.setdefault("status", {})
    if isinstance(status, dict):
        for key in ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"):
            status.setdefault(key, 0)


def job_defaults(obj: dict) -> None:
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
    template = _template(spec)
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


def _restart_policy(errors: FieldErrors, spec: dict, allowed: tuple[str, ...]) -> None:
    policy = ((spec.get("template") or {}).get("spec") or {}).get("restartPolicy")
    if isinstance(spec.get("template"), dict) and policy not in allowed:
        errors.not_supported("spec.template.spec.restartPolicy", policy, allowed)


def validate_daemon_set(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    validators.APPS_WORKLOAD(errors, obj, old)
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return
    _restart_policy(errors, spec, ("Always",))
    strategy = spec.get("updateStrategy") or {}
    kind = strategy.get("type") if isinstance(strategy, dict) else strategy
    if kind not in ("RollingUpdate", "OnDelete"):
        errors.not_supported("spec.updateStrategy.type", kind, ("OnDelete", "RollingUpdate"))


def validate_job(errors: FieldErrors, obj: dict, old: dict | None) -> None:
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
    validators.pod_spec(errors, "spec.template.spec", template.get("spec"))
    _restart_policy(errors, spec, ("OnFailure", "Never"))
    if old is not None:
        old_spec = old.get("spec") or {}
        for key in ("completions", "selector", "template", "completionMode", "backoffLimitPerIndex"):
            if key == "completions" and old_spec.get("completions") != spec.get("completions"):
                errors.invalid("spec.completions", spec.get("completions"), "field is immutable")
            elif key != "completions" and spec.get(key) != old_spec.get(key):
                errors.invalid(
                    f"spec.{key}", spec.get(key) if key != "template" else "", "field is immutable"
                )
