"""The write path: etcd's part. Every change is one revision, one row change and one log entry.

Callers hold `transaction.atomic()` and the cluster row lock (`lock`), so revisions are gapless and
a failed request leaves nothing behind.
"""

from __future__ import annotations

import copy
from functools import partial

from django.conf import settings
from django.db import transaction

from cluster.apiserver import fence, rows
from cluster.apiserver.actor import Actor
from cluster.apiserver.admission import chain
from cluster.apiserver.errors import Gone
from cluster.broadcast import nudge
from cluster.models import ApiObject, Cluster
from database.sqlite import memo

ADDED, MODIFIED, DELETED = "ADDED", "MODIFIED", "DELETED"


def log_keep() -> int:
    """How many log entries each cluster keeps before compaction (etcd's history window)."""
    return settings.KUBESIM_EVENT_LOG_KEEP


def lock(cluster: Cluster) -> Cluster:
    """The cluster row, locked for this transaction (FOR UPDATE; SQLite's IMMEDIATE mode).

    Returns a copy of `cluster` with the revision and the quota read under the lock: admission
    (cluster/apiserver/admission/quota.py) judges every write by the quota as it stands now,
    however long the caller (a controller) has held its Cluster.
    """
    locked = copy.copy(cluster)
    locked.revision, locked.compacted_revision, locked.quota = rows.lock_row(cluster.pk)
    fence.check(cluster.pk, cluster.name)
    return locked


def find(cluster: Cluster, kind: str, namespace: str, name: str) -> ApiObject | None:
    return rows.find(cluster.pk, kind, namespace, name)


def _owner_uid(meta: dict) -> str:
    refs = [ref for ref in meta.get("ownerReferences") or [] if isinstance(ref, dict)]
    controller = next((ref for ref in refs if ref.get("controller")), refs[0] if refs else None)
    return str(controller.get("uid", "")) if controller else ""


def _fill_row(row: ApiObject, body: dict, revision: int) -> None:
    meta, spec, status = body["metadata"], body.get("spec"), body.get("status")
    row.uid = meta.get("uid", "")
    row.resource_version = revision
    row.body = body
    row.node_name = (spec.get("nodeName") or "") if row.kind == "Pod" and isinstance(spec, dict) else ""
    row.phase = (status.get("phase") or "") if row.kind == "Pod" and isinstance(status, dict) else ""
    row.owner_uid = _owner_uid(meta)
    row.deleting = "deletionTimestamp" in meta


