"""The namespace controller (upstream `pkg/controller/namespace`, v1.33), run by the controller
manager: a namespace being deleted (phase Terminating, `kubernetes` in spec.finalizers) is emptied,
every namespaced object in it deleted through the API server (pods gracefully, owners before what
they own), and its status conditions say how far it got, with upstream's types, reasons and
messages (`deletion/status_condition_utils.go`). When nothing is left, `kubernetes` leaves
spec.finalizers and the namespace is gone. An object kept by a finalizer keeps the namespace
Terminating with NamespaceFinalizersRemaining until whoever owns the finalizer removes it.

Discovery and group versions never fail here (the kinds are the API server's own), so those two
conditions always say so. Each pass deletes at most BATCH objects; a namespace with content left
is looked at again when the manager sees a change, and after RETRY_SECONDS (doubling up to
MAX_RETRY_SECONDS while nothing changes: a finalizer nobody removes).
"""

from __future__ import annotations

from collections import Counter

from cluster.apiserver import finalizers
from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import kind_info, reset_order
from cluster.apiserver.namespaces import KUBERNETES, spec_finalizers
from cluster.flow.writers import COMPONENT
from cluster.models import ApiObject
from k8s import clock

BATCH = 200
RETRY_SECONDS = 1.0
MAX_RETRY_SECONDS = 8.0
ACTOR = Actor("controller-manager", "namespace controller", flow=COMPONENT)
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"

# conditionTypes, in upstream's order, with their "ok" reason and message.
CONDITIONS = (
    ("NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"),
    (
        "NamespaceDeletionGroupVersionParsingFailure",
        "ParsedGroupVersions",
        "All legacy kube types successfully parsed",
    ),
    (
        "NamespaceDeletionContentFailure",
        "ContentDeleted",
        "All content successfully deleted, may be waiting on finalization",
    ),
    ("NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"),
    ("NamespaceFinalizersRemaining", "ContentRemoved", "All content successfully removed"),
)


def remaining_conditions(items: list[dict]) -> dict[str, tuple[str, str]]:
    """ProcessContentTotals: the failing conditions, type -> (reason, message), for what is left."""
    by_resource: Counter[str] = Counter()
    by_finalizer: Counter[str] = Counter()
    for body in items:
        info = kind_info(body.get("kind", ""))
        if info is None:
            continue
        by_resource[f"{info.plural}.{info.group}"] += 1
        for finalizer in finalizers.of(body):
            by_finalizer[finalizer] += 1
    found: dict[str, tuple[str, str]] = {}
    if by_resource:
        listed = ", ".join(sorted(f"{gr} has {n} resource instances" for gr, n in by_resource.items()))
        found["NamespaceContentRemaining"] = (
            "SomeResourcesRemain",
            f"Some resources are remaining: {listed}",
        )
    if by_finalizer:
        listed = ", ".join(sorted(f"{f} in {n} resource instances" for f, n in by_finalizer.items()))
        found["NamespaceFinalizersRemaining"] = (
            "SomeFinalizerRemain",
            f"Some finalizers are remaining: {listed}",
        )
    return found


def content_failure(errors: list[str]) -> tuple[str, str]:
    """makeDeleteContentCondition."""
    listed = ", ".join(sorted(errors))
    return "ContentDeletionFailed", f"Failed to delete all resource types, {len(errors)} remaining: {listed}"


def updated_conditions(old: list[dict], failing: dict[str, tuple[str, str]], now: str) -> list[dict]:
    """updateConditions: every type present, the failing ones True, the others their ok variant
    False; lastTransitionTime moves only when the status does."""
    conditions = [dict(c) for c in old if isinstance(c, dict)]
    for kind, ok_reason, ok_message in CONDITIONS:
        status, (reason, message) = (
            ("True", failing[kind]) if kind in failing else ("False", (ok_reason, ok_message))
        )
        current = next((c for c in conditions if c.get("type") == kind), None)
        if current is None:
            conditions.append(
                {
                    "type": kind,
                    "status": status,
                    "lastTransitionTime": now,
                    "reason": reason,
                    "message": message,
                }
            )
            continue
        if current.get("status") != status:
            current["lastTransitionTime"] = now
        current.update(status=status, reason=reason, message=message)
    return conditions


