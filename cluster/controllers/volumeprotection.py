"""The PVC and PV protection controllers (upstream `pkg/controller/volume/pvcprotection` and
`pvprotection`, v1.33), run by the controller manager on its informer: a claim being deleted
keeps its `kubernetes.io/pvc-protection` finalizer while a pod scheduled to a node names it in
`spec.volumes` (so it stays Terminating until that pod is gone); a volume being deleted keeps
`kubernetes.io/pv-protection` while it is Bound. When unused, the finalizer is removed and the
object goes (cluster/apiserver/finalizers.py)."""

from __future__ import annotations

from cluster.apiserver import finalizers
from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.admission.storageprotection import PV_PROTECTION, PVC_PROTECTION
from cluster.apiserver.errors import ApiError
from cluster.flow.writers import COMPONENT

MERGE = "application/merge-patch+json"
PVC_ACTOR = Actor("controller-manager", "pvc-protection-controller", flow=COMPONENT)
PV_ACTOR = Actor("controller-manager", "pv-protection-controller", flow=COMPONENT)


def uses(pod: dict, namespace: str, claim: str) -> bool:
    """podUsesPVC: only a scheduled pod counts (the kubelet starts no pod whose claim is being
    deleted)."""
    meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
    if meta.get("namespace") != namespace or not spec.get("nodeName"):
        return False
    return any(
        ((volume or {}).get("persistentVolumeClaim") or {}).get("claimName") == claim
        for volume in spec.get("volumes") or []
    )


def _deleting(obj: dict, finalizer: str) -> bool:
    return bool((obj.get("metadata") or {}).get("deletionTimestamp")) and finalizer in finalizers.of(obj)


class VolumeProtectionController:
    def __init__(self, host) -> None:
        self.host = host
        self.dirty = False

    def observe(self, kind: str) -> None:
        if kind in ("PersistentVolumeClaim", "PersistentVolume", "Pod"):
            self.dirty = True

    def due(self) -> bool:
        return self.dirty

    def sync_all(self) -> int:
        """Release every claim and volume being deleted that nothing uses; how many."""
        self.dirty = False
        store = self.host.informer.store
        if "PersistentVolumeClaim" not in store:
            return 0
        claims = [c for c in store["PersistentVolumeClaim"].values() if _deleting(c, PVC_PROTECTION)]
        pods = list(store["Pod"].values()) if claims else []
        released = 0
        for claim in claims:
            meta = claim["metadata"]
            if not any(uses(pod, meta.get("namespace", ""), meta["name"]) for pod in pods):
                released += self._release(claim, PVC_PROTECTION, PVC_ACTOR)
        for pv in store["PersistentVolume"].values():
            if _deleting(pv, PV_PROTECTION) and (pv.get("status") or {}).get("phase") != "Bound":
                released += self._release(pv, PV_PROTECTION, PV_ACTOR)
        return released

    def _release(self, obj: dict, finalizer: str, actor: Actor) -> int:
        meta = obj["metadata"]
        kept = [f for f in finalizers.of(obj) if f != finalizer]
        patch = {"metadata": {"finalizers": kept or None, "resourceVersion": meta.get("resourceVersion")}}
        try:
            api.patch(
                self.host.cluster, obj["kind"], meta.get("namespace"), meta["name"], patch, MERGE, actor
            )
        except ApiError:
            return 0  # changed meanwhile (the informer brings it again) or gone
        return 1
