"""The volume binder's decisions, pure (upstream `volumebinding/binder.go`, v1.33): which of a
pod's claims are bound, wait for the scheduler (WaitForFirstConsumer) or should have been bound
already (Immediate), and, for one node, which volumes would bind or be provisioned
(FindPodVolumes). The plugin (`plugin.py`) explains it; the scheduling service performs the
bindings it chose for the selected node (Reserve and PreBind)."""

from __future__ import annotations

from dataclasses import dataclass, field

from k8s.volumes import (
    BIND_COMPLETED,
    NO_PROVISIONER,
    SELECTED_NODE,
    WAIT_FOR_FIRST_CONSUMER,
    claim_class,
    find_matching_volume,
    volume_class,
)
from scheduler.engine.node_selector import NodeSelector
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.podinfo import PodInfo

ERR_REASON_BIND_CONFLICT = "node(s) didn't find available persistent volumes to bind"
ERR_REASON_NODE_CONFLICT = "node(s) had volume node affinity conflict"
ERR_REASON_NOT_ENOUGH_SPACE = "node(s) did not have enough free storage"
ERR_REASON_PV_NOT_EXIST = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
UNBOUND_IMMEDIATE = "pod has unbound immediate PersistentVolumeClaims"
HOSTNAME = "kubernetes.io/hostname"


class ClaimError(Exception):
    """podHasPVCs' error: the pod cannot be scheduled until its claim changes."""


def claim_names(pod: PodInfo) -> list[tuple[str, bool]]:
    """(claim name, ephemeral) of each volume that uses a claim, in spec.volumes order."""
    found = []
    for volume in pod.volumes:
        if not isinstance(volume, dict):
            continue
        if isinstance(volume.get("persistentVolumeClaim"), dict):
            found.append((volume["persistentVolumeClaim"].get("claimName") or "", False))
        elif volume.get("ephemeral") is not None:
            found.append((f"{pod.name}-{volume.get('name') or ''}", True))  # ephemeral.VolumeClaimName
    return found


def pod_claims(pod: PodInfo, storage) -> list[dict]:
    """podHasPVCs: every claim the pod mounts, or ClaimError in upstream's words."""
    claims = []
    for name, ephemeral in claim_names(pod):
        claim = storage.claim(pod.namespace, name)
        if claim is None:
            if ephemeral:
                raise ClaimError(
                    f'waiting for ephemeral volume controller to create the persistentvolumeclaim "{name}"'
                )
            raise ClaimError(f'persistentvolumeclaim "{name}" not found')
        if (claim.get("status") or {}).get("phase") == "Lost":
            volume = (claim.get("spec") or {}).get("volumeName") or ""
            raise ClaimError(
                f'persistentvolumeclaim "{name}" bound to non-existent persistentvolume "{volume}"'
            )
        if (claim.get("metadata") or {}).get("deletionTimestamp"):
            raise ClaimError(f'persistentvolumeclaim "{name}" is being deleted')
        claims.append(claim)
    return claims


def is_fully_bound(claim: dict) -> bool:
    annotations = (claim.get("metadata") or {}).get("annotations") or {}
    return bool((claim.get("spec") or {}).get("volumeName")) and BIND_COMPLETED in annotations


def is_delay_binding(claim: dict, storage) -> bool:
    """IsDelayBindingMode: the claim's class exists and binds at WaitForFirstConsumer."""
    name = claim_class(claim)
    sc = storage.classes.get(name) if name else None
    return sc is not None and sc.get("volumeBindingMode") == WAIT_FOR_FIRST_CONSUMER


@dataclass(slots=True)
class PodClaims:
    """GetPodVolumeClaims."""

    bound: list[dict] = field(default_factory=list)
    delayed: list[dict] = field(default_factory=list)
    immediate: list[dict] = field(default_factory=list)

    @classmethod
    def of(cls, claims: list[dict], storage) -> PodClaims:
        found = cls()
        for claim in claims:
            if is_fully_bound(claim):
                found.bound.append(claim)
            elif is_delay_binding(claim, storage) and not (claim.get("spec") or {}).get("volumeName"):
                found.delayed.append(claim)
            else:
                found.immediate.append(claim)  # a pre-bound claim waits for the PV controller too
        return found


def node_fits(pv: dict, node: NodeInfo) -> bool:
    """CheckNodeAffinity: the PV's required node affinity admits the node's labels."""
    required = ((pv.get("spec") or {}).get("nodeAffinity") or {}).get("required")
    if required is None:
        return True
    # Upstream matches a node built from the labels alone: matchFields never match.
    return NodeSelector.parse(required).matches(node.labels, "")


