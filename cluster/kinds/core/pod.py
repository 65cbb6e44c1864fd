"""Pods (core/v1, `pods`, short name `po`): upstream `pkg/registry/core/pod`, SetDefaults_Pod,
ValidatePod(Update), the Pod printer and `kubectl describe pod`."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo, Subresource, status_subresource
from cluster.kinds.core import kubesystem
from cluster.kinds.core.podspec import pod_spec_defaults, qos_class, validate_pod_spec
from cluster.kubeapi.describe import events_of, rfc_time, with_events
from cluster.kubeapi.describe_parts import (
    annotations_multiline,
    containers,
    labels_multiline,
    tolerations_multiline,
    topology_spread,
    volumes,
)
from cluster.kubeapi.describe_parts import qos_class as described_qos_class
from cluster.kubeapi.humanize import human_duration, parse_time
from cluster.kubeapi.podstatus import pod_summary
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock
from k8s.pods import scheduling_gates

# DefaultTolerationSeconds admission: pods ride out a short node outage before eviction.
_DEFAULT_TOLERATIONS = (
    {
        "key": "node.kubernetes.io/not-ready",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
    {
        "key": "node.kubernetes.io/unreachable",
        "operator": "Exists",
        "effect": "NoExecute",
        "tolerationSeconds": 300,
    },
)
# ValidatePodUpdate: the only spec fields a pod update may change.
_POD_MUTABLE = (
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to "
    "existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
    "previously negative)"
)


def defaults(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    pod_spec_defaults(spec)
    spec.setdefault("serviceAccountName", "default")
    # spec.priority and spec.preemptionPolicy are Priority admission's (admission/priority.py),
    # set on create from the pod's PriorityClass: a manifest applied again keeps the stored ones.
    tolerations = spec.setdefault("tolerations", [])
    if isinstance(tolerations, list):
        for default in _DEFAULT_TOLERATIONS:
            if not any(isinstance(t, dict) and t.get("key") == default["key"] for t in tolerations):
                tolerations.append(dict(default))
    status = obj.setdefault("status", {})
    if isinstance(status, dict):
        status.setdefault("phase", "Pending")
        status.setdefault("qosClass", qos_class(spec))


def without_admission_defaults(defaulted: dict, sent: dict) -> None:
    """Take back from a defaulted pod what upstream's ServiceAccount and DefaultTolerationSeconds
    admission set after the field manager has recorded the create (`defaults` sets them here)."""
    spec, sent_spec = defaulted.get("spec"), sent.get("spec")
    if not isinstance(spec, dict) or not isinstance(sent_spec, dict):
        return
    for key in ("serviceAccountName", "tolerations"):
        if key in sent_spec:
            spec[key] = sent_spec[key]
        else:
            spec.pop(key, None)


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    validate_pod_spec(errors, "spec", obj.get("spec"))
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if old is None:
        if spec.get("nodeName") and scheduling_gates(obj):
            errors.forbidden("spec.nodeName", "cannot be set until all schedulingGates have been cleared")
        return
    old_spec = old.get("spec") or {}
    if errors:
        return
    _only_deleted_gates(errors, scheduling_gates(obj), scheduling_gates(old))
    if scheduling_gates(old):  # a gated pod may still narrow where it goes
        _only_added_node_selector(errors, spec.get("nodeSelector") or {}, old_spec.get("nodeSelector") or {})
    if not errors and _pod_spec_changed(old_spec, spec, gated=bool(scheduling_gates(old))):
        errors.forbidden("spec", _POD_MUTABLE)


def _only_deleted_gates(errors: FieldErrors, new: list[str], old: list[str]) -> None:
    """validateOnlyDeletedSchedulingGates: gates may be removed, never added."""
    for i, name in enumerate(new):
        if name not in old:
            errors.forbidden(
                f"spec.schedulingGates[{i}].name",
                f"only deletion is allowed, but found new scheduling gate '{name}'",
            )


def _only_added_node_selector(errors: FieldErrors, new: dict, old: dict) -> None:
    """validateNodeSelectorMutation: a gated pod's nodeSelector may gain entries, not lose or change one."""
    if any(new.get(key) != value for key, value in old.items()):
        errors.invalid(
            "spec.nodeSelector",
            new,
            "only additions to spec.nodeSelector are allowed (no mutations or deletions)",
        )


