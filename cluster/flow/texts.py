"""The specific sentences recorded in a trace: each step's course text applied to this object.

Every function returns (english, chinese).
"""

from __future__ import annotations

from cluster.flow import podcontainers
from cluster.flow.watches import open_watches as registered_watches

CLIENT_NAMES = {
    "kubectl": "kubectl",
    "web": "the web form",
    "upload": "the YAML upload form",
    "api": "an API client",
}
CLIENT_NAMES_ZH = {"kubectl": "kubectl", "web": "网页表单", "upload": "YAML 上传表单", "api": "API 客户端"}
HTTP_VERBS = {
    "create": "POST",
    "apply": "POST",
    "update": "PUT",
    "patch": "PATCH",
    "scale": "PATCH",
    "delete": "DELETE",
    "preempt": "DELETE",
    "replace": "POST",
}
# The course calls etcd's ADDED/MODIFIED/DELETED events Create, Update and Delete events.
EVENT_WORDS = {
    "ADDED": ("Create", "Create"),
    "MODIFIED": ("Update", "Update"),
    "DELETED": ("Delete", "Delete"),
}

BARE_POD = (
    "A bare Pod has no controller: no ReplicationController, ReplicaSet or Deployment owns it, so "
    "the Controller Manager has no replicas to create.",
    "裸 Pod 没有控制器：没有 ReplicationController、ReplicaSet 或 Deployment 管理它，Controller Manager "
    "不需要为它创建副本。",
)


def ref(obj: dict) -> str:
    meta = obj.get("metadata") or {}
    namespace = meta.get("namespace")
    name = meta.get("name", "")
    return f"{obj.get('kind', '')} {namespace}/{name}" if namespace else f"{obj.get('kind', '')} {name}"


def open_watches(cluster_name: str, revision: int) -> tuple[str, str]:
    watches = registered_watches(cluster_name)
    if not watches:
        return (
            "No control plane runs in this process right now: the Controller Manager, the Scheduler "
            f"and the kubelets will list the state and watch the event log from revision {revision} "
            "when they start.",
            "此进程中暂无控制平面组件运行：Controller Manager、Scheduler 和 kubelet 启动后会先 List 当前"
            f"状态，再从 revision {revision} 开始 Watch 事件日志。",
        )
    en, zh = [], []
    for watch in watches:
        who = f"kubelet on {watch.node}" if watch.node else watch.component
        who_zh = f"{watch.node} 上的 kubelet" if watch.node else watch.component
        port = f" over {watch.port}" if watch.port else ""
        port_zh = f"（通过 {watch.port} 端口）" if watch.port else ""
        en.append(f"{who} watches {watch.resources}{port} from revision {watch.revision}")
        zh.append(f"{who_zh}{port_zh}从 revision {watch.revision} 起监听 {watch.resources}")
    return "Open watches: " + "; ".join(en) + ".", "已打开的 Watch：" + "；".join(zh) + "。"


def request_sent(actor, client: str, verb: str, event) -> tuple[str, str]:
    method = HTTP_VERBS.get(verb, verb.upper())
    client_zh = actor.detail or CLIENT_NAMES_ZH.get(actor.client, actor.client)
    what = ref(event.object)
    if verb == "preempt":
        why_en, why_zh = actor.reason or ("", "")
        return (
            f"The Scheduler sends DELETE (preempt) for {what} to the APIServer: {why_en}.",
            f"Scheduler 向 APIServer 发送 DELETE（preempt）请求：{what}；{why_zh}。",
        )
    if verb == "evict":
        # kubectl drain (and kubectl evict) POST an Eviction; the APIServer deletes the pod.
        name = ((event.object or {}).get("metadata") or {}).get("name", "")
        return (
            f"{client} sends POST pods/{name}/eviction (evict) for {what} to the APIServer, which "
            "checks the PodDisruptionBudgets before it deletes the pod.",
            f"{client_zh} 向 APIServer 发送 POST pods/{name}/eviction（evict）请求：{what}；APIServer 先检查 "
            "PodDisruptionBudget，再删除该 Pod。",
        )
    return (
        f"{client} sends {method} ({verb}) for {what} to the APIServer.",
        f"{client_zh} 向 APIServer 发送 {method}（{verb}）请求：{what}。",
    )