def write(
    cluster: Cluster, verb: str, kind: str, body: dict, row: ApiObject | None, actor: Actor
) -> ApiObject:
    """Commit one change of `body` (a new dict, owned by us from here) and return its row.

    verb is create / update / patch / status / bind / scale / delete / terminate (a graceful
    deletion's first write: deletionTimestamp set, the row kept); a delete passes the live row.
    The body is serialized once, for both the row and its log entry. The writer's flow recorder
    (`actor.flow`, cluster/flow/writers.py) records the write's steps in the same transaction,
    before the row and the log entry are stored: they carry the trace it names.
    """
    if verb not in ("status", "delete", "terminate"):
        chain.admit(cluster, verb, kind, body, actor)
        if actor.grants is not None:  # a Role or binding grants no more than its writer holds
            actor.grants(cluster, verb, kind, body)
    revision = cluster.revision + 1
    fence.written(cluster.pk, kind, body["metadata"].get("namespace", ""), body["metadata"]["name"])
    rows.bump(cluster.pk, revision)
    memo.drop(("bodies", cluster.pk, kind))  # what a batch kept of the kind (rows.kept_bodies)
    if (hold := rows.under_lock(cluster.pk)) is not None:  # what this transaction kept of the kind
        hold.pop(("bodies", cluster.pk, kind), None)
        if kind == "Namespace":
            hold.pop(("namespace", cluster.pk, body["metadata"]["name"]), None)
    cluster.revision = revision
    body["metadata"]["resourceVersion"] = str(revision)
    if verb == "delete":
        event_type = DELETED
        row.body = body
        row.resource_version = revision
        row.delete()
        memo.forget(("objects", cluster.pk))  # what a batch kept of the objects stored, counts
    elif row is None:
        event_type = ADDED
        row = ApiObject(cluster_id=cluster.pk, kind=kind, trace_id=actor.trace.pk if actor.trace else None)
        row.namespace = body["metadata"].get("namespace", "")
        row.name = body["metadata"]["name"]
        old_labels = None
    else:
        event_type = MODIFIED
        old_labels = (row.body.get("metadata") or {}).get("labels") or {}
    event = rows.LogEntry(cluster.pk, revision, event_type, kind, row.namespace, row.name, body, None)
    trace = actor.flow.written(cluster, verb, row, event, actor)
    event.trace_id = trace.pk if trace is not None else None
    text = rows.dumps(body)
    if verb != "delete":
        # A graceful deletion's mark keeps the row's own trace (its kubelet's final delete ends it);
        # the event carries the trace the deletion started, for the controller that replaces it.
        if trace is not None and verb != "terminate":
            row.trace_id = trace.pk
        _fill_row(row, body, revision)
        if event_type == ADDED:
            rows.insert(row, text)
        else:
            rows.update(row, text)
        labels = body["metadata"].get("labels") or {}
        if labels != old_labels:
            rows.replace_labels(row.pk, labels, bool(old_labels))
    rows.insert_event(event, text)
    _compact(cluster)
    transaction.on_commit(partial(nudge.notify, cluster.name, revision, kind))
    return row


def _compact(cluster: Cluster) -> None:
    """Keep the newest log_keep() entries; compact in batches so most writes skip this.

    As etcd's compaction does, the newest entry of each key at or below the compacted revision
    stays (unless it is a deletion), so the cluster at any revision from there on can still be
    read back (cluster/apiserver/history.py)."""
    keep = log_keep()
    if cluster.revision - cluster.compacted_revision <= keep + max(1, keep // 10):
        return
    compacted = cluster.revision - keep
    rows.compact_log(cluster.pk, compacted)
    rows.set_compacted(cluster.pk, compacted)
    cluster.compacted_revision = compacted


def events_since(
    cluster: Cluster, revision: int, limit: int | None = None, decode: bool = True
) -> list[rows.LogEntry]:
    """Log entries after `revision`, oldest first; Gone (410) when they were compacted away.
    Without `decode`, each entry's `object` is its stored JSON text (for the broadcast hub, which
    sends it on as it is)."""
    events = rows.log(cluster.pk, revision, limit, decode=decode)
    # Checked after reading, so a compaction racing with this read cannot hide a gap.
    if revision < rows.compacted(cluster.pk):
        raise Gone(revision, rows.compacted(cluster.pk) + 1)
    return events


def watch_page(
    cluster: Cluster, revision: int, kinds: tuple[str, ...], limit: int
) -> tuple[list[rows.LogEntry], int]:
    """An informer's read of the log: entries of `kinds` after `revision`, and the revision read up to.

    Entries of other kinds are skipped in the query (their JSON is never decoded): a component
    that watches Pods and Nodes does not parse the thousands of Events a scale-up writes. The
    cluster's revision, its compacted revision and the entries come from one statement
    (rows.watch_page): every revision up to the one read is committed, so a short page means
    "seen everything up to there".
    """
    current, compacted, events = rows.watch_page(cluster.pk, revision, kinds, limit)
    if revision < compacted:
        raise Gone(revision, compacted + 1)
    upto = events[-1].revision if len(events) == limit else max(current, revision)
    return events, upto


def clone(value):
    """A copy of a JSON document (dicts, lists and scalars), several times faster than deepcopy.

    Shared sub-documents become separate copies (no memo): request bodies are trees.
    """
    if type(value) is dict:
        return {key: clone(item) for key, item in value.items()}
    if type(value) is list:
        return [clone(item) for item in value]
    return value