def prepare_for_create(obj: dict) -> None:
    """applySchedulingGatedCondition: a new pod with scheduling gates says so in PodScheduled."""
    status = obj.get("status")
    if not scheduling_gates(obj) or not isinstance(status, dict):
        return
    conditions = status.get("conditions")
    if not isinstance(conditions, list):
        conditions = status["conditions"] = []
    if any(isinstance(c, dict) and c.get("type") == "PodScheduled" for c in conditions):
        return
    conditions.append(
        {
            "type": "PodScheduled",
            "status": "False",
            "lastProbeTime": None,
            "lastTransitionTime": now_rfc3339(),
            "reason": "SchedulingGated",
            "message": "Scheduling is blocked due to non-empty scheduling gates",
        }
    )


def _pod_spec_changed(old: dict, new: dict, gated: bool = False) -> bool:
    """True when `new` changes anything but images, activeDeadlineSeconds, added tolerations and
    removed scheduling gates (and, while the pod is gated, an added nodeSelector entry)."""

    def strip(spec: dict) -> dict:
        spec = dict(spec)
        for key in ("containers", "initContainers"):
            spec[key] = [{**c, "image": None} for c in spec.get(key) or [] if isinstance(c, dict)]
        spec.pop("activeDeadlineSeconds", None)
        spec.pop("tolerations", None)
        spec.pop("schedulingGates", None)  # checked above: only deletions
        if gated:
            spec.pop("nodeSelector", None)  # checked above: only additions
        return spec

    old_tolerations = old.get("tolerations") or []
    kept = all(t in (new.get("tolerations") or []) for t in old_tolerations)
    return strip(old) != strip(new) or not kept


# -- kubectl get ----------------------------------------------------------------------------------
COLUMNS = (
    NAME_COLUMN,
    ("Ready", "string", "", 0),
    ("Status", "string", "", 0),
    ("Restarts", "string", "", 0),
    AGE_COLUMN,
    ("IP", "string", "", 1),
    ("Node", "string", "", 1),
    ("Nominated Node", "string", "", 1),
    ("Readiness Gates", "string", "", 1),
)


def _row(obj: dict, now: datetime) -> list:
    s = pod_summary(obj)
    restarts = str(s.restarts)
    if s.restarts and s.last_restart:
        restarts = f"{s.restarts} ({human_duration(now - s.last_restart)} ago)"
    spec, status = obj.get("spec") or {}, obj.get("status") or {}
    ips = status.get("podIPs") or ([{"ip": status["podIP"]}] if status.get("podIP") else [])
    gates = spec.get("readinessGates") or []
    gates_text = "<none>"
    if gates:
        true = {c.get("type") for c in status.get("conditions") or [] if c.get("status") == "True"}
        gates_text = f"{sum(1 for g in gates if g.get('conditionType') in true)}/{len(gates)}"
    return [
        obj["metadata"]["name"],
        f"{s.ready}/{s.total}",
        s.reason,
        restarts,
        age(obj, now),
        (ips[0].get("ip") if ips else "") or "<none>",
        spec.get("nodeName") or "<none>",
        status.get("nominatedNodeName") or "<none>",
        gates_text,
    ]


def _conditions(obj: dict) -> list[dict] | None:
    phase = (obj.get("status") or {}).get("phase")
    if phase not in ("Succeeded", "Failed"):
        return None
    message = "The pod has completed successfully." if phase == "Succeeded" else "The pod failed."
    return [{"type": "Completed", "status": "True", "reason": phase, "message": message}]


