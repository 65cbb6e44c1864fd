"""What-if: the scheduler's explanation for an edited copy of a pod, of nodes or of the profile,
against the cluster as it is now, writing nothing.

The pod goes through create's admission, defaults and validation without being stored
(`writes.admitted`); node overrides are checked as a Node update would be; a profile override is
one `profiles[]` entry of a KubeSchedulerConfiguration. The answer is the explanation JSON the
Scheduler panel reads (`Decision.to_json()`), with `whatIf` saying what it was asked against.
"""

from __future__ import annotations

import copy

from cluster.apiserver import reads, typecheck
from cluster.apiserver.errors import ApiError, Cause, bad_request, invalid
from cluster.apiserver.kinds import kind_info
from cluster.apiserver.validators import validate
from cluster.apiserver.writes import admitted
from cluster.models import Cluster
from k8s.quantity import QuantityError, parse_quantity
from k8s.yamldocs import YamlError, load_one
from scheduler import configuration
from scheduler.engine.config import ConfigError, SchedulerConfig, build_profile, default_config
from scheduler.engine.cycle import schedule
from scheduler.engine.preemption import PodDisruptionBudget
from scheduler.engine.profile import DEFAULT_SCHEDULER_NAME, Profile
from scheduler.engine.snapshot import STORAGE_KINDS, Snapshot

MAX_BODY_BYTES = 256 * 1024
MAX_NODE_OVERRIDES = 50
PER_MINUTE = 60  # what-ifs per caller and cluster (the teacher's are not counted)
NODE_FIELDS = ("labels", "taints", "capacity")
BODY_FIELDS = ("pod", "nodes", "profile", "schedulerName")
# The owners whose selectors turn on default spreading, as the live scheduler watches them.
SPREADING_OWNER_KINDS = ("ReplicationController", "ReplicaSet")


def _refused(field: str, message: str, kind: str = "FieldValueInvalid") -> ApiError:
    cause = Cause(kind, field, message)
    return ApiError(
        422, "Invalid", f"what-if request is invalid: {cause.text()}", {"causes": [cause.to_json()]}
    )


def answer(cluster: Cluster, body: object) -> dict:
    """The explanation for the body's pod (required) under its overrides; ApiError 4xx for bad input."""
    if not isinstance(body, dict):
        raise bad_request("the request body must be a JSON object")
    for key in body:
        if key not in BODY_FIELDS:
            raise _refused(key, f'Unsupported value: "{key}": supported values: {", ".join(BODY_FIELDS)}')
    body = {
        **body,
        "pod": _from_text(body.get("pod"), "pod"),
        "profile": _from_text(body.get("profile"), "profile"),
    }
    if not isinstance(body.get("pod"), dict):
        raise _refused("pod", "Required value: a Pod object", "FieldValueRequired")
    pod = _admitted_pod(cluster, body["pod"])
    state = read_cluster(cluster)
    nodes = apply_node_overrides(state.nodes, body.get("nodes"))
    profile = choose_profile(state.config, pod, body.get("profile"), body.get("schedulerName"))
    key = (pod["metadata"]["namespace"], pod["metadata"]["name"])
    others = [p for p in state.pods if _key(p) != key]
    snapshot = Snapshot.from_objects(nodes, others, state.storage)
    snapshot.workload_selectors = state.workloads
    nominated = [
        (p, (p.get("status") or {})["nominatedNodeName"])
        for p in others
        if not (p.get("spec") or {}).get("nodeName") and (p.get("status") or {}).get("nominatedNodeName")
    ]
    decision = schedule(pod, snapshot, profile, nominated=nominated, pdbs=state.pdbs)
    result = decision.to_json()
    result["whatIf"] = {
        "revision": state.revision,
        "nodes": sorted((body.get("nodes") or {}).keys()),
        "profileOverride": body.get("profile") is not None,
        "configError": state.config_error,
    }
    return result


def _from_text(value: object, field: str) -> object:
    """The page sends what a student typed (YAML or JSON) as text: parsed here, errors located."""
    if not isinstance(value, str):
        return value
    if not value.strip():
        return None
    try:
        return load_one(value)
    except YamlError as err:
        line = f" (line {err.line})" if err.line else ""
        raise _refused(field, f"Invalid value: invalid YAML{line}: {err.message}") from None


def _admitted_pod(cluster: Cluster, pod: dict) -> dict:
    """The pod as create would store it (Priority admission, LimitRanger, defaults, validation)."""
    pod = copy.deepcopy(pod)
    pod.setdefault("apiVersion", "v1")
    pod.setdefault("kind", "Pod")
    if pod.get("kind") != "Pod":
        raise _refused("pod.kind", f'Unsupported value: "{pod.get("kind")}": supported values: "Pod"')
    meta = pod.get("metadata")
    if isinstance(meta, dict):
        meta = {k: v for k, v in meta.items() if k not in ("resourceVersion", "uid", "managedFields")}
        pod["metadata"] = meta
    status = pod.pop("status", None)
    _, admitted_pod = admitted(cluster, pod)
    if isinstance(status, dict) and isinstance(status.get("nominatedNodeName"), str):
        admitted_pod["status"] = {"nominatedNodeName": status["nominatedNodeName"]}
    return admitted_pod


