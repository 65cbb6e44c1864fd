"""VolumeBinding's plain-language explanations, in English and Simplified Chinese."""

from __future__ import annotations

from k8s.volumes import access_modes_text, claim_class
from scheduler.engine.framework import Why


def _claim(claim: dict) -> str:
    meta = claim.get("metadata") or {}
    return f"{meta.get('namespace', '')}/{meta.get('name', '')}"


def _wanted(claim: dict) -> str:
    spec = claim.get("spec") or {}
    storage = ((spec.get("resources") or {}).get("requests") or {}).get("storage", "0")
    return f"{storage}, {access_modes_text(spec.get('accessModes')) or 'no access mode'}"


def claim_problem(message: str) -> Why:
    return Why(
        f"{message}: a pod is only scheduled once every PersistentVolumeClaim it mounts exists and is "
        "usable, so it stays Pending on every node.",
        f"{message}：只有 Pod 挂载的每个 PersistentVolumeClaim 都存在且可用时才会调度它，"
        "因此它在所有节点上都保持 Pending。",
    )


def _class_text(claim: dict) -> str:
    return claim_class(claim) or '""'


def unbound_immediate(claims: list[dict]) -> Why:
    names = ", ".join(f"{_claim(c)} (class {_class_text(c)})" for c in claims)
    return Why(
        f"Claim {names} is not bound yet, and its binding mode is Immediate (or it has no class): the PV "
        "controller binds such a claim before any pod may use it, and found no volume for it. Create a "
        "matching PersistentVolume, or use a class that provisions volumes.",
        f"声明 {names} 尚未绑定，且其绑定模式为 Immediate（或没有 StorageClass）："
        "这种声明须先由 PV 控制器绑定，Pod 才能使用它，而控制器没有找到合适的卷。"
        "请创建匹配的 PersistentVolume，或使用能自动供应卷的 StorageClass。",
    )


def no_claims() -> Why:
    return Why(
        "The pod mounts no PersistentVolumeClaim, so there is no volume to bind.",
        "Pod 没有挂载 PersistentVolumeClaim，无需绑定卷。",
    )


def narrowed(nodes: list[str]) -> Why:
    return Why(
        f"PreFilter: the pod's bound local volumes can only be used on {nodes}; this node was never "
        "considered.",
        f"PreFilter：Pod 已绑定的本地卷只能在 {nodes} 上使用，该节点根本不参与过滤。",
    )


def node_conflict(claim: dict, volume: str) -> Why:
    return Why(
        f"Claim {_claim(claim)} is bound to PersistentVolume {volume}, whose spec.nodeAffinity does not "
        "admit {node}: the data lives elsewhere, so the pod cannot run here.",
        f"声明 {_claim(claim)} 已绑定到 PersistentVolume {volume}，其 spec.nodeAffinity 不允许节点 "
        "{node}：数据在别处，Pod 不能在这里运行。",
    )


def pv_missing(claim: dict, volume: str) -> Why:
    return Why(
        f"Claim {_claim(claim)} is bound to PersistentVolume {volume}, which does not exist.",
        f"声明 {_claim(claim)} 绑定的 PersistentVolume {volume} 不存在。",
    )


def selected_elsewhere(claim: dict, chosen: str) -> Why:
    return Why(
        f"Claim {_claim(claim)} is already being provisioned for node {chosen} "
        "(annotation volume.kubernetes.io/selected-node), not for {node}.",
        f"声明 {_claim(claim)} 已在为节点 {chosen} 供应卷（注解 volume.kubernetes.io/selected-node），"
        "而不是为节点 {node}。",
    )


def no_volume(claim: dict, sc: dict | None, topology: bool = False) -> Why:
    cls = claim_class(claim)
    wanted = _wanted(claim)
    if topology:
        cannot = (
            f"class {cls}'s allowedTopologies exclude {{node}}",
            f"StorageClass {cls} 的 allowedTopologies 不包含节点 {{node}}",
        )
    else:
        provisioner = (sc or {}).get("provisioner") or ""
        cannot = (
            f"class {cls} cannot provision one (provisioner {provisioner})",
            f"StorageClass {cls} 无法自动供应（provisioner 为 {provisioner}）",
        )
    return Why(
        f"No Available PersistentVolume of class {cls} fits claim {_claim(claim)} ({wanted}) on {{node}} "
        f"(capacity, access modes, selector and the volume's node affinity must all fit), and {cannot[0]}.",
        f"节点 {{node}} 上没有 StorageClass 为 {cls} 的 Available PersistentVolume 满足声明 "
        f"{_claim(claim)}（{wanted}；容量、访问模式、选择器和卷的节点亲和性都须满足），且{cannot[1]}。",
    )
