"""The disruption controller: keeps every PodDisruptionBudget's status, as upstream's
`pkg/controller/disruption` does (it runs inside the controller manager, on its informer).

For a budget it finds the pods its selector matches in its namespace, then:
- expectedPods and desiredHealthy: with an integer `minAvailable`, the matching pods and that
  number; with a percentage `minAvailable` or any `maxUnavailable`, the sum of the replicas their
  controllers want (ReplicationController, ReplicaSet, or the Deployment above a ReplicaSet), and
  the percentage of it rounded up (desiredHealthy = expected − maxUnavailable, at least 0);
- currentHealthy: the pods that are Ready, not being deleted, and not in `disruptedPods` (pods
  whose eviction the API server granted in the last 2 minutes, which the controller forgets once
  they are being deleted or that time has passed);
- disruptionsAllowed = currentHealthy − desiredHealthy, at least 0 (and 0 when no pod is
  expected), with the DisruptionAllowed condition (SufficientPods / InsufficientPods) and
  observedGeneration. An eviction spends a disruption (`cluster/apiserver/eviction.py`).
"""

from __future__ import annotations

import copy
import math
from datetime import UTC, datetime, timedelta

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.controllers.pods import controller_ref, is_ready, labels_of
from k8s import clock
from k8s.labels import SelectorError, label_selector

DELETION_TIMEOUT = timedelta(minutes=2)
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def _selects(pdb: dict, pod: dict) -> bool:
    selector = (pdb.get("spec") or {}).get("selector")
    if not isinstance(selector, dict) or not (
        selector.get("matchLabels") or selector.get("matchExpressions")
    ):
        return False  # a nil or empty selector matches nothing here, as the eviction handler reads it
    try:
        return label_selector(selector)(labels_of(pod))
    except SelectorError:
        return False


def _scaled(value: object, total: int, round_up: bool) -> int:
    """intstr.GetScaledValueFromIntOrPercent."""
    if isinstance(value, int):
        return value
    percent = int(str(value).rstrip("%"))
    exact = percent * total / 100
    return math.ceil(exact) if round_up else math.floor(exact)


def _parse(text: str) -> datetime | None:
    try:
        return datetime.strptime(text, TIME_FORMAT).replace(tzinfo=UTC)
    except (TypeError, ValueError):
        return None


def condition(status: dict, allowed: int, generation: int, now: str) -> list[dict]:
    """UpdateDisruptionAllowedCondition: the DisruptionAllowed condition for `allowed`."""
    true = allowed > 0
    wanted = {
        "type": "DisruptionAllowed",
        "status": "True" if true else "False",
        "observedGeneration": generation,
        "reason": "SufficientPods" if true else "InsufficientPods",
        "message": "",
    }
    conditions = [dict(c) for c in status.get("conditions") or [] if isinstance(c, dict)]
    for index, current in enumerate(conditions):
        if current.get("type") == "DisruptionAllowed":
            moved = current.get("status") != wanted["status"]
            stamp = now if moved else current.get("lastTransitionTime") or now
            conditions[index] = {**wanted, "lastTransitionTime": stamp}
            return conditions
    return [*conditions, {**wanted, "lastTransitionTime": now}]


class Budgets:
    """What the disruption controller needs from the controller manager's informer."""

    def __init__(self, informer) -> None:
        self.informer = informer

    def pods(self, pdb: dict) -> list[dict]:
        namespace = pdb["metadata"].get("namespace", "")
        return [
            pod
            for (pod_namespace, _), pod in self.informer.store["Pod"].items()
            if pod_namespace == namespace and _selects(pdb, pod)
        ]

    def controller_scale(self, namespace: str, ref: dict) -> tuple[str, int] | None:
        """The controller of a pod and the replicas it wants (upstream's finders)."""
        kind = ref.get("kind")
        if kind == "ReplicationController":
            owner = self.informer.get("ReplicationController", namespace, ref.get("name", ""))
        elif kind == "ReplicaSet":
            owner = self.informer.get("ReplicaSet", namespace, ref.get("name", ""))
            above = controller_ref(owner) if owner is not None else None
            if above is not None and above.get("kind") == "Deployment":
                owner = self.informer.get("Deployment", namespace, above.get("name", ""))
        else:
            owner = None
        if owner is None or (
            ref.get("kind") != "ReplicaSet" and owner["metadata"].get("uid") != ref.get("uid")
        ):
            return None
        replicas = (owner.get("spec") or {}).get("replicas", 1)
        return owner["metadata"].get("uid", ""), int(replicas) if isinstance(replicas, int) else 1