class ClusterState:
    """What the live scheduler's informer holds, read once from the store."""

    def __init__(self, cluster: Cluster) -> None:
        self.nodes, self.revision = reads.list_objects(cluster, "Node")
        pods, _ = reads.list_objects(cluster, "Pod")
        self.pods = [p for p in pods if (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
        self.storage: list[dict] = []
        for kind in STORAGE_KINDS:
            if kind_info(kind) is not None:
                items, _ = reads.list_objects(cluster, kind)
                self.storage += [{**item, "kind": kind} for item in items]
        self.workloads = []
        for kind in SPREADING_OWNER_KINDS:
            items, _ = reads.list_objects(cluster, kind)
            self.workloads += [
                {
                    "namespace": i["metadata"].get("namespace", ""),
                    "selector": i["spec"].get("selector"),
                    "kind": kind,
                }
                for i in items
            ]
        self.pdbs = []
        if kind_info("PodDisruptionBudget") is not None:
            items, _ = reads.list_objects(cluster, "PodDisruptionBudget")
            self.pdbs = [PodDisruptionBudget.of(item) for item in items]
        try:
            found = reads.get(cluster, "ConfigMap", configuration.NAMESPACE, configuration.NAME)
        except ApiError:
            found = None
        reading = configuration.read(found)
        self.config: SchedulerConfig = reading.config or default_config()
        self.config_error = reading.error


def read_cluster(cluster: Cluster) -> ClusterState:
    return ClusterState(cluster)


def apply_node_overrides(nodes: list[dict], overrides: object) -> list[dict]:
    """Copies of `nodes` with each override's labels and taints (replacing the node's) and capacity
    (each resource named set in capacity and allocatable); checked as a Node update would be."""
    if overrides is None:
        return nodes
    if not isinstance(overrides, dict):
        raise _refused("nodes", "Invalid value: must be an object of node name to overrides")
    if len(overrides) > MAX_NODE_OVERRIDES:
        raise _refused(
            "nodes",
            f"Too many: {len(overrides)}: must have at most {MAX_NODE_OVERRIDES} items",
            "FieldValueTooMany",
        )
    by_name = {node["metadata"]["name"]: node for node in nodes}
    changed = {}
    info = kind_info("Node")
    for name, override in overrides.items():
        where = f"nodes.{name}"
        if name not in by_name:
            raise _refused(where, f'Not found: "{name}"', "FieldValueNotFound")
        if not isinstance(override, dict):
            raise _refused(where, "Invalid value: must be an object")
        for key in override:
            if key not in NODE_FIELDS:
                raise _refused(
                    f"{where}.{key}",
                    f'Unsupported value: "{key}": supported values: {", ".join(NODE_FIELDS)}',
                )
        node = copy.deepcopy(by_name[name])
        if "labels" in override:
            node["metadata"]["labels"] = override["labels"] or {}
        if "taints" in override:
            node.setdefault("spec", {})["taints"] = override["taints"] or []
        if "capacity" in override:
            _set_capacity(node, override["capacity"], f"{where}.capacity")
        typecheck.check_body(info, node)
        causes = validate(info, node)
        if causes:
            raise invalid(info, name, causes)
        changed[name] = node
    return [changed.get(node["metadata"]["name"], node) for node in nodes]


def _set_capacity(node: dict, capacity: object, where: str) -> None:
    if not isinstance(capacity, dict):
        raise _refused(where, "Invalid value: must be an object of resource name to quantity")
    status = node.setdefault("status", {})
    for resource, value in capacity.items():
        try:
            if not isinstance(value, str | int) or isinstance(value, bool):
                raise QuantityError(str(value))
            parse_quantity(str(value))
        except QuantityError:
            raise _refused(f"{where}.{resource}", f'Invalid value: "{value}": must be a quantity') from None
        status.setdefault("capacity", {})[resource] = str(value)
        status.setdefault("allocatable", {})[resource] = str(value)


def choose_profile(config: SchedulerConfig, pod: dict, spec: object, scheduler_name: object) -> Profile:
    """A profile override (one `profiles[]` entry), else the cluster's profile named by
    `schedulerName` or the pod's own."""
    wanted = scheduler_name or pod["spec"].get("schedulerName") or DEFAULT_SCHEDULER_NAME
    if not isinstance(wanted, str):
        raise _refused("schedulerName", "Invalid value: must be a string")
    if spec is not None:
        if not isinstance(spec, dict):
            raise _refused("profile", "Invalid value: must be an object (a profiles[] entry)")
        try:
            return build_profile({"schedulerName": wanted, **spec}, "profile")
        except ConfigError as err:
            field, _, message = str(err).partition(": ")
            raise _refused(field, message) from None
    profile = config.profile_for(wanted)
    if profile is None:
        names = ", ".join(f'"{name}"' for name in config.profiles)
        raise _refused(
            "schedulerName",
            f'Not found: "{wanted}": no profile of the scheduler\'s configuration runs it '
            f"(profiles: {names}); such a pod stays Pending with no events",
            "FieldValueNotFound",
        )
    return profile


def _key(pod: dict) -> tuple[str, str]:
    meta = pod.get("metadata") or {}
    return meta.get("namespace", ""), meta.get("name", "")
