"""The controller manager's sentences for steps 5 and 6 (english, chinese)."""

from __future__ import annotations

from cluster.flow.steps import CONTROLLER_MANAGER_PORT
from cluster.flow.texts import ref


def event_received(obj: dict) -> tuple[str, str]:
    revision = (obj.get("metadata") or {}).get("resourceVersion", "")
    return (
        f"The Controller Manager's watch (over {CONTROLLER_MANAGER_PORT}) delivers the event for "
        f"{ref(obj)} (revision {revision}).",
        f"Controller Manager 一直在监听（Watch，通过 {CONTROLLER_MANAGER_PORT} 端口），APIServer 把 "
        f"{ref(obj)} 的事件（revision {revision}）发送给它。",
    )


def replicas_decided(title: str, owner: dict, have: int, wanted: int) -> tuple[str, str]:
    what = ref(owner)
    if have < wanted:
        return (
            f"The {title} counts {have} of {wanted} replicas for {what}: it creates {wanted - have} pod(s).",
            f"{title} 统计 {what} 现有 {have} 个副本，少于定义的 {wanted} 个："
            f"自动创建 {wanted - have} 个 Pod。",
        )
    if have > wanted:
        return (
            f"The {title} counts {have} replicas for {what}, more than {wanted}: "
            f"it deletes {have - wanted} pod(s).",
            f"{title} 统计 {what} 现有 {have} 个副本，多于定义的 {wanted} 个："
            f"删除 {have - wanted} 个 Pod（缩容）。",
        )
    return (
        f"The {title} counts {have} of {wanted} replicas for {what}: the count already matches.",
        f"{title} 统计 {what} 现有 {have} 个副本，与定义的 {wanted} 个一致。",
    )


def no_new_pod(title: str, diff: int) -> tuple[str, str]:
    if diff < 0:
        return (
            f"No new pod: the {title} scaled down by deleting pods, so nothing is scheduled or started.",
            f"没有新 Pod：{title} 通过删除 Pod 完成缩容，没有需要调度或启动的 Pod。",
        )
    return (
        f"No new pod: the replica count already matches spec.replicas (a {title} does not replace "
        "running pods when only its template changes).",
        f"没有新 Pod：副本数量已与 spec.replicas 一致（只修改模板时，{title} 不会替换已运行的 Pod）。",
    )


def rollout_decided(
    deployment: dict, new_rs: str, revision: str, created: bool, scaled: list[str]
) -> tuple[str, str]:
    what = ref(deployment)
    moves = "; ".join(scaled) if scaled else "no ReplicaSet needs scaling"
    if created:
        return (
            f"The Deployment controller creates ReplicaSet {new_rs} (deployment.kubernetes.io/revision "
            f"{revision}) for {what}; {moves}. The ReplicaSet controller then creates the pods.",
            f"Deployment 控制器为 {what} 创建 ReplicaSet {new_rs}（revision {revision}）；{moves}。随后由 "
            "ReplicaSet 控制器创建 Pod。",
        )
    return (
        f"The Deployment controller reconciles {what} with ReplicaSet {new_rs} "
        f"(revision {revision}); {moves}.",
        f"Deployment 控制器以 ReplicaSet {new_rs}（revision {revision}）调整 {what}；{moves}。",
    )


def surplus_deleted(owner: dict, pod: str, have: int, wanted: int, adopted: bool) -> tuple[str, str]:
    """Why a controller deleted a pod (the pod's trace ends with this)."""
    kind, name = owner["kind"], owner["metadata"]["name"]
    selector = ",".join(f"{k}={v}" for k, v in ((owner.get("spec") or {}).get("selector") or {}).items())
    if adopted:
        return (
            f"{kind} {name} deleted {pod}: it matched selector {selector} and the controller already had "
            f"{wanted} replicas",
            f"{kind} {name} 删除了 {pod}：它匹配选择器 {selector}，而控制器已经有 {wanted} 个副本",
        )
    return (
        f"{kind} {name} deleted {pod}: the controller had {have} replicas and spec.replicas is {wanted}",
        f"{kind} {name} 删除了 {pod}：控制器有 {have} 个副本，而 spec.replicas 为 {wanted}",
    )


def stateful_set_decided(
    sts: dict, have: int, wanted: int, creates: list[str], ordered: bool
) -> tuple[str, str]:
    """Step 6 of a StatefulSet: which pods, by name, and in what order."""
    what = ref(sts)
    if not creates:
        return replicas_decided("StatefulSet controller", sts, have, wanted)
    names = ", ".join(creates)
    if ordered:
        return (
            f"The StatefulSet controller counts {have} of {wanted} replicas for {what}: it creates {names} "
            f"in ordinal order, {creates[0]} first (OrderedReady: each one once the one before is Running "
            "and Ready).",
            f"StatefulSet 控制器统计 {what} 现有 {have} 个副本，少于定义的 {wanted} 个：按序号创建 {names}，"
            f"先创建 {creates[0]}（OrderedReady：前一个 Running 且 Ready 后才创建下一个）。",
        )
    return (
        f"The StatefulSet controller counts {have} of {wanted} replicas for {what}: it creates {names} "
        "at once (Parallel).",
        f"StatefulSet 控制器统计 {what} 现有 {have} 个副本，少于定义的 {wanted} 个："
        f"同时创建 {names}（Parallel）。",
    )


