"""PersistentVolume facts that the API's kinds, the PV controller and the scheduler share (pure).

Upstream: `component-helpers/storage/volume` (GetPersistentVolumeClass, FindMatchingVolume,
CheckAccessModes, IsVolumeBoundToClaim) and kubectl's GetAccessModesAsString.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from k8s.labels import SelectorError, label_selector
from k8s.quantity import QuantityError, parse_quantity

BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class"
DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class"
BETA_DEFAULT_CLASS_ANNOTATION = "storageclass.beta.kubernetes.io/is-default-class"
BIND_COMPLETED = "pv.kubernetes.io/bind-completed"
BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
PROVISIONED_BY = "pv.kubernetes.io/provisioned-by"
STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner"
BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner"
NO_PROVISIONER = "kubernetes.io/no-provisioner"  # volume.NotSupportedProvisioner
WAIT_FOR_FIRST_CONSUMER = "WaitForFirstConsumer"
IMMEDIATE = "Immediate"
ACCESS_MODES = (
    ("ReadWriteOnce", "RWO"),
    ("ReadOnlyMany", "ROX"),
    ("ReadWriteMany", "RWX"),
    ("ReadWriteOncePod", "RWOP"),
)


def access_modes_text(modes: Iterable[str] | None) -> str:
    """GetAccessModesAsString: RWO,ROX,RWX,RWOP in that order, duplicates once."""
    present = set(modes or ())
    return ",".join(short for mode, short in ACCESS_MODES if mode in present)


def _annotations(obj: dict) -> dict:
    return (obj.get("metadata") or {}).get("annotations") or {}


def claim_class(claim: dict) -> str:
    """GetPersistentVolumeClaimClass: the beta annotation first, then spec.storageClassName."""
    annotations = _annotations(claim)
    if BETA_CLASS_ANNOTATION in annotations:
        return str(annotations[BETA_CLASS_ANNOTATION])
    return (claim.get("spec") or {}).get("storageClassName") or ""


def volume_class(pv: dict) -> str:
    """GetPersistentVolumeClass."""
    annotations = _annotations(pv)
    if BETA_CLASS_ANNOTATION in annotations:
        return str(annotations[BETA_CLASS_ANNOTATION])
    return (pv.get("spec") or {}).get("storageClassName") or ""


def is_default_class(sc: dict) -> bool:
    """IsDefaultAnnotation: either annotation set to "true"."""
    annotations = _annotations(sc)
    return "true" in (
        annotations.get(DEFAULT_CLASS_ANNOTATION),
        annotations.get(BETA_DEFAULT_CLASS_ANNOTATION),
    )


def binding_mode(sc: dict | None) -> str:
    return (sc or {}).get("volumeBindingMode") or IMMEDIATE


def size(quantity: object) -> int | float:
    """A storage quantity in bytes (absent or invalid: 0)."""
    try:
        return parse_quantity(quantity) if quantity is not None else 0  # type: ignore[arg-type,return-value]
    except (QuantityError, TypeError, ValueError):
        return 0


def requested(claim: dict) -> int | float:
    return size((((claim.get("spec") or {}).get("resources") or {}).get("requests") or {}).get("storage"))


def capacity(pv: dict) -> int | float:
    return size(((pv.get("spec") or {}).get("capacity") or {}).get("storage"))


def claim_key(claim: dict) -> tuple[str, str]:
    meta = claim.get("metadata") or {}
    return meta.get("namespace") or "", meta.get("name") or ""


def is_bound_to_claim(pv: dict, claim: dict) -> bool:
    """IsVolumeBoundToClaim: the PV's claimRef names the claim (and its uid, when both have one)."""
    ref = (pv.get("spec") or {}).get("claimRef")
    if not isinstance(ref, dict):
        return False
    meta = claim.get("metadata") or {}
    if (ref.get("name"), ref.get("namespace") or "") != (meta.get("name"), meta.get("namespace") or ""):
        return False
    return not ref.get("uid") or not meta.get("uid") or ref["uid"] == meta["uid"]


def check_access_modes(claim: dict, pv: dict) -> bool:
    """CheckAccessModes: every mode the claim asks for is one the volume offers."""
    offered = set((pv.get("spec") or {}).get("accessModes") or ())
    return set((claim.get("spec") or {}).get("accessModes") or ()) <= offered


def _volume_mode(spec: dict) -> str:
    return spec.get("volumeMode") or "Filesystem"


def find_matching_volume(
    claim: dict,
    volumes: Iterable[dict],
    node_fits: Callable[[dict], bool] | None = None,
    excluded: frozenset[str] | set[str] = frozenset(),
    delay_binding: bool = False,
) -> dict | None:
    """FindMatchingVolume: the volume pre-bound to the claim, else the smallest Available one of
    the claim's class with enough capacity, the same volume mode, the claim's access modes, a
    matching selector and (on the scheduler's path, `node_fits` given) a node affinity that fits.

    `node_fits(pv)` says whether the PV's node affinity admits the node being filtered.
    """
    spec = claim.get("spec") or {}
    wanted = requested(claim)
    wanted_class = claim_class(claim)
    selector = None
    if spec.get("selector") is not None:
        try:
            selector = label_selector(spec["selector"])
        except SelectorError:
            return None  # upstream returns an error: nothing can match
    smallest, smallest_size = None, None
    for pv in volumes:
        meta, pv_spec = pv.get("metadata") or {}, pv.get("spec") or {}
        if meta.get("name") in excluded:
            continue
        if pv_spec.get("claimRef") is not None and not is_bound_to_claim(pv, claim):
            continue
        pv_size = capacity(pv)
        if pv_size < wanted:
            continue
        if _volume_mode(spec) != _volume_mode(pv_spec):
            continue
        if meta.get("deletionTimestamp"):
            continue
        affinity_ok = node_fits(pv) if node_fits is not None else True
        if is_bound_to_claim(pv, claim):
            return pv if affinity_ok else None
        if node_fits is None and delay_binding:
            continue  # the scheduler binds this claim, not the PV controller
        if (pv.get("status") or {}).get("phase") != "Available":
            continue
        if selector is not None and not selector(meta.get("labels") or {}):
            continue
        if volume_class(pv) != wanted_class or not affinity_ok:
            continue
        if not check_access_modes(claim, pv):
            continue  # the PV controller's index groups volumes by the modes they offer
        if smallest is None or smallest_size > pv_size:
            smallest, smallest_size = pv, pv_size
    return smallest


def claim_ref(claim: dict) -> dict:
    """A volume's `spec.claimRef` to `claim` (the PV controller's bind and the scheduler's assumed
    binding write the same reference)."""
    meta = claim.get("metadata") or {}
    return {
        "kind": "PersistentVolumeClaim",
        "namespace": meta.get("namespace", ""),
        "name": meta.get("name", ""),
        "uid": meta.get("uid", ""),
        "apiVersion": "v1",
        "resourceVersion": meta.get("resourceVersion", ""),
    }