def object_stored(event) -> tuple[str, str]:
    what = ref(event.object)
    code = {"ADDED": "201 Created", "DELETED": "200 OK"}.get(event.type, "200 OK")
    grace = ((event.object or {}).get("metadata") or {}).get("deletionGracePeriodSeconds")
    if event.type == "MODIFIED" and grace:
        return (
            f"The APIServer marked {what} for deletion in etcd at revision {event.revision} "
            f"(deletionTimestamp, a {grace} s grace period) and answered {code}; its kubelet stops the "
            "containers, then removes it.",
            f"APIServer 在 revision {event.revision} 把 {what} 标记为删除（deletionTimestamp，"
            f"宽限期 {grace} 秒），并返回 {code}；由它的 kubelet 停止容器后再删除它。",
        )
    if event.type == "DELETED":
        return (
            f"The APIServer removed {what} from etcd at revision {event.revision} and answered {code}.",
            f"APIServer 在 revision {event.revision} 从 etcd 中删除了 {what}，并返回 {code}。",
        )
    return (
        f"The APIServer validated {what} and stored it in etcd at revision {event.revision} "
        f'(resourceVersion "{event.revision}"), then answered {code}.',
        f"APIServer 校验 {what} 后将其存入 etcd，revision 为 {event.revision}"
        f'（resourceVersion "{event.revision}"），随后向客户端返回 {code}。',
    )


def _article(word: str) -> str:
    return "an" if word[0] in "AEIOU" else "a"


def event_sent(event) -> tuple[str, str]:
    word, _ = EVENT_WORDS[event.type]
    what = ref(event.object)
    return (
        f"etcd sends {_article(word)} {word} event ({event.type}, revision {event.revision}) for {what} "
        "to the APIServer.",
        f"etcd 向 APIServer 发送 {what} 的 {word} 事件（{event.type}，revision {event.revision}）。",
    )


def node_name_bypass(node: str) -> tuple[str, str]:
    return (
        f"The Pod was created with spec.nodeName={node}, which bypasses the Scheduler (the course's "
        "nodeName method): there is no scheduling and no binding; its Create event already names the node.",
        f"该 Pod 创建时就带有 spec.nodeName={node}，跳过了 Scheduler 的调度策略（nodeName 方法）："
        "没有调度也没有绑定，它的 Create 事件里已经写明了节点。",
    )


def image_changed(node: str) -> tuple[str, str]:
    return (
        f"The Pod is already bound to {node}: no controller creates a replica and the Scheduler does not "
        "place it again; only the kubelet acts, pulling the new image and restarting the container.",
        f"该 Pod 已绑定到 {node}：不需要控制器创建副本，Scheduler 也不会重新调度；只有 kubelet 行动，"
        "自动获取最新的镜像文件并重启容器。",
    )


def pod_stored(pod: dict, event) -> tuple[tuple[str, str], tuple[str, str]]:
    images = ", ".join(c.get("image", "") for c in (pod.get("spec") or {}).get("containers") or [])
    what = ref(pod)
    return (
        (
            f"The APIServer stored {what} (containers: {images}) in etcd at revision {event.revision}.",
            f"APIServer 在 etcd 中记录了 {what}（容器镜像：{images}），revision {event.revision}。",
        ),
        (
            f"etcd sends the Create event (ADDED, revision {event.revision}) for {what} to the APIServer; "
            "its spec.nodeName is still empty.",
            f"etcd 将 {what} 的 Create 事件（ADDED，revision {event.revision}）发送给 APIServer；此时它的 "
            "spec.nodeName 仍为空。",
        ),
    )


def binding_landed(pod: dict, event) -> tuple[str, str]:
    node = (pod.get("spec") or {}).get("nodeName", "")
    what = ref(pod)
    return (
        f"etcd sends the Update event (MODIFIED, revision {event.revision}): {what} now has "
        f"spec.nodeName={node}; the APIServer reflects the scheduling result.",
        f"etcd 发送更新成功事件（MODIFIED，revision {event.revision}）：{what} 的 spec.nodeName={node}，"
        "APIServer 开始反映调度结果。",
    )


def status_stored(pod: dict, event, node: str) -> tuple[str, str]:
    status = pod.get("status") or {}
    phase = status.get("phase", "")
    waiting = [
        (s.get("state") or {}).get("waiting", {}).get("reason")
        for s in status.get("containerStatuses") or []
        if (s.get("state") or {}).get("waiting")
    ]
    shown = f"{phase} ({', '.join(waiting)})" if waiting else phase
    ip = status.get("podIP", "")
    where = f", podIP {ip}" if ip else ""
    containers_en, containers_zh = podcontainers.results(pod)
    return (
        f"The APIServer stored {ref(pod)}'s status (phase {shown}{where}) in etcd at revision "
        f"{event.revision} and acknowledged it to the kubelet on {node}.{containers_en}",
        f"APIServer 将 {ref(pod)} 的状态（phase {shown}{where}）存入 etcd（revision {event.revision}），"
        f"并向 {node} 上的 kubelet 确认。{containers_zh}",
    )


