"""The StorageObjectInUseProtection admission plugin (plugin/pkg/admission/storage/
storageobjectinuseprotection, v1.33): every new PersistentVolumeClaim gets the
`kubernetes.io/pvc-protection` finalizer and every new PersistentVolume `kubernetes.io/pv-protection`,
so neither goes while in use; their controllers (cluster/controllers/volumeprotection.py) remove
them when it is not."""

from __future__ import annotations

from cluster.apiserver.admission import chain

PVC_PROTECTION = "kubernetes.io/pvc-protection"
PV_PROTECTION = "kubernetes.io/pv-protection"
FINALIZERS = {"PersistentVolumeClaim": PVC_PROTECTION, "PersistentVolume": PV_PROTECTION}


def admit(cluster, kind: str, body: dict) -> None:
    finalizer = FINALIZERS.get(kind)
    meta = body.get("metadata")
    if finalizer is None or not isinstance(meta, dict):
        return
    present = meta.get("finalizers")
    if not isinstance(present, list):
        present = []
    if finalizer not in present:
        meta["finalizers"] = [*present, finalizer]


def install() -> None:
    chain.register_mutating(admit)
