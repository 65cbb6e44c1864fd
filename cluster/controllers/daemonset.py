"""The DaemonSet controller (apps/v1, v1.33): one pod on every node that should run it.

Each sync compares the nodes (daemon_nodes.node_should_run_daemon_pod) with the DaemonSet's pods:
a node that should run one and has none gets a pod (created unbound: the default scheduler places
it through its matchFields term), a node that should not keep one loses it, extra pods go. A
changed template rolls out node by node (RollingUpdate, maxUnavailable): an old pod is deleted
only while fewer than maxUnavailable nodes lack an available pod, and its node gets the new one.
"""

from __future__ import annotations

import copy

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver import store
from cluster.apiserver.errors import ApiError
from cluster.client import event_recorder
from cluster.client.informer import db
from cluster.controllers.daemon_nodes import daemon_pod_spec, node_should_run_daemon_pod
from cluster.controllers.deployment.util import scaled_value
from cluster.controllers.history import REVISION_LABEL, RevisionHistory, daemon_set_snapshot
from cluster.controllers.owned import live_owner
from cluster.controllers.pods import is_active, is_ready, pod_from_template, random_suffix
from cluster.controllers.replicaset import ReplicaSetController
from cluster.controllers.replication import ReplicationManager
from cluster.flow import gate

HASH_LABEL = REVISION_LABEL
GENERATION_LABEL = "pod-template-generation"


def pod_node(pod: dict) -> str:
    """The node a daemon pod is for: its nodeName once bound, else its matchFields term's node."""
    spec = pod.get("spec") or {}
    if spec.get("nodeName"):
        return spec["nodeName"]
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    for term in required.get("nodeSelectorTerms") or []:
        for field in term.get("matchFields") or []:
            if field.get("key") == "metadata.name" and field.get("values"):
                return field["values"][0]
    return ""