# -- how a trace ends (its ending entry, step 0) ------------------------------------------------
ENDING_TITLES = {
    "completed": ("The trace reached its goal", "流程已完成"),
    "failed": ("The trace ended in a failure", "流程以失败结束"),
    "deleted": ("Deleted by {by}", "被 {by} 删除"),
}


def ending_title(outcome: str, by: str) -> tuple[str, str]:
    en, zh = ENDING_TITLES[outcome]
    return en.format(by=by), zh.format(by=by)


def named(kind: str, namespace: str, name: str) -> str:
    return f"{kind} {namespace}/{name}" if namespace else f"{kind} {name}"


def pod_reported(kind: str, namespace: str, name: str, node: str, failed: bool) -> tuple[str, str]:
    what = named(kind, namespace, name)
    if failed:
        return (
            f"{what} cannot start: the kubelet on {node} reported the failure (step 13) and keeps "
            "retrying with back-off, outside this trace.",
            f"{what} 无法启动：{node} 上的 kubelet 报告了失败（第 13 步），之后会按退避策略继续重试，"
            "不再属于本流程。",
        )
    return (
        f"{what} reached its goal: the kubelet on {node} reported its status (step 13).",
        f"{what} 已完成：{node} 上的 kubelet 报告了它的状态（第 13 步）。",
    )


def pods_replaced(
    kind: str, namespace: str, name: str, old: list[str], new: tuple | None, node: str, done: int
) -> tuple[str, str]:
    """A controller's replacement story reached its goal (cluster/flow/replacements.py)."""
    what = named(kind, namespace, name)
    gone = ", ".join(old) or "?"
    if done == 1 and new:
        return (
            f"{what} replaced {gone}: its new pod {new[2]} runs on {node} (its kubelet reported step 13).",
            f"{what} 替换了 {gone}：新的 Pod {new[2]} 在 {node} 上运行（其 kubelet 报告了第 13 步）。",
        )
    return (
        f"{what} replaced {gone}: its {done} new pods run (their kubelets reported step 13).",
        f"{what} 替换了 {gone}：{done} 个新的 Pod 已运行（它们的 kubelet 报告了第 13 步）。",
    )


def pods_reported(kind: str, namespace: str, name: str, done: int, gone: int) -> tuple[str, str]:
    what = named(kind, namespace, name)
    early = f"; {gone} deleted before they started" if gone else ""
    early_zh = f"；{gone} 个在启动前被删除" if gone else ""
    return (
        f"{what}'s trace reached its goal: every pod it created is accounted for ({done} reported by "
        f"their kubelets{early}).",
        f"{what} 的流程已完成：它创建的每个 Pod 都有了结果（{done} 个由 kubelet 报告状态{early_zh}）。",
    )


def nothing_to_do(kind: str, namespace: str, name: str, why_en: str, why_zh: str) -> tuple[str, str]:
    what = named(kind, namespace, name)
    return f"{what}'s trace ends after step 6. {why_en}", f"{what} 的流程在第 6 步后结束。{why_zh}"


def deleted_by_user(client: str, client_zh: str, kind: str, namespace: str, name: str, at: int):
    what = named(kind, namespace, name)
    return (
        f"{client} deleted {what} at step {at}, before it reached its goal; the rest of its steps "
        "will not happen.",
        f"{client_zh} 在第 {at} 步时删除了 {what}，它还没有完成；后面的步骤不会再发生。",
    )


def deleted_by_collector(owner: str, kind: str, namespace: str, name: str) -> tuple[str, str]:
    what = named(kind, namespace, name)
    return (
        f"The garbage collector deleted {what}: its owner {owner} was deleted.",
        f"垃圾回收器删除了 {what}：它的属主 {owner} 已被删除。",
    )


def deleted_by_other(by: str, kind: str, namespace: str, name: str) -> tuple[str, str]:
    what = named(kind, namespace, name)
    return f"{by} deleted {what} before it reached its goal.", f"{by} 在 {what} 完成前删除了它。"


def failed_create(what: str, message: str) -> tuple[str, str]:
    return (
        f"{what} cannot create its pods: {message}",
        f"{what} 无法创建 Pod：{message}",
    )
