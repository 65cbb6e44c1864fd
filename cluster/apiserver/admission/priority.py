"""The Priority admission plugin (plugin/pkg/admission/priority, v1.33): the global default is
unique; a new pod's `priorityClassName` (or the global default's, when it names none) is resolved
to `spec.priority` and `spec.preemptionPolicy`, and a pod that sets either to something else is
refused with upstream's words (cluster/kinds/scheduling/priorityclass.py holds the kind's rules)."""

from __future__ import annotations

from cluster.apiserver import rows
from cluster.apiserver.admission import chain
from cluster.apiserver.errors import forbidden
from cluster.kinds.scheduling.priorityclass import DEFAULT_PRIORITY, PREEMPT_LOWER, system_class
from cluster.models import ApiObject, Cluster


def resolve(pod: dict, classes) -> None:
    """Priority admission of a new pod, `classes` answering find(name) and default(): sets
    spec.priorityClassName (the default's), spec.priority and spec.preemptionPolicy, or raises the
    Forbidden upstream answers. The pod's name in errors is its name, else its generateName."""
    meta, spec = pod.get("metadata") or {}, pod.get("spec")
    if not isinstance(spec, dict):
        return
    shown = meta.get("name") or meta.get("generateName") or "Unknown"
    class_name = spec.get("priorityClassName") or ""
    if class_name:
        pc = classes.find(class_name)
        if pc is None:
            raise forbidden("pods", shown, f"no PriorityClass with name {class_name} was found")
        priority, policy = pc.get("value", 0), pc.get("preemptionPolicy") or PREEMPT_LOWER
    else:
        pc = classes.default()
        if pc is not None:
            spec["priorityClassName"] = pc["metadata"]["name"]
            priority, policy = pc.get("value", 0), pc.get("preemptionPolicy") or PREEMPT_LOWER
        else:
            priority, policy = DEFAULT_PRIORITY, PREEMPT_LOWER
    given = spec.get("priority")
    if given is not None and given != priority:
        raise forbidden(
            "pods",
            shown,
            f"the integer value of priority ({given}) must not be provided in pod spec; priority "
            f"admission controller computed {priority} from the given PriorityClass name",
        )
    spec["priority"] = priority
    given_policy = spec.get("preemptionPolicy")
    if given_policy is not None and given_policy != policy:
        raise forbidden(
            "pods",
            shown,
            f"the string value of PreemptionPolicy ({given_policy}) must not be provided in pod spec; "
            f"priority admission controller computed {policy} from the given PriorityClass name",
        )
    spec["preemptionPolicy"] = policy


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
