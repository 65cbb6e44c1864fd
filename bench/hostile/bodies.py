"""Valid objects of every kind, and the same objects with one field of the wrong JSON type.

The kinds are the registry's (every served kind) and the fields the API server's own type table
(upstream's definitions, `cluster.openapi.definitions`, as `cluster.apiserver.typecheck` reads
them), so every field of every kind is covered, at every depth, without a hand-written list to
fall behind. A new kind needs a valid body in `valid` (docs/adding-a-kind.md).
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterator

from cluster.apiserver import kinds
from cluster.apiserver.typecheck import field_specs

CONTAINER = {"name": "c", "image": "nginx:1.25"}
RBAC = "rbac.authorization.k8s.io/v1"
TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [CONTAINER]}}


def valid(kind: str, name: str) -> dict:
    """A valid object of `kind` named `name` (namespaced kinds in "default")."""
    meta = {"name": name, "labels": {"app": "x"}}
    apps = {"replicas": 0, "selector": {"matchLabels": {"app": "x"}}, "template": TEMPLATE}
    bodies = {
        "Pod": {"apiVersion": "v1", "spec": {"containers": [CONTAINER]}},
        "Node": {"apiVersion": "v1", "spec": {}},
        "ReplicationController": {
            "apiVersion": "v1",
            "spec": {"replicas": 0, "selector": {"app": "x"}, "template": TEMPLATE},
        },
        "ReplicaSet": {"apiVersion": "apps/v1", "spec": apps},
        "Deployment": {"apiVersion": "apps/v1", "spec": apps},
        "Namespace": {"apiVersion": "v1"},
        "Event": {
            "apiVersion": "v1",
            "involvedObject": {"kind": "Pod", "namespace": "default", "name": "p"},
            "reason": "Test",
            "message": "m",
        },
        "Lease": {"apiVersion": "coordination.k8s.io/v1", "spec": {"holderIdentity": "h"}},
        "ResourceQuota": {"apiVersion": "v1", "spec": {"hard": {"pods": "1000", "requests.cpu": "100"}}},
        "LimitRange": {
            "apiVersion": "v1",
            "spec": {"limits": [{"type": "Container", "default": {"cpu": "100m"}, "max": {"cpu": "4"}}]},
        },
        "PodDisruptionBudget": {
            "apiVersion": "policy/v1",
            "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}},
        },
        "DaemonSet": {"apiVersion": "apps/v1", "spec": {k: v for k, v in apps.items() if k != "replicas"}},
        "Job": {
            "apiVersion": "batch/v1",
            "spec": {"suspend": True, "template": {"spec": {**TEMPLATE["spec"], "restartPolicy": "Never"}}},
        },
        "PriorityClass": {"apiVersion": "scheduling.k8s.io/v1", "value": 5},
        "PodTemplate": {"apiVersion": "v1", "template": TEMPLATE},
        "ConfigMap": {"apiVersion": "v1", "data": {"key": "value"}},
        "Secret": {"apiVersion": "v1", "type": "Opaque", "data": {"key": "dmFsdWU="}},
        "Service": {
            "apiVersion": "v1",
            "spec": {"selector": {"app": "x"}, "ports": [{"port": 80, "targetPort": 8080}]},
        },
        "Endpoints": {
            "apiVersion": "v1",
            "subsets": [{"addresses": [{"ip": "10.244.1.5"}], "ports": [{"port": 8080}]}],
        },
        "EndpointSlice": {
            "apiVersion": "discovery.k8s.io/v1",
            "addressType": "IPv4",
            "endpoints": [{"addresses": ["10.244.1.5"]}],
            "ports": [{"port": 8080}],
        },
        "PersistentVolume": {
            "apiVersion": "v1",
            "spec": {
                "capacity": {"storage": "1Gi"},
                "accessModes": ["ReadWriteOnce"],
                "hostPath": {"path": "/d"},
            },
        },
        "PersistentVolumeClaim": {
            "apiVersion": "v1",
            "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}},
        },
        "StorageClass": {"apiVersion": "storage.k8s.io/v1", "provisioner": "example.com/disk"},
        "CSINode": {
            "apiVersion": "storage.k8s.io/v1",
            "spec": {
                "drivers": [{"name": "disk.csi.example.com", "nodeID": "n1", "allocatable": {"count": 2}}]
            },
        },
        "CSIDriver": {
            "apiVersion": "storage.k8s.io/v1",
            "spec": {
                "attachRequired": False,
                "podInfoOnMount": True,
                "volumeLifecycleModes": ["Persistent", "Ephemeral"],
                "tokenRequests": [{"audience": "vault", "expirationSeconds": 3600}],
                "nodeAllocatableUpdatePeriodSeconds": 60,
            },
        },
        "ControllerRevision": {"apiVersion": "apps/v1", "data": {"spec": {}}, "revision": 1},
        "ServiceAccount": {"apiVersion": "v1", "imagePullSecrets": [{"name": "registry"}]},
        "Role": {"apiVersion": RBAC, "rules": [{"verbs": ["get"], "apiGroups": [""], "resources": ["pods"]}]},
        "ClusterRole": {"apiVersion": RBAC, "rules": [{"verbs": ["get"], "nonResourceURLs": ["/healthz"]}]},
        "RoleBinding": {
            "apiVersion": RBAC,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "x"},
            "subjects": [{"kind": "ServiceAccount", "name": "default", "namespace": "default"}],
        },
        "ClusterRoleBinding": {
            "apiVersion": RBAC,
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "view"},
            "subjects": [{"kind": "Group", "name": "students", "apiGroup": "rbac.authorization.k8s.io"}],
        },
        "StatefulSet": {"apiVersion": "apps/v1", "spec": {**apps, "serviceName": "x"}},
        "HorizontalPodAutoscaler": {
            "apiVersion": "autoscaling/v2",
            "spec": {
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "x"},
                "minReplicas": 1,
                "maxReplicas": 3,
                "metrics": [
                    {
                        "type": "Resource",
                        "resource": {
                            "name": "cpu",
                            "target": {"type": "Utilization", "averageUtilization": 50},
                        },
                    }
                ],
                "behavior": {"scaleDown": {"stabilizationWindowSeconds": 60}},
            },
        },
        "CronJob": {
            "apiVersion": "batch/v1",
            "spec": {
                "schedule": "*/5 * * * *",
                "suspend": True,
                "jobTemplate": {
                    "spec": {"template": {"spec": {**TEMPLATE["spec"], "restartPolicy": "Never"}}}
                },
            },
        },
    }
    if kind not in bodies:
        raise KeyError(f"no valid {kind} in bench/hostile/bodies.py: add one (docs/adding-a-kind.md)")
    return copy.deepcopy({"kind": kind, "metadata": meta, **bodies[kind]})


# Every served kind, from the registry (filled when Django is ready, before this module is imported).
KINDS = tuple(kinds.KINDS)
Path = tuple  # of str (fields) and int (list indexes)


def field_paths(type_name: str, prefix: Path = (), depth: int = 0) -> Iterator[tuple[Path, str]]:
    """Every (path, type spec) of `type_name`'s fields, lists entered at index 0, maps at key "k"."""
    for field, spec in (field_specs(type_name) or {}).items():
        yield from _spec_paths((*prefix, field), spec, depth)


