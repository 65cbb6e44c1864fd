"""VolumeBinding's Reserve and PreBind in the live scheduler (upstream's AssumePodVolumes and
BindPodVolumes): for the node a cycle chose, the volumes FindPodVolumes matched are bound to
their claims (the PV's `spec.claimRef`) and the claims to provision are given the node
(`volume.kubernetes.io/selected-node`); the PV controller (`cluster/controllers/persistentvolume.py`)
completes the binding and provisions. Reserve updates the scheduler's own copies at once, so the
next pod of a burst does not pick the same volume.

KubeSim's PreBind does not wait for the PV controller to finish before binding the pod (upstream
waits up to bindTimeoutSeconds); the controller completes it within the same pass.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from k8s.volumes import BOUND_BY_CONTROLLER, SELECTED_NODE, claim_ref
from scheduler.engine.plugins.volumebinding import binder
from scheduler.engine.podinfo import PodInfo

MERGE_PATCH = "application/merge-patch+json"


@dataclass(slots=True)
class Plan:
    node: str
    static: list[tuple[dict, dict]]  # (claim, PV) to bind
    provision: list[dict]  # claims to provision on `node`


def reserve(snapshot, pod: dict, node: str) -> Plan | None:
    """AssumePodVolumes: what binding the pod to `node` needs, assumed in the snapshot's copies."""
    info = PodInfo.of(pod)
    node_info = snapshot.get(node)
    if node_info is None or not binder.claim_names(info):
        return None
    storage = snapshot.storage
    try:
        claims = binder.PodClaims.of(binder.pod_claims(info, storage), storage)
    except binder.ClaimError:
        return None
    found = binder.find_pod_volumes(claims, node_info, storage)
    if not found.static and not found.provision:
        return None
    for claim, pv in found.static:
        assumed = copy.deepcopy(pv)
        assumed["spec"]["claimRef"] = claim_ref(claim)
        assumed["metadata"].setdefault("annotations", {})[BOUND_BY_CONTROLLER] = "yes"
        storage.upsert(assumed)
    for claim in found.provision:
        assumed = copy.deepcopy(claim)
        assumed["metadata"].setdefault("annotations", {})[SELECTED_NODE] = node
        storage.upsert(assumed)
    return Plan(node, found.static, found.provision)


def pre_bind(cluster, plan: Plan, actor) -> None:
    """BindPodVolumes' API updates (in the database thread, before the pod's binding)."""
    for claim, pv in plan.static:
        patch = {
            "metadata": {"annotations": {BOUND_BY_CONTROLLER: "yes"}},
            "spec": {"claimRef": claim_ref(claim)},
        }
        try:
            api.patch(cluster, "PersistentVolume", None, pv["metadata"]["name"], patch, MERGE_PATCH, actor)
        except ApiError:
            continue  # gone or changed meanwhile: the PV controller and the next attempt sort it out
    for claim in plan.provision:
        meta = claim["metadata"]
        patch = {"metadata": {"annotations": {SELECTED_NODE: plan.node}}}
        try:
            api.patch(
                cluster,
                "PersistentVolumeClaim",
                meta.get("namespace"),
                meta["name"],
                patch,
                MERGE_PATCH,
                actor,
            )
        except ApiError:
            continue