TABLE = TableSpec(COLUMNS, _row, _conditions)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_pod(pod: dict, events: list[dict], now: datetime | None = None) -> str:
    now = now or clock.now()
    meta, spec, status = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    w = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    if spec.get("priority") is not None:
        w.append(f"Priority:\t{spec['priority']}")
    if spec.get("priorityClassName"):
        w.append(f"Priority Class Name:\t{spec['priorityClassName']}")
    if spec.get("runtimeClassName"):
        w.append(f"Runtime Class Name:\t{spec['runtimeClassName']}")
    if spec.get("serviceAccountName"):
        w.append(f"Service Account:\t{spec['serviceAccountName']}")
    node = spec.get("nodeName")
    w.append(f"Node:\t{node}/{status.get('hostIP', '')}" if node else "Node:\t<none>")
    if status.get("startTime"):
        w.append(f"Start Time:\t{rfc_time(status['startTime'])}")
    w += labels_multiline("Labels", meta.get("labels"))
    w += annotations_multiline("Annotations", meta.get("annotations"))
    phase = status.get("phase", "")
    if meta.get("deletionTimestamp") and phase not in ("Failed", "Succeeded"):
        left = parse_time(meta["deletionTimestamp"])
        w.append(f"Status:\tTerminating (lasts {human_duration(left - now) if left else '<unknown>'})")
        w.append(f"Termination Grace Period:\t{meta.get('deletionGracePeriodSeconds', 30)}s")
    else:
        w.append(f"Status:\t{phase}")
    if status.get("reason"):
        w.append(f"Reason:\t{status['reason']}")
    if status.get("message"):
        w.append(f"Message:\t{status['message']}")
    w.append(f"IP:\t{status.get('podIP', '')}")
    ips = status.get("podIPs") or []
    w += ["IPs:", *(f"  IP:\t{ip.get('ip', '')}" for ip in ips)] if ips else ["IPs:\t<none>"]
    owner = next((o for o in meta.get("ownerReferences") or [] if o.get("controller")), None)
    if owner:
        w.append(f"Controlled By:\t{owner.get('kind')}/{owner.get('name')}")
    if status.get("nominatedNodeName"):
        w.append(f"NominatedNodeName:\t{status['nominatedNodeName']}")
    if spec.get("initContainers"):
        w += containers("Init Containers", spec["initContainers"], status.get("initContainerStatuses"))
    w += containers("Containers", spec.get("containers") or [], status.get("containerStatuses"))
    if status.get("conditions"):
        w += ["Conditions:", "  Type\tStatus"]
        w += [f"  {c.get('type')} \t{c.get('status')} " for c in status["conditions"]]
    w += volumes(spec.get("volumes"))
    w.append(f"QoS Class:\t{status.get('qosClass') or described_qos_class(pod)}")
    w += labels_multiline("Node-Selectors", spec.get("nodeSelector"))
    w += tolerations_multiline(spec.get("tolerations"))
    w += topology_spread(spec.get("topologySpreadConstraints"))
    return with_events(w, events, now)


def describe(read, namespace: str, name: str) -> str:
    pod = read.get("Pod", namespace or "default", name)
    return describe_pod(pod, events_of(read, pod))


KIND = KindInfo(
    kind="Pod",
    plural="pods",
    singular="pod",
    group="",
    version="v1",
    namespaced=True,
    short_names=("po",),
    categories=("all",),
    subresources=(
        Subresource("attach", "PodAttachOptions", ("create", "get")),
        Subresource("binding", "Binding", ("create",)),
        Subresource("ephemeralcontainers", "Pod", ("get", "patch", "update")),
        Subresource("eviction", "Eviction", ("create",), "policy", "v1"),
        Subresource("exec", "PodExecOptions", ("create", "get")),
        Subresource("log", "Pod", ("get",)),
        Subresource("portforward", "PodPortForwardOptions", ("create", "get")),
        status_subresource("Pod"),
    ),
    field_selectors=(
        "spec.nodeName",
        "spec.restartPolicy",
        "spec.schedulerName",
        "spec.serviceAccountName",
        "spec.hostNetwork",
        "status.phase",
        "status.podIP",
        "status.nominatedNodeName",
    ),
    reset_rank=40,
    defaults=defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=kubesystem.builtin_objects("Pod", "pods"),
    prepare_for_create=prepare_for_create,
)
