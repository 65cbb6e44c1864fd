"""VolumeBinding (v1.33): a pod's PersistentVolumeClaims must exist, be bound or bindable on the
node. PreFilter rejects a missing or unusable claim and an unbound Immediate claim, and narrows the
nodes to those of bound local volumes; Filter runs FindPodVolumes per node. Reserve and PreBind
(the API writes for the chosen node) are the scheduling service's (`scheduler/service.py`),
with `binder.find_pod_volumes` for that node. No Score: StorageCapacityScoring is alpha and off.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scheduler.engine.framework import (
    Code,
    CycleState,
    Plugin,
    PreFilterResult,
    Status,
    skip,
    unresolvable,
)
from scheduler.engine.nodeinfo import NodeInfo
from scheduler.engine.plugins.volumebinding import binder, why
from scheduler.engine.podinfo import PodInfo

NAME = "VolumeBinding"
_NO_CLAIMS = skip(NAME, why.no_claims())


class VolumeBinding(Plugin):
    name = NAME
    is_filter = True

    def pre_filter(
        self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo], snapshot: Any
    ) -> Status | PreFilterResult | None:
        if not binder.claim_names(pod):
            return _NO_CLAIMS
        storage = snapshot.storage
        try:
            claims = binder.PodClaims.of(binder.pod_claims(pod, storage), storage)
        except binder.ClaimError as err:
            return unresolvable(NAME, str(err), why.claim_problem(str(err)))
        if claims.immediate:
            return unresolvable(NAME, binder.UNBOUND_IMMEDIATE, why.unbound_immediate(claims.immediate))
        state[NAME] = (claims, storage)
        eligible = binder.eligible_nodes(claims.bound, storage)
        if eligible is not None:
            return PreFilterResult(frozenset(eligible), NAME, why.narrowed(sorted(eligible)))
        return None

    def filter(self, state: CycleState, pod: PodInfo, nodes: Sequence[NodeInfo]) -> dict[str, Status]:
        found = state.get(NAME)
        if found is None:
            return {}
        claims, storage = found
        failures: dict[str, Status] = {}
        for node in nodes:
            result = binder.find_pod_volumes(claims, node, storage)
            if result.error:
                failures[node.name] = Status(Code.ERROR, (result.error,), NAME)
            elif result.reasons:
                failures[node.name] = unresolvable(NAME, result.reasons, _explain(result))
        return failures


def _explain(result: binder.NodeVolumes) -> why.Why:
    detail = result.detail
    reason = result.reasons[0]
    if reason == binder.ERR_REASON_NODE_CONFLICT:
        return why.node_conflict(detail["claim"], detail["volume"])
    if reason == binder.ERR_REASON_PV_NOT_EXIST:
        return why.pv_missing(detail["claim"], detail["volume"])
    if "selected" in detail:
        return why.selected_elsewhere(detail["claim"], detail["selected"])
    return why.no_volume(detail["claim"], detail.get("class"), bool(detail.get("topology")))
