"""policy/v1 kinds: PodDisruptionBudget, registered as every built-in kind is
(docs/adding-a-kind.md), with the real v1.33 API server's names (`kubectl api-resources`:
poddisruptionbudgets, short name pdb, namespaced, with a status subresource)."""

from __future__ import annotations

from cluster.apiserver import pdb
from cluster.apiserver.kinds import KindInfo, register, status_subresource
from cluster.kubeapi import pdb as pdb_printing

POD_DISRUPTION_BUDGET = register(
    KindInfo(
        kind="PodDisruptionBudget",
        plural="poddisruptionbudgets",
        singular="poddisruptionbudget",
        group="policy",
        version="v1",
        namespaced=True,
        short_names=("pdb",),
        subresources=(status_subresource("PodDisruptionBudget", "policy"),),
        reset_rank=35,  # before Pods: a budget must not hold up the reset's evictions
        defaults=pdb.defaults,
        validate=pdb.validate,
        table=pdb_printing.TABLE,
        describe=pdb_printing.describe,
    )
)
