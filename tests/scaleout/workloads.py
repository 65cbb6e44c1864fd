"""Objects and reads the scale-out tests share (through the REST API, as a browser or kubectl)."""

from __future__ import annotations

import urllib.error

from bench.server import nginx_rc
from tests.scaleout.support import request


def create_rc(base: str, name: str, replicas: int) -> dict:
    path = f"{base}/api/v1/namespaces/default/replicationcontrollers"
    return request(path, "POST", nginx_rc(name, replicas))


def pods(base: str, app: str) -> list[dict]:
    return request(f"{base}/api/v1/namespaces/default/pods?labelSelector=app%3D{app}")["items"]


def running(base: str, app: str) -> int:
    return sum((pod.get("status") or {}).get("phase") == "Running" for pod in pods(base, app))


def bound(base: str, app: str) -> int:
    return sum(bool((pod.get("spec") or {}).get("nodeName")) for pod in pods(base, app))


LEASE = "kubesim-controlplane"


def lease(base: str) -> dict | None:
    try:
        return request(
            f"{base}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/kubesim-controlplane"
        )
    except urllib.error.HTTPError:
        return None


def holder(base: str) -> str:
    return ((lease(base) or {}).get("spec") or {}).get("holderIdentity") or ""


def trace_of(base: str, kind: str, name: str) -> dict:
    """The newest trace of the object, with every step."""
    snapshot = request(f"{base}/snapshot")
    matching = [t for t in snapshot["traces"] if t["kind"] == kind and t["name"] == name]
    return request(f"{base}/traces/{matching[-1]['id']}")


def trace_problems(trace: dict, pod_names: list[str]) -> list[str]:
    """A complete RC trace: steps 1–6 once, and 7–13 for every pod, with exactly one binding (11)."""
    problems = []
    own = [s["step"] for s in trace["steps"] if s["object"]["kind"] == trace["kind"]]
    for number in range(1, 7):
        if own.count(number) != 1:
            problems.append(f"step {number} of the {trace['kind']} appears {own.count(number)} times")
    for name in pod_names:
        steps = [
            s["step"]
            for s in trace["steps"]
            if s["object"] == {"kind": "Pod", "namespace": "default", "name": name}
        ]
        missing = sorted(set(range(7, 14)) - set(steps))
        if missing:
            problems.append(f"pod {name} lacks steps {missing}")
        if steps.count(11) != 1:
            problems.append(f"pod {name} was bound {steps.count(11)} times")
    return problems