def stateful_pod_deleted(sts: dict, pod: str, why: str) -> tuple[str, str]:
    """Why the StatefulSet controller deleted one of its pods (the pod's trace ends with this)."""
    name = sts["metadata"]["name"]
    if why == "update":
        return (
            f"StatefulSet {name} deleted {pod} to recreate it from the new template (rolling update, "
            "highest ordinal first)",
            f"StatefulSet {name} 删除了 {pod}，以新模板重建它（滚动更新，从最大序号开始）",
        )
    if why == "failed":
        return (
            f"StatefulSet {name} deleted {pod}: it had finished, and the same name is created again",
            f"StatefulSet {name} 删除了 {pod}：它已结束，将以相同名字重新创建",
        )
    return (
        f"StatefulSet {name} deleted {pod}: spec.replicas went down, and the highest ordinal goes first",
        f"StatefulSet {name} 删除了 {pod}：spec.replicas 减少，序号最大的先删除",
    )


def cron_job_decided(cj: dict, created: list[str], next_run) -> tuple[str, str]:
    """Step 6 of a CronJob: what it did now, and when it runs next (on the cluster's clock)."""
    what = ref(cj)
    spec = cj.get("spec") or {}
    zone = spec.get("timeZone") or "UTC"
    if spec.get("suspend"):
        return (
            f"The CronJob controller reads {what}: it is suspended, so no Job is created until spec.suspend "
            "is false.",
            f"CronJob 控制器读取 {what}：它已暂停（suspend），在 spec.suspend 改为 false 之前不创建 Job。",
        )
    later = next_run.strftime("%H:%M:%S") if next_run is not None else "-"
    if created:
        names = ", ".join(created)
        return (
            f'The CronJob controller reads {what} (schedule "{spec.get("schedule")}", time zone {zone}): '
            f"the scheduled time has come, it creates Job {names}; the next run is at {later} UTC.",
            f'CronJob 控制器读取 {what}（schedule "{spec.get("schedule")}"，时区 {zone}）：调度时间已到，'
            f"创建 Job {names}；下一次运行在 UTC {later}。",
        )
    return (
        f'The CronJob controller reads {what} (schedule "{spec.get("schedule")}", time zone {zone}): '
        f"nothing is due now; the next run is at {later} UTC, when it creates a Job from its jobTemplate.",
        f'CronJob 控制器读取 {what}（schedule "{spec.get("schedule")}"，时区 {zone}）：现在没有到期的运行；'
        f"下一次运行在 UTC {later}，届时按 jobTemplate 创建 Job。",
    )


def cron_job_no_pod(created: list[str]) -> tuple[str, str]:
    if created:
        names = ", ".join(created)
        return (
            f"No pod for the CronJob itself: Job {names} is a new object with a flow of its own, in which "
            "the Job controller creates its pods.",
            f"CronJob 本身没有 Pod：Job {names} 是新对象，有自己的流程，由 Job 控制器在其中创建 Pod。",
        )
    return (
        "No pod now: a CronJob creates Jobs at its scheduled times, and each Job's pods have a flow of "
        "their own.",
        "现在没有 Pod：CronJob 在调度时间创建 Job，每个 Job 的 Pod 有自己的流程。",
    )


def _taint(taint: dict) -> str:
    value = taint.get("value") or ""
    return f"{taint.get('key', '')}{'=' + value if value else ''}:{taint.get('effect', '')}"


def taint_evicted(node: str, taint: dict, seconds: int | None) -> tuple[str, str]:
    """Why the taint manager deletes a pod (its trace's ending): the NoExecute taint it does not
    tolerate, or tolerated only for tolerationSeconds."""
    shown = _taint(taint)
    if seconds is None:
        return (
            f"evicted by the taint manager: node {node} has the taint {shown}, "
            "which the pod does not tolerate",
            f"被污点管理器驱逐：节点 {node} 有污点 {shown}，而该 Pod 不容忍它",
        )
    return (
        f"evicted by the taint manager: node {node} has the taint {shown}, which the pod tolerates for "
        f"{seconds}s only (tolerationSeconds)",
        f"被污点管理器驱逐：节点 {node} 有污点 {shown}，该 Pod 只容忍它 {seconds} 秒（tolerationSeconds）",
    )