class DaemonSetController(ReplicationManager):
    kind = "DaemonSet"
    title = "DaemonSet controller"
    event_component = "daemonset-controller"

    selects = ReplicaSetController.selects  # a LabelSelector, as a ReplicaSet's

    def __init__(self, manager) -> None:
        super().__init__(manager)
        self.history = RevisionHistory(manager, self.title)

    def nodes(self) -> list[dict]:
        return sorted(self.cm.informer.store["Node"].values(), key=lambda n: n["metadata"]["name"])

    def plan(self, ds: dict, current_hash: str) -> tuple[list[str], list[dict], dict]:
        """(nodes needing a pod, pods to delete, the status to report); `current_hash` is the
        current revision's, which up-to-date pods carry."""
        by_node: dict[str, list[dict]] = {}
        for pod in self.cm.owned_pods(ds):
            if not (pod.get("metadata") or {}).get("deletionTimestamp"):
                by_node.setdefault(pod_node(pod), []).append(pod)
        create, delete = [], []
        desired = current = misscheduled = ready = updated = 0
        old_available, unavailable = [], 0
        node_names = set()
        for node in self.nodes():
            name = node["metadata"]["name"]
            node_names.add(name)
            run, keep = node_should_run_daemon_pod(node, ds)
            pods = by_node.get(name, [])
            failed = [p for p in pods if (p.get("status") or {}).get("phase") == "Failed"]
            delete += failed  # a failed daemon pod is replaced
            pods = [p for p in pods if is_active(p)]
            if run:
                desired += 1
            if pods and not keep:
                misscheduled += 1
                delete += pods
                continue
            if not pods:
                if run:
                    create.append(name)
                    unavailable += 1
                continue
            if not run:
                misscheduled += 1
            else:
                current += 1
            pods.sort(key=lambda p: p["metadata"].get("creationTimestamp") or "")
            delete += pods[1:]  # one per node: the oldest stays
            pod = pods[0]
            is_new = (pod["metadata"].get("labels") or {}).get(HASH_LABEL) == current_hash
            available = is_ready(pod)
            ready += available
            updated += is_new and run
            if not available and run:
                unavailable += 1
            if not is_new and run:
                old_available.append(pod) if available else delete.append(pod)  # old and down: replace
        for name, pods in by_node.items():
            if name not in node_names:  # the node is gone
                delete += [p for p in pods if is_active(p)]
        delete += self._rolling_victims(ds, old_available, unavailable, desired)
        status = {
            "currentNumberScheduled": current,
            "numberMisscheduled": misscheduled,
            "desiredNumberScheduled": desired,
            "numberReady": ready,
            "observedGeneration": ds["metadata"].get("generation", 1),
            "updatedNumberScheduled": updated,
            "numberAvailable": ready,
            "numberUnavailable": max(desired - ready, 0),
        }
        return create, delete, {k: v for k, v in status.items() if v or k in _ALWAYS}

    def _rolling_victims(
        self, ds: dict, old_available: list[dict], unavailable: int, desired: int
    ) -> list[dict]:
        strategy = (ds.get("spec") or {}).get("updateStrategy") or {}
        if strategy.get("type", "RollingUpdate") != "RollingUpdate":
            return []  # OnDelete: a user deletes the old pods
        budget = scaled_value((strategy.get("rollingUpdate") or {}).get("maxUnavailable", 1), desired, True)
        room = max(budget, 1) - unavailable
        return old_available[: max(room, 0)]

    async def sync(self, ds: dict, trace_id: str | None) -> None:
        if ds["metadata"].get("deletionTimestamp"):
            return  # a DaemonSet being deleted (kept by finalizers) is left alone, as upstream
        snapshot = daemon_set_snapshot(ds)
        if self.history.needs_writes(ds):
            current, old = await db(self.history.construct)(ds, snapshot, trace_id)
        else:
            (current,), old = self.history.split(ds)
        pod_hash = ((current or {}).get("metadata", {}).get("labels") or {}).get(HASH_LABEL, snapshot.hash)
        create, delete, status = self.plan(ds, pod_hash)
        meta = ds["metadata"]
        steps = trace_id is not None and trace_id not in self.cm.stepped
        if steps:
            steps = await db(self.cm.needs_steps)(
                trace_id, self.kind, meta.get("namespace", ""), meta["name"]
            )
        if steps:
            have = status.get("currentNumberScheduled", 0)
            await self._record_decision(ds, trace_id, have, have + len(create))
        if delete:
            reasons = {p["metadata"]["name"]: _deleted_why(ds, p) for p in delete}
            await db(self._delete_daemon_pods)(ds, delete, trace_id, reasons)
        for node in create:
            if not await gate.is_open(self.cm.cluster_name, trace_id):
                await gate.before_step(self.cm.cluster_name, trace_id, 7)
            if not await db(self._create_daemon_pod)(ds, node, trace_id, pod_hash):
                break
        if create or delete:
            self.cm.requeue(self.kind, meta.get("namespace", ""), meta["name"], trace_id)
        await db(self._write_status)(ds, trace_id, status)
        if len(old) > (ds.get("spec") or {}).get("revisionHistoryLimit", 10):
            live = {(p["metadata"].get("labels") or {}).get(HASH_LABEL, "") for p in self.cm.owned_pods(ds)}
            await db(self.history.cleanup)(ds, old, live, HASH_LABEL, trace_id)

    # -- database thread ---------------------------------------------------------------------
    def _create_daemon_pod(self, ds: dict, node: str, trace_id: str | None, pod_hash: str) -> bool:
        actor = self.cm.actor(trace_id, self.title)
        with transaction.atomic():
            locked = store.lock(self.cm.cluster)
            current = live_owner(locked, ds)
            if current is None or (current.get("spec") or {}).get("template") != (ds.get("spec") or {}).get(
                "template"
            ):
                return False  # deleted, or its template changed: the next sync decides
            template = copy.deepcopy((current.get("spec") or {}).get("template") or {})
            labels = template.setdefault("metadata", {}).setdefault("labels", {})
            labels[HASH_LABEL] = pod_hash
            labels[GENERATION_LABEL] = str(current["metadata"].get("generation", 1))
            template["spec"] = daemon_pod_spec(template.get("spec") or {}, node)
            pod = None
            for _attempt in range(5):
                try:
                    pod = api.create(
                        self.cm.cluster,
                        pod_from_template(current, template, f"{ds['metadata']['name']}-{random_suffix()}"),
                        actor,
                    )
                    break
                except ApiError as error:
                    if error.code == 409:
                        continue
                    self._failed_create(current, error, actor)
                    return False
        if pod is None:
            return False
        self.cm.assume_pod(pod)
        event_recorder.record(
            self.cm.cluster,
            current,
            "SuccessfulCreate",
            f"Created pod: {pod['metadata']['name']}",
            actor,
            component=self.event_component,
        )
        return True

    def _delete_daemon_pods(self, ds: dict, pods: list[dict], trace_id: str | None, reasons: dict) -> None:
        for pod in pods:
            self._delete_pod(ds, pod, trace_id, reasons[pod["metadata"]["name"]])

    def _write_status(self, ds: dict, trace_id: str | None, status: dict) -> None:
        current = {k: v for k, v in (ds.get("status") or {}).items() if k != "conditions"}
        if current == status:
            return
        conditions = (ds.get("status") or {}).get("conditions")
        self._store_status(ds, {**status, **({"conditions": conditions} if conditions else {})}, trace_id)


# DaemonSetStatus fields without omitempty.
_ALWAYS = ("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady")


def _deleted_why(ds: dict, pod: dict) -> tuple[str, str]:
    what = f"DaemonSet {ds['metadata']['name']}"
    node = pod_node(pod) or "?"
    return (
        f"The {what} controller removed it from node {node}: the node no longer runs it, it is an "
        "extra copy, it failed, or the template changed (rolling update).",
        f"{what} 控制器将其从节点 {node} 删除：该节点不再运行它、它是多余的副本、它已失败，"
        "或模板已更改（滚动更新）。",
    )
