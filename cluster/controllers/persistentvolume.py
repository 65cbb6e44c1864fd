"""The PV controller (upstream `pkg/controller/volume/persistentvolume`, v1.33) and KubeSim's
simulated provisioner, run by the controller manager on its informer.

- A claim without a volume is matched with the smallest Available volume of its class that fits
  (k8s/volumes.py `find_matching_volume`) and bound: the volume's `spec.claimRef` and phase Bound,
  the claim's `spec.volumeName`, `pv.kubernetes.io/bind-completed` and phase Bound with the
  volume's capacity and access modes. A claim of a WaitForFirstConsumer class waits for the
  scheduler (the `volume.kubernetes.io/selected-node` annotation or a PV's claimRef it set).
- Nothing fits: a class of the simulated provisioner provisions a volume (`pvc-<claim uid>`,
  a hostPath on the selected node), any other provisioner is left to an external provisioner that
  KubeSim does not run, `kubernetes.io/no-provisioner` (or another in-tree name) fails, and a
  claim without a class waits for a volume, each with upstream's event.
- A volume whose claim is gone is Released; the Delete policy then deletes it, Retain keeps it.
  Recycle is not simulated (kept Released, as Retain).
- A bound claim that asks for more storage (admission lets it when its class allows expansion)
  has its simulated volume resized at once; any other volume waits for an external resizer.
"""

from __future__ import annotations

import copy

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.kinds.storage.storageclass import SIMULATED_PROVISIONER
from k8s.volumes import (
    BETA_STORAGE_PROVISIONER,
    BIND_COMPLETED,
    BOUND_BY_CONTROLLER,
    PROVISIONED_BY,
    SELECTED_NODE,
    STORAGE_PROVISIONER,
    WAIT_FOR_FIRST_CONSUMER,
    claim_class,
    claim_ref,
    find_matching_volume,
    is_bound_to_claim,
    requested,
    size,
)

COMPONENT = "persistentvolume-controller"
MERGE_PATCH = "application/merge-patch+json"
KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass")
HOST_PATH_ROOT = "/var/local-path-provisioner"
EXTERNAL_EXPANDING = (
    "Ignoring the PVC: didn't find a plugin capable of expanding the volume; waiting for an external "
    "controller to process this PVC."
)
EXTERNAL_WAIT = (
    "Waiting for a volume to be created either by the external provisioner '{}' or manually by the system "
    "administrator. If volume creation is delayed, please verify that the provisioner is running and "
    "correctly registered."
)


def _meta(obj: dict) -> dict:
    return obj.get("metadata") or {}


def _annotations(obj: dict) -> dict:
    return _meta(obj).get("annotations") or {}


