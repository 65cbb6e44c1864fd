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