def _spec_paths(path: Path, spec: str, depth: int) -> Iterator[tuple[Path, str]]:
    yield path, spec
    if depth > 12:
        return
    if spec.startswith("["):
        yield from _spec_paths((*path, 0), spec[1:-1], depth + 1)
    elif spec.startswith("{"):
        yield from _spec_paths((*path, "k"), spec[1:-1], depth + 1)
    elif field_specs(spec):
        yield from field_paths(spec, path, depth + 1)


def wrong_values(spec: str) -> list[object]:
    """JSON values that are not of the type `spec` names (null is never wrong: it means "unset")."""
    if spec.startswith("["):
        return [7, "text", {"a": 1}, True]
    if spec in ("string", "Time", "MicroTime"):
        return [7, ["a"], {"a": "b"}, False, 1.5]
    if spec in ("int32", "int64"):
        return ["seven", 1.5, [1], {"a": 1}, True]
    if spec == "number":
        return ["seven", [1], {"a": 1}, True]
    if spec == "boolean":
        return ["true", 1, [True], {"a": True}]
    if spec == "Quantity":
        return [True, ["1"], {"a": "1"}]
    if spec == "IntOrString":
        return [True, 1.5, [1], {"a": 1}]
    return [7, "text", ["a"], True]  # objects, maps and named types


def put(obj: dict, path: Path, value: object) -> dict:
    """`obj` with `value` at `path`, creating the objects and lists on the way."""
    target: object = obj
    for part, following in itertools.pairwise(path):
        empty: object = [] if isinstance(following, int) else {}
        if isinstance(part, int):
            assert isinstance(target, list)
            while len(target) <= part:
                target.append(copy.deepcopy(empty))
            if not isinstance(target[part], list | dict):
                target[part] = copy.deepcopy(empty)
            target = target[part]
        else:
            assert isinstance(target, dict)
            if not isinstance(target.get(part), list | dict):
                target[part] = copy.deepcopy(empty)
            target = target[part]
    last = path[-1]
    if isinstance(last, int):
        assert isinstance(target, list)
        while len(target) <= last:
            target.append(None)
    target[last] = value  # type: ignore[index]
    return obj


def wrong_bodies(kind: str, name: str) -> Iterator[tuple[Path, object, dict]]:
    """(path, wrong value, object) for every field of `kind`, each wrong value in turn."""
    for path, spec in field_paths(kind):
        if path in (("kind",), ("apiVersion",)):
            continue  # these decide the kind itself: another check answers them (400 too)
        for value in wrong_values(spec):
            yield path, value, put(valid(kind, name), path, copy.deepcopy(value))


def dotted(path: Path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")
