"""Small readings of Kubernetes objects that the checks share (pure, except the last two)."""

from __future__ import annotations

from django.db.models import Max

from cluster.models import FlowStep
from labs.labmodel import Text
from labs.paths import parse_path, resolve
from scheduler import explanations
from scheduler.engine.compact import expand
from scheduler.models import SchedulingAttempt


def waiting_reason(pod: dict) -> str:
    """The first container's waiting reason (ErrImagePull, ImagePullBackOff, ...), if any."""
    for status in pod.get("status", {}).get("containerStatuses") or []:
        reason = (status.get("state") or {}).get("waiting", {}).get("reason")
        if reason:
            return reason
    return ""


def has_label(obj: dict, label: str) -> bool:
    key, sep, value = label.partition("=")
    labels = obj.get("metadata", {}).get("labels") or {}
    return key in labels and (not sep or labels[key] == value)


def unschedulable_message(probe, pod: dict) -> str:
    """kube-scheduler's message for a pod it could not place: the PodScheduled condition, else the
    newest FailedScheduling event about the pod."""
    for condition in pod.get("status", {}).get("conditions") or []:
        unschedulable = condition.get("type") == "PodScheduled" and condition.get("status") == "False"
        if unschedulable and condition.get("message"):
            return condition["message"]
    meta = pod["metadata"]
    events = [
        e
        for e in probe.list("Event", meta.get("namespace", "default"))
        if e.get("reason") == "FailedScheduling" and e.get("involvedObject", {}).get("name") == meta["name"]
    ]
    return events[-1].get("message", "") if events else ""


def taint_text(key: str | None, value: str | None, effect: str | None) -> str:
    text = key or ""
    if value:
        text += f"={value}"
    return f"{text}:{effect}" if effect else text


def taint_matches(taint: dict, params: dict) -> bool:
    return (
        taint.get("key") == params["key"]
        and ("value" not in params or (taint.get("value") or "") == params["value"])
        and ("effect" not in params or taint.get("effect") == params["effect"])
    )


def pod_matches(pod: dict, params: dict) -> bool:
    """podCount's extra filters: phase and field values (the selector went to the API server)."""
    if "phase" in params and pod.get("status", {}).get("phase", "Pending") != params["phase"]:
        return False
    for path, wanted in (params.get("fields") or {}).items():
        if resolve(pod, parse_path(path)) != wanted:
            return False
    return True


def count_ok(params: dict, count: int, nodes: int) -> bool:
    if "count" in params and count != params["count"]:
        return False
    if "min" in params and count < params["min"]:
        return False
    if "max" in params and count > params["max"]:
        return False
    if "distinctNodes" in params and nodes < params["distinctNodes"]:
        return False
    # With no bound at all, the check asks that at least one pod matches.
    return any(key in params for key in ("count", "min", "max", "distinctNodes")) or count > 0


def count_expectation(params: dict) -> Text:
    selector = params["selector"]
    bounds_en, bounds_zh = [], []
    if "count" in params:
        bounds_en.append(f"exactly {params['count']}")
        bounds_zh.append(f"恰好 {params['count']} 个")
    if "min" in params:
        bounds_en.append(f"at least {params['min']}")
        bounds_zh.append(f"至少 {params['min']} 个")
    if "max" in params:
        bounds_en.append(f"at most {params['max']}")
        bounds_zh.append(f"至多 {params['max']} 个")
    how_en = " and ".join(bounds_en) or "some"
    how_zh = "、".join(bounds_zh) or "若干"
    phase = params.get("phase")
    en = f"There should be {how_en} pod(s) matching {selector}" + (f" in phase {phase}" if phase else "")
    zh = f"匹配 {selector}" + (f"且处于 {phase}" if phase else "") + f" 的 Pod 应当有 {how_zh}"
    for path, value in (params.get("fields") or {}).items():
        en += f", with {path} = {value}"
        zh += f"，且 {path} = {value}"
    if "distinctNodes" in params:
        en += f", spread over at least {params['distinctNodes']} nodes"
        zh += f"，分布在至少 {params['distinctNodes']} 个节点上"
    return Text(en + ".", zh + "。")


def event_matches(event: dict, params: dict) -> bool:
    involved = event.get("involvedObject") or {}
    return (
        event.get("reason") == params["reason"]
        and ("kind" not in params or involved.get("kind") == params["kind"])
        and ("name" not in params or involved.get("name") == params["name"])
        and params.get("messageContains", "") in (event.get("message") or "")
    )


def event_expectation(params: dict) -> Text:
    about_en = (
        f" about {params.get('kind', '')} {params['name']}".replace("  ", " ") if "name" in params else ""
    )
    about_zh = f"关于 {params['name']} 的" if "name" in params else ""
    text = params.get("messageContains")
    return Text(
        f"There should be an event with reason {params['reason']}{about_en}"
        + (f" mentioning “{text}”." if text else "."),
        f"应当有一条{about_zh}原因为 {params['reason']} 的事件" + (f"，消息包含“{text}”。" if text else "。"),
    )


def latest_attempt(cluster, namespace: str, pod: str) -> dict | None:
    """The explanation (Decision.to_json()) of the scheduler's newest attempt for the pod."""
    explanations.ready(cluster, namespace, pod)
    attempts = SchedulingAttempt.objects.filter(cluster=cluster, namespace=namespace, pod=pod)
    stored = attempts.order_by("-created_at", "-pk").values_list("decision", flat=True).first()
    return None if stored is None else expand(stored)


def flow_reached(cluster, kind: str, namespace: str, name: str) -> int:
    """The highest step recorded (not skipped) by any trace about this object."""
    namespace = "" if kind == "Node" else namespace
    result = FlowStep.objects.filter(
        trace__cluster=cluster, trace__kind=kind, trace__namespace=namespace, trace__name=name, skipped=False
    ).aggregate(top=Max("step"))
    return result["top"] or 0