class PersistentVolumeController:
    def __init__(self, host) -> None:
        self.host = host
        self.dirty = False
        self.said: dict[str, tuple[str, str]] = {}  # claim uid -> the last (reason, message) it got

    # -- what the manager tells it ------------------------------------------------------------
    def observe(self, kind: str) -> None:
        """Any claim, volume or class changed, or a pod (the claims' "waiting for pod" events)."""
        if kind in KINDS or kind == "Pod":
            self.dirty = True

    def due(self) -> bool:
        return self.dirty

    # -- database thread -------------------------------------------------------------------
    def sync_all(self) -> int:
        """syncClaim for every claim, then syncVolume for every volume; the work done."""
        self.dirty = False
        store = self.host.informer.store
        if "PersistentVolumeClaim" not in store:
            return 0
        claims = sorted(
            store["PersistentVolumeClaim"].values(),
            key=lambda c: (_meta(c).get("creationTimestamp") or "", _meta(c).get("name", "")),
        )
        for claim in claims:
            self._sync_claim(claim)
        for pv in sorted(store["PersistentVolume"].values(), key=lambda v: _meta(v).get("name", "")):
            self._sync_volume(pv)
        return len(claims)

    # -- claims --------------------------------------------------------------------------------
    def _volumes(self) -> list[dict]:
        return list(self.host.informer.store["PersistentVolume"].values())

    def _class(self, name: str) -> dict | None:
        return self.host.informer.get("StorageClass", "", name) if name else None

    def _sync_claim(self, claim: dict) -> None:
        if _meta(claim).get("deletionTimestamp"):
            return
        name = (claim.get("spec") or {}).get("volumeName") or ""
        if name:
            self._sync_bound_claim(claim, name)
            return
        sc = self._class(claim_class(claim))
        delay = sc is not None and sc.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER
        pv = find_matching_volume(claim, self._volumes(), None, delay_binding=delay)
        if pv is not None:
            self._bind(pv, claim)
            return
        selected = _annotations(claim).get(SELECTED_NODE)
        if delay and not selected:
            self._wait_for_consumer(claim)
        elif claim_class(claim):
            self._provision(claim, sc, selected)
        else:
            self._say(
                claim,
                "FailedBinding",
                "no persistent volumes available for this claim and no storage class is set",
            )

    def _sync_bound_claim(self, claim: dict, name: str) -> None:
        pv = self.host.informer.get("PersistentVolume", "", name)
        if pv is None:
            if (claim.get("status") or {}).get("phase") == "Bound":
                self._claim_status(claim, "Lost", None)
                self._say(
                    claim,
                    "ClaimLost",
                    "Bound claim has lost its PersistentVolume. Data on the volume is lost!",
                    "Warning",
                )
            return
        if is_bound_to_claim(pv, claim) or (pv.get("spec") or {}).get("claimRef") is None:
            self._bind(pv, claim)
            self._resize(name)
        # else: the volume is bound to another claim; the claim waits (upstream: "ClaimMisbound")

    def _resize(self, pv_name: str) -> None:
        """The expand controller and the simulated provisioner's resizer: a bound claim asking for
        more than its capacity gets it when its volume is the simulated provisioner's."""
        pv = self.host.informer.get("PersistentVolume", "", pv_name)
        claim = self._claim_of(pv) if pv is not None else None
        if claim is None or (claim.get("status") or {}).get("phase") != "Bound":
            return
        wanted = ((claim.get("spec") or {}).get("resources") or {}).get("requests", {}).get("storage")
        if wanted is None or requested(claim) <= size(
            ((claim.get("status") or {}).get("capacity") or {}).get("storage")
        ):
            return
        if _annotations(pv).get(PROVISIONED_BY) != SIMULATED_PROVISIONER:
            self._say(claim, "ExternalExpanding", EXTERNAL_EXPANDING, "Warning")
            return
        source = f"external-resizer {SIMULATED_PROVISIONER}"
        self._event(claim, "Resizing", f"External resizer is resizing volume {pv_name}", source=source)
        pv = self._patch(pv, {"spec": {"capacity": {"storage": wanted}}})
        if pv is None:
            return
        self._claim_status(claim, "Bound", pv)
        self._event(claim, "VolumeResizeSuccessful", "Resize volume succeeded", source=source)

    def _claim_of(self, pv: dict) -> dict | None:
        ref = (pv.get("spec") or {}).get("claimRef") or {}
        return self.host.informer.get(
            "PersistentVolumeClaim", ref.get("namespace") or "", ref.get("name") or ""
        )

    def _wait_for_consumer(self, claim: dict) -> None:
        """emitEventForUnboundDelayBindingClaim."""
        name = _meta(claim).get("name", "")
        namespace = _meta(claim).get("namespace", "")
        waiting = sorted(
            pod["metadata"]["name"]
            for (pod_namespace, _), pod in self.host.informer.store["Pod"].items()
            if pod_namespace == namespace
            and not (pod.get("spec") or {}).get("nodeName")
            and any(
                (v.get("persistentVolumeClaim") or {}).get("claimName") == name
                for v in (pod.get("spec") or {}).get("volumes") or []
                if isinstance(v, dict)
            )
        )
        if not waiting:
            self._say(
                claim, "WaitForFirstConsumer", "waiting for first consumer to be created before binding"
            )
        elif len(waiting) == 1:
            self._say(claim, "WaitForPodScheduled", f"waiting for pod {waiting[0]} to be scheduled")
        else:
            self._say(claim, "WaitForPodScheduled", f"waiting for pods {','.join(waiting)} to be scheduled")

    def _provision(self, claim: dict, sc: dict | None, selected: str | None) -> None:
        """provisionClaim: the simulated provisioner's, an external one's, or a failure."""
        class_name = claim_class(claim)
        if sc is None:
            self._say(
                claim,
                "ProvisioningFailed",
                f'storageclass.storage.k8s.io "{class_name}" not found',
                "Warning",
            )
            return
        provisioner = sc.get("provisioner") or ""
        if provisioner.startswith("kubernetes.io/"):
            self._say(claim, "ProvisioningFailed", f"no volume plugin matched name: {provisioner}", "Warning")
            return
        if _annotations(claim).get(STORAGE_PROVISIONER) != provisioner:
            self._annotate(claim, {STORAGE_PROVISIONER: provisioner, BETA_STORAGE_PROVISIONER: provisioner})
        self._say(claim, "ExternalProvisioning", EXTERNAL_WAIT.format(provisioner))
        if provisioner == SIMULATED_PROVISIONER:
            self._simulate_provisioning(claim, sc, selected)

    def _simulate_provisioning(self, claim: dict, sc: dict, selected: str | None) -> None:
        meta = _meta(claim)
        name = f"pvc-{meta.get('uid', '')}"
        if self.host.informer.get("PersistentVolume", "", name) is not None:
            return
        source = f"{SIMULATED_PROVISIONER}_kubesim-provisioner"
        key = f"{meta.get('namespace', '')}/{meta.get('name', '')}"
        self._event(
            claim,
            "Provisioning",
            f'External provisioner is provisioning volume for claim "{key}"',
            source=source,
        )
        spec = claim.get("spec") or {}
        volume = {
            "apiVersion": "v1",
            "kind": "PersistentVolume",
            "metadata": {"name": name, "annotations": {PROVISIONED_BY: SIMULATED_PROVISIONER}},
            "spec": {
                "capacity": {
                    "storage": ((spec.get("resources") or {}).get("requests") or {}).get("storage", "0")
                },
                "accessModes": list(spec.get("accessModes") or []),
                "persistentVolumeReclaimPolicy": sc.get("reclaimPolicy") or "Delete",
                "storageClassName": claim_class(claim),
                "volumeMode": spec.get("volumeMode") or "Filesystem",
                "claimRef": claim_ref(claim),
                "hostPath": {
                    "path": f"{HOST_PATH_ROOT}/{name}_{meta.get('namespace', '')}_{meta.get('name', '')}",
                    "type": "DirectoryOrCreate",
                },
            },
        }
        if selected:
            term = {
                "matchExpressions": [
                    {"key": "kubernetes.io/hostname", "operator": "In", "values": [selected]}
                ]
            }
            volume["spec"]["nodeAffinity"] = {"required": {"nodeSelectorTerms": [term]}}
        try:
            created = api.create(self.host.cluster, volume, self._actor())
        except ApiError as err:
            self._event(
                claim,
                "ProvisioningFailed",
                f'failed to provision volume with StorageClass "{claim_class(claim)}": {err.message}',
                type_="Warning",
                source=source,
            )
            return
        self.host.informer.store["PersistentVolume"][("", name)] = created
        self._event(claim, "ProvisioningSucceeded", f"Successfully provisioned volume {name}", source=source)

    # -- binding ---------------------------------------------------------------------------------
    def _bind(self, pv: dict, claim: dict) -> None:
        """bind(): the volume to the claim, then the claim to the volume, each with its status."""
        pv_name = _meta(pv)["name"]
        spec = pv.get("spec") or {}
        if not is_bound_to_claim(pv, claim) or not (spec.get("claimRef") or {}).get("uid"):
            patch: dict = {"spec": {"claimRef": claim_ref(claim)}}
            if spec.get("claimRef") is None:
                patch["metadata"] = {"annotations": {BOUND_BY_CONTROLLER: "yes"}}
            pv = self._patch(pv, patch) or pv
        if (pv.get("status") or {}).get("phase") != "Bound":
            pv = self._patch(pv, {"status": {"phase": "Bound"}}, "status") or pv
        claim_spec = claim.get("spec") or {}
        annotations = _annotations(claim)
        if claim_spec.get("volumeName") != pv_name or BIND_COMPLETED not in annotations:
            patch = {"spec": {"volumeName": pv_name}, "metadata": {"annotations": {BIND_COMPLETED: "yes"}}}
            if not claim_spec.get("volumeName"):
                patch["metadata"]["annotations"][BOUND_BY_CONTROLLER] = "yes"
            claim = self._patch(claim, patch) or claim
        self._claim_status(claim, "Bound", pv)

    def _claim_status(self, claim: dict, phase: str, pv: dict | None) -> None:
        status = claim.get("status") or {}
        wanted: dict = {"phase": phase}
        if pv is not None:
            wanted["accessModes"] = list((pv.get("spec") or {}).get("accessModes") or [])
            wanted["capacity"] = dict((pv.get("spec") or {}).get("capacity") or {})
        if all(status.get(k) == v for k, v in wanted.items()):
            return
        self._patch(claim, {"status": wanted}, "status")

    # -- volumes -------------------------------------------------------------------------------
    def _sync_volume(self, pv: dict) -> None:
        """syncVolume: Available without a claim, Bound with it, Released (then reclaimed) without.
        A volume being deleted still moves to Released, which ends its pv-protection."""
        deleting = bool(_meta(pv).get("deletionTimestamp"))
        phase = (pv.get("status") or {}).get("phase")
        ref = (pv.get("spec") or {}).get("claimRef")
        if ref is None:
            if phase != "Available":
                self._patch(pv, {"status": {"phase": "Available"}}, "status")
            return
        claim = self.host.informer.get(
            "PersistentVolumeClaim", ref.get("namespace") or "", ref.get("name") or ""
        )
        if claim is not None and ref.get("uid") and _meta(claim).get("uid") != ref["uid"]:
            claim = None  # a new claim of the same name is not the one this volume was bound to
        if claim is not None:
            if (claim.get("spec") or {}).get("volumeName") == _meta(pv)["name"] and phase != "Bound":
                self._patch(pv, {"status": {"phase": "Bound"}}, "status")
            return
        if not ref.get("uid"):
            if phase != "Available":  # pre-bound by a user to a claim that does not exist yet
                self._patch(pv, {"status": {"phase": "Available"}}, "status")
            return
        if phase != "Released":
            pv = self._patch(pv, {"status": {"phase": "Released"}}, "status") or pv
        if (pv.get("spec") or {}).get("persistentVolumeReclaimPolicy") == "Delete" and not deleting:
            try:
                api.delete(self.host.cluster, "PersistentVolume", None, _meta(pv)["name"], self._actor())
            except ApiError:
                return

    # -- writes ----------------------------------------------------------------------------------
    def _actor(self):
        return self.host.actor(None, COMPONENT)

    def _patch(self, obj: dict, patch: dict, subresource: str | None = None) -> dict | None:
        kind = obj.get("kind") or (
            "PersistentVolumeClaim" if _meta(obj).get("namespace") else "PersistentVolume"
        )
        meta = _meta(obj)
        try:
            updated = api.patch(
                self.host.cluster,
                kind,
                meta.get("namespace") or None,
                meta["name"],
                copy.deepcopy(patch),
                MERGE_PATCH,
                self._actor(),
                subresource,
            )
        except ApiError:
            return None
        self.host.informer.store[kind][(meta.get("namespace") or "", meta["name"])] = updated
        return updated

    def _annotate(self, claim: dict, annotations: dict) -> None:
        self._patch(claim, {"metadata": {"annotations": annotations}})

    def _say(self, claim: dict, reason: str, message: str, type_: str = "Normal") -> None:
        """An event once per change of what the claim is told (upstream repeats it each resync)."""
        uid = _meta(claim).get("uid", "")
        if self.said.get(uid) == (reason, message):
            return
        self.said[uid] = (reason, message)
        self._event(claim, reason, message, type_=type_)

    def _event(
        self, claim: dict, reason: str, message: str, type_: str = "Normal", source: str = COMPONENT
    ) -> None:
        obj = {**claim, "kind": "PersistentVolumeClaim", "apiVersion": "v1"}
        event_recorder.record(
            self.host.cluster, obj, reason, message, self._actor(), type_=type_, component=source
        )
