"""Leases (coordination.k8s.io/v1, `leases`): node heartbeats and the control plane's leader
election. The server fills in nothing and validates metadata only; kubectl describes them
generically."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.defaults import no_defaults
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.validators import metadata_only
from cluster.kubeapi import describe
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age


def _row(obj: dict, now: datetime) -> list:
    holder = (obj.get("spec") or {}).get("holderIdentity") or ""
    return [obj["metadata"]["name"], holder, age(obj, now)]


TABLE = TableSpec((NAME_COLUMN, ("Holder", "string", "", 0), AGE_COLUMN), _row)

KIND = KindInfo(
    kind="Lease",
    plural="leases",
    singular="lease",
    group="coordination.k8s.io",
    version="v1",
    namespaced=True,
    # Node heartbeats: the console, labs and resets leave them to the kubelets.
    console=False,
    lab_manifest=False,
    lab_check=False,
    reset_rank=None,
    defaults=no_defaults,
    validate=metadata_only,
    table=TABLE,
    describe=describe.generic("Lease"),
)