class DisruptionController:
    def __init__(self, host) -> None:
        self.host = host
        self.budgets = Budgets(host.informer)
        self.dirty: set[tuple[str, str]] = set()
        self.recheck: dict[tuple[str, str], float] = {}  # budget -> clock.monotonic() to sync again

    # -- what the manager tells it ------------------------------------------------------------
    def observe(self, kind: str, namespace: str, name: str) -> None:
        """A budget changed (sync it) or a pod or controller did (sync its namespace's budgets)."""
        if kind == "PodDisruptionBudget":
            self.dirty.add((namespace, name))
            return
        for pdb_namespace, pdb_name in self.host.informer.store["PodDisruptionBudget"]:
            if pdb_namespace == namespace:
                self.dirty.add((pdb_namespace, pdb_name))

    def next_wakeup(self) -> float | None:
        if not self.recheck:
            return None
        return max(0.0, min(self.recheck.values()) - clock.monotonic())

    def due(self) -> bool:
        now = clock.monotonic()
        for key, when in list(self.recheck.items()):
            if when <= now:
                del self.recheck[key]
                self.dirty.add(key)
        return bool(self.dirty)

    # -- database thread -------------------------------------------------------------------
    def sync_all(self) -> int:
        dirty, self.dirty = self.dirty, set()
        for namespace, name in sorted(dirty):
            pdb = self.host.informer.get("PodDisruptionBudget", namespace, name)
            if pdb is not None:
                self.sync(pdb)
        return len(dirty)

    def sync(self, pdb: dict) -> None:
        pods = self.budgets.pods(pdb)
        expected, desired = self.expected(pdb, pods)
        now = clock.now()
        disrupted, recheck = self._disrupted(pdb, pods, now)
        healthy = 0
        for pod in pods:
            if pod["metadata"].get("deletionTimestamp") or pod["metadata"]["name"] in disrupted:
                continue
            healthy += 1 if is_ready(pod) else 0
        allowed = healthy - desired
        if expected <= 0 or allowed <= 0:
            allowed = 0
        key = (pdb["metadata"].get("namespace", ""), pdb["metadata"]["name"])
        if recheck is not None:
            self.recheck[key] = clock.monotonic() + max(0.0, (recheck - now).total_seconds())
        self._write(pdb, healthy, desired, expected, allowed, disrupted, now)

    def expected(self, pdb: dict, pods: list[dict]) -> tuple[int, int]:
        """getExpectedPodCount: (expectedPods, desiredHealthy)."""
        spec = pdb.get("spec") or {}
        low, high = spec.get("minAvailable"), spec.get("maxUnavailable")
        if high is None and isinstance(low, int):
            return len(pods), low
        if high is None and low is None:
            return len(pods), 0
        expected = self._expected_scale(pdb, pods)
        if high is not None:
            return expected, max(expected - _scaled(high, expected, True), 0)
        return expected, _scaled(low, expected, True)

    def _expected_scale(self, pdb: dict, pods: list[dict]) -> int:
        namespace = pdb["metadata"].get("namespace", "")
        scales: dict[str, int] = {}
        for pod in pods:
            ref = controller_ref(pod)
            if ref is None:
                continue  # an unmanaged pod counts for nothing here (upstream warns about it)
            found = self.budgets.controller_scale(namespace, ref)
            if found is not None:
                scales[found[0]] = found[1]
        return sum(scales.values())

    def _disrupted(self, pdb: dict, pods: list[dict], now: datetime) -> tuple[dict, datetime | None]:
        """buildDisruptedPodMap: the evictions still expected, and when to look again."""
        known = (pdb.get("status") or {}).get("disruptedPods") or {}
        kept, recheck = {}, None
        for pod in pods:
            name = pod["metadata"]["name"]
            if pod["metadata"].get("deletionTimestamp") or name not in known:
                continue
            when = _parse(known[name])
            if when is None or when + DELETION_TIMEOUT < now:
                continue  # expected to be deleted but it wasn't: forget it
            kept[name] = known[name]
            if recheck is None or when + DELETION_TIMEOUT < recheck:
                recheck = when + DELETION_TIMEOUT
        return kept, recheck

    def _write(self, pdb, healthy, desired, expected, allowed, disrupted, now: datetime) -> None:
        status = pdb.get("status") or {}
        generation = pdb["metadata"].get("generation", 1)
        new = {
            "observedGeneration": generation,
            "disruptionsAllowed": allowed,
            "currentHealthy": healthy,
            "desiredHealthy": desired,
            "expectedPods": expected,
            "conditions": condition(status, allowed, generation, now.strftime(TIME_FORMAT)),
        }
        if disrupted:
            new = {"observedGeneration": generation, "disruptedPods": disrupted, **new}
        if new == status:
            return
        body = copy.deepcopy(pdb)
        body["status"] = new
        body["metadata"].pop("resourceVersion", None)
        try:
            stored = api.update(
                self.host.cluster, body, self.host.actor(None, "disruption controller"), "status"
            )
        except ApiError:
            return  # deleted meanwhile
        self.host.assume(stored)
