"""The Priority admission plugin: the global default is unique; a new pod's priority is resolved
from its PriorityClass (cluster/apiserver/priority.py holds the kind's rules)."""

from __future__ import annotations

from cluster.apiserver import rows
from cluster.apiserver.admission import chain
from cluster.apiserver.priority import forbidden, resolve, system_class
from cluster.models import ApiObject, Cluster


def _stored_classes(cluster: Cluster) -> list[dict]:
    # One plain statement, once per batch: every pod's create asks, and the ORM's query building
    # cost more than the (usually empty) answer.
    return rows.kept_bodies(cluster.pk, "PriorityClass")


def default_class(cluster: Cluster) -> dict | None:
    """getDefaultPriorityClass: the globalDefault class; the lowest value if a race left several."""
    found = [pc for pc in _stored_classes(cluster) if pc.get("globalDefault")]
    return min(found, key=lambda pc: pc.get("value", 0)) if found else None


def find_class(cluster: Cluster, name: str) -> dict | None:
    system = system_class(cluster, name)
    if system is not None:
        return system
    row = ApiObject.objects.filter(
        cluster_id=cluster.pk, kind="PriorityClass", namespace="", name=name
    ).first()
    return row.body if row is not None else None


class _StoredClasses:
    def __init__(self, cluster: Cluster) -> None:
        self.cluster = cluster

    def find(self, name: str) -> dict | None:
        return find_class(self.cluster, name)

    def default(self) -> dict | None:
        return default_class(self.cluster)


def admit_pod(cluster: Cluster, kind: str, body: dict) -> None:
    """Mutating admission on create, before the pod's defaults (which would fill the priority)."""
    if kind == "Pod":
        resolve(body, _StoredClasses(cluster))


def admit_priority_class(cluster, verb: str, kind: str, body: dict, actor) -> None:
    """validatePriorityClass: only one class may be the global default."""
    if kind != "PriorityClass" or verb not in ("create", "update", "patch") or not body.get("globalDefault"):
        return
    current = default_class(cluster)
    name = body["metadata"].get("name", "")
    if current is not None and (verb == "create" or current["metadata"]["name"] != name):
        raise forbidden(
            "priorityclasses",
            name,
            f"PriorityClass {current['metadata']['name']} is already marked as default. "
            "Only one default can exist",
            "scheduling.k8s.io",
        )


def install() -> None:
    chain.register(admit_priority_class)
    chain.register_mutating(admit_pod)
