"""Which nodes a DaemonSet runs on, and the pod it puts there (pkg/controller/daemon, v1.33).

- `node_should_run_daemon_pod`: NodeShouldRunDaemonPod — the template's nodeName, nodeSelector and
  required node affinity must match the node; a taint the pod does not tolerate (NoSchedule or
  NoExecute) keeps a new pod away, and only an untolerated NoExecute one removes a running pod.
- `daemon_pod_spec`: the template with the default DaemonSet tolerations and the required node
  affinity replaced by one `matchFields metadata.name In [node]` term, which is how the default
  scheduler is made to place the pod on its node.
"""

from __future__ import annotations

import copy

from scheduler.engine.node_selector import NodeSelector
from scheduler.engine.tolerations import first_untolerated

NOT_READY = "node.kubernetes.io/not-ready"
UNREACHABLE = "node.kubernetes.io/unreachable"
# util.AddOrUpdateDaemonPodTolerations, in upstream's order.
DAEMON_TOLERATIONS = (
    (NOT_READY, "NoExecute"),
    (UNREACHABLE, "NoExecute"),
    ("node.kubernetes.io/disk-pressure", "NoSchedule"),
    ("node.kubernetes.io/memory-pressure", "NoSchedule"),
    ("node.kubernetes.io/pid-pressure", "NoSchedule"),
    ("node.kubernetes.io/unschedulable", "NoSchedule"),
)
NETWORK_UNAVAILABLE = ("node.kubernetes.io/network-unavailable", "NoSchedule")


def add_daemon_tolerations(spec: dict) -> None:
    """AddOrUpdateTolerationInPodSpec for each default: an equal toleration is kept, one with the
    same key and effect is replaced, any other is appended."""
    wanted = list(DAEMON_TOLERATIONS)
    if spec.get("hostNetwork"):
        wanted.append(NETWORK_UNAVAILABLE)
    tolerations = list(spec.get("tolerations") or [])
    for key, effect in wanted:
        toleration = {"key": key, "operator": "Exists", "effect": effect}
        for index, existing in enumerate(tolerations):
            if existing.get("key") == key and existing.get("effect") == effect:
                tolerations[index] = toleration
                break
        else:
            tolerations.append(toleration)
    spec["tolerations"] = tolerations


def replace_node_name_affinity(affinity: dict | None, node: str) -> dict:
    """ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become one matchFields term."""
    term = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
    affinity = copy.deepcopy(affinity) if affinity else {}
    node_affinity = affinity.setdefault("nodeAffinity", {})
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if required is None:
        node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {"nodeSelectorTerms": [term]}
    else:
        required["nodeSelectorTerms"] = [term]
    return affinity


def daemon_pod_spec(template_spec: dict, node: str) -> dict:
    spec = copy.deepcopy(template_spec)
    add_daemon_tolerations(spec)
    spec["affinity"] = replace_node_name_affinity(spec.get("affinity"), node)
    return spec


def _fits_affinity(spec: dict, node: dict) -> bool:
    meta = node.get("metadata") or {}
    labels, name = meta.get("labels") or {}, meta.get("name", "")
    for key, value in (spec.get("nodeSelector") or {}).items():
        if labels.get(key) != value:
            return False
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    )
    return required is None or NodeSelector.parse(required).matches(labels, name)


def node_should_run_daemon_pod(node: dict, ds: dict) -> tuple[bool, bool]:
    """(should run a new pod there, should keep a running one there)."""
    name = (node.get("metadata") or {}).get("name", "")
    template_spec = copy.deepcopy(((ds.get("spec") or {}).get("template") or {}).get("spec") or {})
    if template_spec.get("nodeName") not in (None, "", name):
        return False, False
    add_daemon_tolerations(template_spec)
    if not _fits_affinity(template_spec, node):
        return False, False
    taints = (node.get("spec") or {}).get("taints") or []
    tolerations = template_spec.get("tolerations") or []
    if first_untolerated(taints, tolerations, ("NoSchedule", "NoExecute")) is not None:
        return False, first_untolerated(taints, tolerations, ("NoExecute",)) is None
    return True, True