def local_node_names(pv: dict) -> set[str] | None:
    """GetLocalPersistentVolumeNodeNames: the hostnames a PV's `kubernetes.io/hostname In` terms
    name (None when it has none)."""
    required = ((pv.get("spec") or {}).get("nodeAffinity") or {}).get("required")
    if required is None:
        return None
    result: set[str] = set()
    for term in required.get("nodeSelectorTerms") or []:
        nodes: set[str] | None = None
        for expr in term.get("matchExpressions") or []:
            if expr.get("key") == HOSTNAME and expr.get("operator") == "In":
                values = set(expr.get("values") or [])
                nodes = values if nodes is None else nodes & values
        result |= nodes or set()
    return result or None


def eligible_nodes(bound: list[dict], storage) -> set[str] | None:
    """GetEligibleNodes: the nodes every bound claim's local PV allows (None: no narrowing)."""
    eligible: set[str] | None = None
    for claim in bound:
        pv = storage.volumes.get((claim.get("spec") or {}).get("volumeName") or "")
        if pv is None:
            return None  # upstream logs the error and does not narrow
        names = local_node_names(pv)
        if names:
            eligible = set(names) if eligible is None else eligible & names
    return eligible


@dataclass(slots=True)
class NodeVolumes:
    """FindPodVolumes for one node: the reasons it fails, or what would be bound and provisioned."""

    reasons: list[str] = field(default_factory=list)
    static: list[tuple[dict, dict]] = field(default_factory=list)  # (claim, PV)
    provision: list[dict] = field(default_factory=list)
    error: str = ""  # a plugin error (a claim with no class, a missing class)
    detail: dict = field(default_factory=dict)  # what the explanation names: claim, pv, class


def find_pod_volumes(claims: PodClaims, node: NodeInfo, storage) -> NodeVolumes:
    result = NodeVolumes()
    bound_ok, pvs_found, unbound_ok, enough = True, True, True, True
    for claim in claims.bound:
        name = (claim.get("spec") or {}).get("volumeName") or ""
        pv = storage.volumes.get(name)
        if pv is None:
            pvs_found = False
            result.detail = {"claim": claim, "volume": name}
            break
        if not node_fits(pv, node):
            bound_ok = False
            result.detail = {"claim": claim, "volume": name}
            break
    if claims.delayed:  # checked whatever the bound claims found, as upstream
        detail = result.detail
        unbound_ok, enough = _unbound(claims.delayed, node, storage, result)
        result.detail = detail or result.detail  # the first failure is the one explained
    if result.error:
        return result
    if not bound_ok:
        result.reasons.append(ERR_REASON_NODE_CONFLICT)
    if not unbound_ok:
        result.reasons.append(ERR_REASON_BIND_CONFLICT)
    if not enough:
        result.reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
    if not pvs_found:
        result.reasons.append(ERR_REASON_PV_NOT_EXIST)
    return result


def _unbound(delayed: list[dict], node: NodeInfo, storage, result: NodeVolumes) -> tuple[bool, bool]:
    to_provision, to_match = [], []
    for claim in delayed:
        annotations = (claim.get("metadata") or {}).get("annotations") or {}
        if SELECTED_NODE in annotations:
            if annotations[SELECTED_NODE] != node.name:
                result.detail = {"claim": claim, "selected": annotations[SELECTED_NODE]}
                return False, True  # being provisioned for another node
            to_provision.append(claim)
        else:
            to_match.append(claim)
    satisfied = True
    chosen: set[str] = set()
    for claim in to_match:
        wanted = claim_class(claim)
        candidates = [pv for pv in storage.volumes.values() if volume_class(pv) == wanted]
        pv = find_matching_volume(claim, candidates, lambda v: node_fits(v, node), chosen, delay_binding=True)
        if pv is None:
            to_provision.append(claim)
            satisfied = False
            continue
        chosen.add(pv["metadata"]["name"])
        result.static.append((claim, pv))
    if to_provision:
        return _provisions(to_provision, node, storage, result)
    return satisfied, True


def _provisions(claims: list[dict], node: NodeInfo, storage, result: NodeVolumes) -> tuple[bool, bool]:
    """checkVolumeProvisions."""
    for claim in claims:
        name = claim_class(claim)
        claim_name = (claim.get("metadata") or {}).get("name") or ""
        if not name:
            result.error = f'no class for claim "{claim_name}"'
            return False, False
        sc = storage.classes.get(name)
        if sc is None:
            result.error = f'failed to find storage class "{name}"'
            return False, False
        provisioner = sc.get("provisioner") or ""
        if not provisioner or provisioner == NO_PROVISIONER:
            result.detail = {"claim": claim, "class": sc}
            return False, True
        if not _topology_fits(sc.get("allowedTopologies"), node.labels):
            result.detail = {"claim": claim, "class": sc, "topology": True}
            return False, True
        result.provision.append(claim)
    return True, True


def _topology_fits(terms: list | None, labels: dict) -> bool:
    """MatchTopologySelectorTerms: no terms admit every node; otherwise one term must match."""
    if not terms:
        return True
    for term in terms:
        if all(
            labels.get(e.get("key")) in (e.get("values") or [])
            for e in term.get("matchLabelExpressions") or []
        ):
            return True
    return False
