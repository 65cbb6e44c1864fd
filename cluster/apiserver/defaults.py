"""Defaulting, as the real API server's SetDefaults_* functions and admission plugins do on create.

Only fields the user left out are filled in; nothing the user wrote is changed.
"""

from __future__ import annotations

import secrets
import uuid
from datetime import datetime

from cluster.apiserver.kinds import kind_info
from k8s import clock
from k8s.quantity import QuantityError, parse_quantity

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
_GENERATE_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"  # utilrand's alphabet: no vowels, no look-alikes


_formatted: tuple[datetime | None, str] = (None, "")


def now_rfc3339() -> str:
    """The clock's time to the second, formatted once per second (every write stamps a time)."""
    global _formatted
    now = clock.now().replace(microsecond=0)
    second, text = _formatted
    if now != second:
        text = now.strftime("%Y-%m-%dT%H:%M:%SZ")
        _formatted = (now, text)
    return text


def new_uid() -> str:
    return str(uuid.uuid4())


def generated_name(prefix: str) -> str:
    """metadata.generateName: the prefix plus five random characters."""
    return prefix + "".join(secrets.choice(_GENERATE_ALPHABET) for _ in range(5))


def image_pull_policy(image: str) -> str:
    """Always for :latest or no tag (and no digest), else IfNotPresent."""
    if "@" in image:
        return "IfNotPresent"
    last = image.rsplit("/", 1)[-1]
    tag = last.split(":", 1)[1] if ":" in last else ""
    return "Always" if tag in ("", "latest") else "IfNotPresent"


def _container(container: dict) -> None:
    if not isinstance(container, dict):
        return
    image = container.get("image")
    if isinstance(image, str) and image and "imagePullPolicy" not in container:
        container["imagePullPolicy"] = image_pull_policy(image)
    container.setdefault("terminationMessagePath", "/dev/termination-log")
    container.setdefault("terminationMessagePolicy", "File")
    resources = container.setdefault("resources", {})
    if isinstance(resources, dict) and isinstance(resources.get("limits"), dict):
        # A container that sets only limits requests exactly its limits (SetDefaults_Pod).
        requests = resources.setdefault("requests", {})
        if isinstance(requests, dict):
            for name, amount in resources["limits"].items():
                requests.setdefault(name, amount)
    for port in container.get("ports") or []:
        if isinstance(port, dict):
            port.setdefault("protocol", "TCP")


def pod_spec(spec: dict) -> None:
    """SetDefaults_PodSpec and the container defaults (also used for templates)."""
    spec.setdefault("restartPolicy", "Always")
    spec.setdefault("terminationGracePeriodSeconds", 30)
    spec.setdefault("dnsPolicy", "ClusterFirst")
    spec.setdefault("securityContext", {})
    spec.setdefault("schedulerName", "default-scheduler")
    spec.setdefault("enableServiceLinks", True)
    if spec.get("serviceAccountName") or spec.get("serviceAccount"):
        spec.setdefault("serviceAccountName", spec.get("serviceAccount"))
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            _container(container)


def qos_class(spec: dict) -> str:
    """The pod's QoS class, from its containers' requests and limits (v1/qos.GetPodQOS)."""
    guaranteed, any_set = True, False
    for container in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        resources = container.get("resources") or {} if isinstance(container, dict) else {}
        requests, limits = resources.get("requests") or {}, resources.get("limits") or {}
        if requests or limits:
            any_set = True
        for name in ("cpu", "memory"):
            if name not in limits or not _same_quantity(requests.get(name, limits[name]), limits[name]):
                guaranteed = False
    if not any_set:
        return "BestEffort"
    return "Guaranteed" if guaranteed else "Burstable"


def _same_quantity(a: object, b: object) -> bool:
    try:
        return parse_quantity(a) == parse_quantity(b)  # type: ignore[arg-type]
    except (QuantityError, TypeError):
        return False


def _pod(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    pod_spec(spec)
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


def _template(spec: dict) -> None:
    template = spec.get("template")
    if isinstance(template, dict) and isinstance(template.setdefault("spec", {}), dict):
        template.setdefault("metadata", {})
        pod_spec(template["spec"])


def _replication_controller(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 1)
    spec.setdefault("minReadySeconds", 0)
    labels = ((spec.get("template") or {}).get("metadata") or {}).get("labels") or {}
    if labels and not spec.get("selector"):
        spec["selector"] = dict(labels)
    if labels and not obj["metadata"].get("labels"):
        obj["metadata"]["labels"] = dict(labels)
    _template(spec)
    obj.setdefault("status", {}).setdefault("replicas", 0)


def _replica_set(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if isinstance(spec, dict):
        spec.setdefault("replicas", 1)
        spec.setdefault("minReadySeconds", 0)
        _template(spec)
    obj.setdefault("status", {}).setdefault("replicas", 0)


def _deployment(obj: dict) -> None:
    spec = obj.setdefault("spec", {})
    if not isinstance(spec, dict):
        return
    spec.setdefault("replicas", 1)
    strategy = spec.setdefault("strategy", {})
    if isinstance(strategy, dict):
        strategy.setdefault("type", "RollingUpdate")
        if strategy["type"] == "RollingUpdate":
            rolling = strategy.setdefault("rollingUpdate", {})
            if isinstance(rolling, dict):
                rolling.setdefault("maxUnavailable", "25%")
                rolling.setdefault("maxSurge", "25%")
    spec.setdefault("revisionHistoryLimit", 10)
    spec.setdefault("progressDeadlineSeconds", 600)
    spec.setdefault("minReadySeconds", 0)
    _template(spec)
    obj.setdefault("status", {})


def _namespace(obj: dict) -> None:
    obj.setdefault("spec", {}).setdefault("finalizers", ["kubernetes"])
    obj.setdefault("status", {}).setdefault("phase", "Active")
    obj["metadata"].setdefault("labels", {})["kubernetes.io/metadata.name"] = obj["metadata"].get("name", "")


def _node(obj: dict) -> None:
    obj.setdefault("spec", {})
    obj.setdefault("status", {})


def no_defaults(obj: dict) -> None:
    """The defaults hook of a kind the server fills in nothing for (Event, Lease)."""


# The built-in kinds' defaults hooks (registered in cluster/apiserver/builtin_kinds.py).
POD = _pod
REPLICATION_CONTROLLER = _replication_controller
REPLICA_SET = _replica_set
DEPLOYMENT = _deployment
NAMESPACE = _namespace
NODE = _node


def kind_defaults(obj: dict) -> None:
    """The kind's spec/status defaults; safe to run on a manifest before comparing with the stored one."""
    info = kind_info(obj.get("kind", ""))
    if info is not None and info.defaults is not None:
        info.defaults(obj)


def on_create(obj: dict, namespaced: bool) -> None:
    """All create-time defaults: metadata the server owns, then the kind's own defaults."""
    meta = obj.setdefault("metadata", {})
    if namespaced:
        if not meta.get("namespace"):
            meta["namespace"] = "default"
    else:
        meta.pop("namespace", None)
    if not meta.get("name") and isinstance(meta.get("generateName"), str) and meta["generateName"]:
        meta["name"] = generated_name(meta["generateName"])
    meta["uid"] = new_uid()
    meta["creationTimestamp"] = now_rfc3339()
    info = kind_info(obj.get("kind", ""))
    if info is not None and info.workload:
        meta["generation"] = 1
    for key in ("deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"):
        meta.pop(key, None)
    kind_defaults(obj)
