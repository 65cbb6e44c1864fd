"""The control planes' Leases as every process sees them, read with one query per period.

The scale-out profile's processes renew every Lease they hold with one statement per period: their
`ControlPlaneMember` row (cluster/controlplane/share.py), whose `renewed_at` (the database's clock)
moves while `leads` names the cluster. The Lease object names the holder, and is written through
the API server when leadership moves (taken, handed over, released: the writes that fence a stale
leader, cluster/apiserver/fence.py), not on every renewal, so an idle cluster's revision stays put.

A standby judges a Lease by client-go's rule, with the holder's renewals as what it watches change
(`LeaseView.token`). A reader sees what upstream would show: a GET, LIST or `kubectl describe` of
the Lease first writes the holder's last renewal into `spec.renewTime` (a real update, so the
resourceVersion moves as an upstream renewal's does) when it is a period or more behind
(cluster/client/leader.py `show_renewal`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from cluster.apiserver import fence
from cluster.models import ApiObject, ControlPlaneMember

NAMESPACE = fence.LEASE_NAMESPACE
NAME = fence.LEASE_NAME


@dataclass(frozen=True)
class LeaseView:
    holder: str
    transitions: int
    duration: int | None
    renewed: datetime | None  # the holder's last renewal while it leads the cluster (None: not)

    @property
    def token(self) -> tuple:
        """What moves while the holder renews: unchanged for a lease's duration, it has expired."""
        return (self.holder, self.transitions, self.renewed)


@dataclass
class Board:
    leases: dict[str, LeaseView]  # cluster name -> its Lease (missing: none yet)
    read_at: float  # time.monotonic() when the read began


def read(ids: dict[str, int], members: dict[str, tuple[datetime, set[str]]]) -> Board:
    """The Leases of the clusters `ids` (name -> pk), judged with the members' renewals."""
    started = time.monotonic()
    names = {pk: name for name, pk in ids.items()}
    rows = ApiObject.objects.filter(
        cluster_id__in=list(names), kind="Lease", namespace=NAMESPACE, name=NAME
    ).values_list(
        "cluster_id",
        "body__spec__holderIdentity",
        "body__spec__leaseTransitions",
        "body__spec__leaseDurationSeconds",
    )
    leases = {}
    for pk, holder, transitions, duration in rows:
        leases[names[pk]] = view_of(names[pk], holder or "", transitions or 0, duration, members)
    return Board(leases, started)


def view_of(
    name: str,
    holder: str,
    transitions: int,
    duration: int | None,
    members: dict[str, tuple[datetime, set[str]]],
) -> LeaseView:
    renewed, leads = members.get(holder, (None, set()))
    return LeaseView(holder, transitions, duration, renewed if name in leads else None)


def renewed_at(cluster_name: str, holder: str) -> datetime | None:
    """The holder's last renewal of the cluster's Lease (None: it does not renew it)."""
    found = ControlPlaneMember.objects.filter(identity=holder).values_list("renewed_at", "leads").first()
    if found is None or cluster_name not in (found[1] or {}):
        return None
    return found[0]


def micro(moment: datetime) -> str:
    """metav1.MicroTime: RFC 3339 with microseconds, in UTC."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
