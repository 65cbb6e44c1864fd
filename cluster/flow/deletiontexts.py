"""The sentences of a pod's deletion story (a user's delete, an eviction, a preemption).

Every function returns (english, chinese); titles are (english, chinese) too.
"""

from __future__ import annotations

from cluster.flow.steps import KUBELET_PORT
from cluster.flow.texts import named

VERBS = ("delete", "evict", "preempt")

MARKED_TITLE = ("APIServer marks the Pod for deletion", "APIServer 将 Pod 标记为删除")
CHECKED_TITLE = ("APIServer checks the budget, marks the Pod", "APIServer 检查 PDB 并标记 Pod")
REMOVED_AT_ONCE_TITLE = ("APIServer removes the Pod from etcd", "APIServer 从 etcd 中删除 Pod")
STOPPING_TITLE = ("kubelet stops the containers", "kubelet 停止容器")
GONE_TITLE = ("APIServer removes the Pod from etcd", "APIServer 从 etcd 中删除 Pod")


def budget_checked(budget: tuple[str, ...] | None) -> tuple[str, str]:
    """What the eviction's PodDisruptionBudget check found (cluster/apiserver/eviction.py)."""
    if not budget:
        return "", ""
    if budget[0] == "spent":
        name, left = budget[1], budget[2]
        return (
            f"PodDisruptionBudget {name} allows the disruption ({left} more allowed now; the pod is "
            "counted in its disruptedPods).",
            f"PodDisruptionBudget {name} 允许这次中断（现在还允许 {left} 次；该 Pod 记入其 disruptedPods）。",
        )
    if budget[0] == "spare":
        return (
            f"PodDisruptionBudget {budget[1]} is not asked: the pod is not Ready and the budget has the "
            "healthy pods it needs.",
            f"不需要询问 PodDisruptionBudget {budget[1]}：该 Pod 未就绪，而预算已有足够的健康 Pod。",
        )
    if budget[0] == "ignored":
        return (
            f"The pod is {budget[1]}: it is deleted without asking a PodDisruptionBudget.",
            f"该 Pod 处于 {budget[1]} 状态：无需询问 PodDisruptionBudget 即可删除。",
        )
    return (
        "No PodDisruptionBudget selects the pod: the eviction is allowed.",
        "没有 PodDisruptionBudget 选中该 Pod：允许驱逐。",
    )


def not_for_controllers(owner: dict | None) -> tuple[str, str]:
    """Why steps 5–11 do not apply to a deletion."""
    en = (
        "Removing a pod is not the Controller Manager's or the Scheduler's work: its kubelet stops "
        "it, then the APIServer removes it."
    )
    zh = "删除 Pod 不需要 Controller Manager 或 Scheduler：由它的 kubelet 停止它，再由 APIServer 删除它。"
    if owner:
        what = f"{owner.get('kind', '')} {owner.get('name', '')}"
        return (
            f"{en} Its controller {what} creates a replacement in a trace of its own.",
            f"{zh}它的控制器 {what} 会在另一个流程中创建替代的 Pod。",
        )
    return (
        f"{en} A bare pod has no controller: nothing replaces it.",
        f"{zh}裸 Pod 没有控制器：不会有替代的 Pod。",
    )


def stopping(node: str, containers: list[str], stop_seconds: float, grace: int) -> tuple[str, str]:
    """Step 12 of a deletion: the kubelet saw the deletionTimestamp and stops the containers."""
    if not containers:
        return (
            f"The kubelet on {node} sees the deletionTimestamp (over {KUBELET_PORT}); no container runs, "
            "so it removes the pod at once.",
            f"{node} 上的 kubelet 看到了 deletionTimestamp（通过 {KUBELET_PORT}）；没有运行中的容器，"
            "所以它立即删除该 Pod。",
        )
    names = ", ".join(containers)
    took = f"{stop_seconds:g} s"
    return (
        f"The kubelet on {node} sees the deletionTimestamp (over {KUBELET_PORT}) and stops {names} "
        f"(Killing: SIGTERM), then waits for them to exit: {took} here, at most the {grace} s grace "
        "period. Meanwhile kubectl get pods reads Terminating.",
        f"{node} 上的 kubelet 看到了 deletionTimestamp（通过 {KUBELET_PORT}），"
        f"停止 {names}（Killing：SIGTERM），等待它们退出：这里用了 {took}，最多为 {grace} 秒的宽限期。"
        "此时 kubectl get pods 显示 Terminating。",
    )


def gone(what: str, node: str, revision: int) -> tuple[str, str]:
    """Step 13 of a deletion: the kubelet's final DELETE landed."""
    return (
        f"The kubelet on {node} sent DELETE with grace period 0 (the pod's uid as its precondition); "
        f"the APIServer removed {what} from etcd at revision {revision} and sent its Delete event "
        "(DELETED) to the watchers.",
        f"{node} 上的 kubelet 发送了宽限期为 0 的 DELETE（以 Pod 的 uid 为前提条件）；APIServer 在 revision "
        f"{revision} 从 etcd 中删除了 {what}，并把 Delete 事件（DELETED）发送给各个 Watch。",
    )


def removed_at_once(why_en: str, why_zh: str) -> tuple[str, str]:
    return (
        f"No kubelet has containers of it to stop: {why_en}",
        f"没有 kubelet 需要为它停止容器：{why_zh}",
    )


AT_ONCE = (
    "the APIServer removed it at once (never on a node, already finished, or grace period 0).",
    "APIServer 立即删除了它（从未调度到节点、已经结束，或宽限期为 0）。",
)


def ending_title(verb: str, node: str, grace: int, preemptor: str = "") -> tuple[str, str]:
    where = f" from {node}" if node else ""
    where_zh = f"从 {node} " if node else ""
    if verb == "evict":
        return f"Evicted{where} (grace {grace} s)", f"已{where_zh}驱逐（宽限期 {grace} 秒）"
    if verb == "preempt":
        by = f" by {preemptor}" if preemptor else ""
        by_zh = f"被 {preemptor} " if preemptor else "被"
        return (
            f"Preempted{by}, gone{where} (grace {grace} s)",
            f"{by_zh}抢占，已{where_zh}移除（宽限期 {grace} 秒）",
        )
    return f"Deleted{where} (grace {grace} s)", f"已{where_zh}删除（宽限期 {grace} 秒）"


def ending_detail(
    kind: str,
    namespace: str,
    name: str,
    asked: tuple[str, str],
    why: tuple[str, str] | None,
    owner: dict | None,
) -> tuple[str, str]:
    """`asked`: who asked, (english, chinese)."""
    what = named(kind, namespace, name)
    reason_en = f" ({why[0]})" if why and why[0] else ""
    reason_zh = f"（{why[1]}）" if why and why[1] else ""
    en = f"{what} is gone: {asked[0]} asked for it{reason_en}."
    zh = f"{what} 已被删除：由 {asked[1]} 发起{reason_zh}。"
    if owner:
        what_owner = f"{owner.get('kind', '')} {owner.get('name', '')}"
        en += f" Its controller {what_owner} replaces it in a trace of its own."
        zh += f"它的控制器 {what_owner} 在另一个流程中创建替代的 Pod。"
    return en, zh