class NamespaceController:
    def __init__(self, host) -> None:
        self.host = host
        self.terminating: set[str] = set()
        self.dirty = False
        self.next_at = 0.0
        self.interval = RETRY_SECONDS  # doubles while passes change nothing (a stuck finalizer)

    # -- what the manager tells it ------------------------------------------------------------
    def observe(self, kind: str, name: str, obj: dict | None, deleted: bool) -> None:
        if kind == "Namespace":
            if deleted or obj is None or not (obj.get("metadata") or {}).get("deletionTimestamp"):
                self.terminating.discard(name)
            else:
                self.terminating.add(name)
        if self.terminating:
            self.dirty = True  # its pods' deletions, a controller's last writes

    def due(self) -> bool:
        return bool(self.terminating) and (self.dirty or clock.monotonic() >= self.next_at)

    def next_wakeup(self) -> float | None:
        if not self.terminating:
            return None
        return max(0.0, self.next_at - clock.monotonic())

    # -- the work (database thread) ------------------------------------------------------------
    def sync_all(self) -> int:
        """One pass over every terminating namespace; how many writes it made."""
        self.dirty = False
        cluster = self.host.cluster
        writes = 0 if cluster is None else sum(self.sync(cluster, name) for name in sorted(self.terminating))
        self.interval = RETRY_SECONDS if writes else min(self.interval * 2, MAX_RETRY_SECONDS)
        self.next_at = clock.monotonic() + self.interval
        return writes

    def sync(self, cluster, name: str) -> int:
        """namespacedResourcesDeleter.Delete for one namespace."""
        try:
            namespace = api.get(cluster, "Namespace", None, name)
        except ApiError:
            self.terminating.discard(name)
            return 0
        if not namespace["metadata"].get("deletionTimestamp") or KUBERNETES not in spec_finalizers(namespace):
            return 0  # not ours to finalize (any more)
        writes, errors = self.delete_content(cluster, name)
        left = [body for body in _contents(cluster, name)]
        failing = remaining_conditions(left)
        if errors:
            failing["NamespaceDeletionContentFailure"] = content_failure(errors)
        writes += self.update_status(cluster, namespace, failing)
        if left or errors:
            return writes
        try:
            api.finalize_namespace(cluster, name, ACTOR)
        except ApiError:
            return writes  # changed meanwhile: the next pass
        return writes + 1

    def delete_content(self, cluster, name: str) -> tuple[int, list[str]]:
        """Delete what is not being deleted yet, owners first; (writes, error messages)."""
        rank = {kind: i for i, kind in enumerate(reset_order())}
        rows = [
            (kind, item)
            for kind, item in ApiObject.objects.filter(cluster=cluster, namespace=name, deleting=False)
            .order_by("pk")
            .values_list("kind", "name")[: BATCH * 4]
        ]
        rows.sort(key=lambda row: rank.get(row[0], len(rank)))
        writes, errors = 0, []
        for kind, item in rows[:BATCH]:
            try:
                api.delete(cluster, kind, name, item, ACTOR)
                writes += 1
            except ApiError as exc:
                if exc.code != 404:  # gone with its owner meanwhile
                    errors.append(exc.message)
        return writes, errors

    def update_status(self, cluster, namespace: dict, failing: dict[str, tuple[str, str]]) -> int:
        status = namespace.setdefault("status", {})
        old = status.get("conditions") or []
        new = updated_conditions(old, failing, clock.now().strftime(TIME_FORMAT))
        if new == old:
            return 0
        status["conditions"] = new
        try:
            api.update(cluster, namespace, ACTOR, subresource="status")
        except ApiError:
            return 0  # changed meanwhile: the next pass
        return 1


def _contents(cluster, name: str) -> list[dict]:
    return [
        body
        for body in ApiObject.objects.filter(cluster=cluster, namespace=name).values_list("body", flat=True)
    ]
