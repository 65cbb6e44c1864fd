"""The write path's statements, as plain SQL on Django's connection (SQLite and PostgreSQL),
executed on the backend's own cursor (database/plainsql.py).

Every API write runs the same handful of statements thousands of times a minute at pace 0; the ORM
spends ~0.15 ms compiling each one, several times the cost of running it. Here they are written
once, with the same table and column names the models declare, and executed directly. JSON goes
through the backend's own adapter (text on SQLite, jsonb on PostgreSQL, whose loader Django sets
to return text), so what the ORM reads back is byte for byte what it would have written.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connection

from cluster.models import ApiObject, Cluster, Label, WatchEvent
from database import held, plainsql
from database.joined import JoinedLookup
from database.sqlite import memo

LOG_COLUMNS = ("revision", "type", "kind", "namespace", "name", "object", "trace_id")
ROW_COLUMNS = (
    "id",
    "uid",
    "resource_version",
    "body",
    "node_name",
    "phase",
    "owner_uid",
    "deleting",
    "trace_id",
)


@dataclass(slots=True)
class LogEntry:
    """A log entry: a WatchEvent row's fields without the ORM's model machinery (every write makes
    one; in a burst the informers and the hub read thousands a second, each entry once per reader).
    Its created_at stays in the table: no reader of the log needs it."""

    cluster_id: int
    revision: int
    type: str
    kind: str
    namespace: str
    name: str
    object: Any  # the object, or its stored JSON text when read without decoding
    trace_id: str | None


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


@cache
def _statements(vendor: str) -> dict[str, str]:
    cluster, obj, label, event = _table(Cluster), _table(ApiObject), _table(Label), _table(WatchEvent)
    key, value = connection.ops.quote_name("key"), connection.ops.quote_name("value")
    lock = " FOR UPDATE" if connection.features.has_select_for_update else ""
    returning = " RETURNING id" if connection.features.can_return_columns_from_insert else ""
    return {
        "lock": f"SELECT revision, compacted_revision, quota FROM {cluster} WHERE id = %s{lock}",
        "bump": f"UPDATE {cluster} SET revision = %s WHERE id = %s",
        "set_compacted": f"UPDATE {cluster} SET compacted_revision = %s WHERE id = %s",
        "find": (
            f"SELECT {', '.join(ROW_COLUMNS)} FROM {obj} "
            "WHERE cluster_id = %s AND kind = %s AND namespace = %s AND name = %s"
        ),
        "insert": (
            f"INSERT INTO {obj} (cluster_id, kind, namespace, name, uid, resource_version, body, "
            "node_name, phase, owner_uid, deleting, trace_id) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            f"{returning}"
        ),
        "update": (
            f"UPDATE {obj} SET uid = %s, resource_version = %s, body = %s, node_name = %s, phase = %s, "
            "owner_uid = %s, deleting = %s, trace_id = %s WHERE id = %s"
        ),
        "labels_delete": f"DELETE FROM {label} WHERE obj_id = %s",
        "label_insert": f"INSERT INTO {label} (obj_id, {key}, {value}) VALUES (%s, %s, %s)",
        "revisions": f"SELECT revision, compacted_revision FROM {cluster} WHERE id = %s",
        "compacted": f"SELECT compacted_revision FROM {cluster} WHERE id = %s",
        "log": (
            f"SELECT {', '.join(LOG_COLUMNS)} FROM {event} WHERE cluster_id = %s AND revision > %s "
            "ORDER BY revision"
        ),
        "bodies": f"SELECT body FROM {obj} WHERE cluster_id = %s AND kind = %s ORDER BY namespace, name",
        "bodies_in": (
            f"SELECT body FROM {obj} WHERE cluster_id = %s AND kind = %s AND namespace = %s ORDER BY name"
        ),
        # etcd's compaction: superseded entries and deletions at or below the revision go; the
        # newest entry of every live key stays.
        "compact": (
            f"DELETE FROM {event} WHERE cluster_id = %s AND revision <= %s AND (type = 'DELETED' OR "
            f"revision NOT IN (SELECT MAX(revision) FROM {event} WHERE cluster_id = %s AND revision <= %s "
            "GROUP BY kind, namespace, name))"
        ),
        "event": (
            f"INSERT INTO {event} (cluster_id, revision, type, kind, namespace, name, object, trace_id, "
            "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
        ),
    }


# A cluster by its name: read before every garbage-collector sweep and flow-settings refresh (the
# ORM compiled that lookup each time).
_CLUSTER_BY_NAME = JoinedLookup(Cluster, where=("name",))


def cluster_named(name: str) -> Cluster | None:
    return _CLUSTER_BY_NAME.get(name)


def sql(name: str) -> str:
    return _statements(plainsql.vendor())[name]


@cache
def _returns_ids() -> bool:
    """INSERT … RETURNING id gives the new row's id (PostgreSQL); else the cursor's lastrowid."""
    return connection.features.can_return_columns_from_insert


def json_param(text: str):
    """A JSON document already serialized, as the backend wants it bound."""
    if plainsql.vendor() == "postgresql":
        from django.db.backends.postgresql.psycopg_any import Jsonb

        return Jsonb(text, dumps=_as_is)
    return text


def _as_is(text: str) -> str:
    return text


def dumps(body: dict) -> str:
    return json.dumps(body)


def lock_revision(cluster_id: int) -> tuple[int, int]:
    """(revision, compacted_revision) of the cluster row, locked for this transaction."""
    return lock_row(cluster_id)[:2]


def lock_row(cluster_id: int) -> tuple[int, int, dict]:
    """(revision, compacted_revision, quota overrides) of the cluster row, locked for this transaction.

    PostgreSQL: SELECT … FOR UPDATE. SQLite has no row locks: its IMMEDIATE transactions (settings)
    already hold the database's write lock from BEGIN, which serializes every writer. Inside a
    batch (database/sqlite/memo.py) the first read is kept, and bump and set_compacted update it;
    on any database, a transaction that read it keeps it until it ends (database/held.py).
    The quota is read under the same lock, so every write is admitted against the quota as it
    stands (a teacher's change waits for the lock, like any write), whoever holds the Cluster.
    """
    kept, quota = memo.get(("revision", cluster_id)), memo.get(("quota", cluster_id))
    if kept is not None and quota is not None:
        return (*kept, quota)
    hold = held.kept()
    if hold is not None and (locked := hold.get(("locked", cluster_id))) is not None:
        return locked
    with plainsql.cursor() as cursor:
        cursor.execute(sql("lock"), [cluster_id])
        revision, compacted, text = cursor.fetchone()
    quota = _quota(text)
    memo.put(("revision", cluster_id), (revision, compacted))
    memo.put(("quota", cluster_id), quota)
    if hold is not None:
        hold[("locked", cluster_id)] = (revision, compacted, quota)
    return revision, compacted, quota


def under_lock(cluster_id: int) -> dict | None:
    """What this transaction keeps (database/held.py) once it has locked the cluster row
    (`lock_row`): every write of the cluster's objects takes that lock, so what the transaction
    reads of them from then on changes only by its own writes (store.write drops it). None before
    the lock, and outside a transaction."""
    hold = held.kept()
    return hold if hold and ("locked", cluster_id) in hold else None


def _held_moved(cluster_id: int, revision: int | None = None, compacted: int | None = None) -> None:
    """This transaction moved the locked row's revision or compacted revision (`lock_row`)."""
    hold = held.kept()
    if hold and (locked := hold.get(("locked", cluster_id))) is not None:
        hold[("locked", cluster_id)] = (
            locked[0] if revision is None else revision,
            locked[1] if compacted is None else compacted,
            locked[2],
        )


def _quota(stored) -> dict:
    """The quota column as the backend returns it (JSON text; a dict from a driver that decodes)."""
    value = json.loads(stored) if isinstance(stored, str | bytes) else stored
    return value if isinstance(value, dict) else {}


def bump(cluster_id: int, revision: int) -> None:
    plainsql.later(sql("bump"), [revision, cluster_id], Cluster._meta.db_table, key=cluster_id)
    _held_moved(cluster_id, revision=revision)
    key = ("revision", cluster_id)
    if (kept := memo.get(key)) is not None:
        memo.put(key, (revision, kept[1]))


def set_compacted(cluster_id: int, revision: int) -> None:
    with plainsql.cursor() as cursor:
        cursor.execute(sql("set_compacted"), [revision, cluster_id])
    _held_moved(cluster_id, compacted=revision)
    key = ("revision", cluster_id)
    if (kept := memo.get(key)) is not None:
        memo.put(key, (kept[0], revision))


def find(cluster_id: int, kind: str, namespace: str, name: str) -> ApiObject | None:
    with plainsql.cursor() as cursor:
        cursor.execute(sql("find"), [cluster_id, kind, namespace, name])
        found = cursor.fetchone()
    if found is None:
        return None
    pk, uid, resource_version, body, node_name, phase, owner_uid, deleting, trace_id = found
    row = ApiObject(
        id=pk,
        cluster_id=cluster_id,
        kind=kind,
        namespace=namespace,
        name=name,
        uid=uid,
        resource_version=resource_version,
        body=json.loads(body) if isinstance(body, str | bytes) else body,
        node_name=node_name,
        phase=phase,
        owner_uid=owner_uid,
        deleting=bool(deleting),
        trace_id=trace_id,
    )
    row._state.adding = False
    row._state.db = DEFAULT_DB_ALIAS
    return row


def _row_params(row: ApiObject, text: str) -> list:
    return [
        row.uid,
        row.resource_version,
        json_param(text),
        row.node_name,
        row.phase,
        row.owner_uid,
        row.deleting,
    ]


def insert(row: ApiObject, text: str) -> None:
    """INSERT the new row; sets row.pk."""
    params = [row.cluster_id, row.kind, row.namespace, row.name, *_row_params(row, text), row.trace_id]
    with plainsql.cursor() as cursor:
        cursor.execute(sql("insert"), params)
        if _returns_ids():
            row.pk = cursor.fetchone()[0]
        else:
            row.pk = cursor.lastrowid
    row._state.adding = False
    row._state.db = DEFAULT_DB_ALIAS


def update(row: ApiObject, text: str) -> None:
    with plainsql.cursor() as cursor:
        cursor.execute(sql("update"), [*_row_params(row, text), row.trace_id, row.pk])


def replace_labels(row_id: int, labels: dict, had_labels: bool) -> None:
    with plainsql.cursor() as cursor:
        if had_labels:
            cursor.execute(sql("labels_delete"), [row_id])
        if labels:
            cursor.executemany(sql("label_insert"), [(row_id, k, v) for k, v in labels.items()])


def insert_event(event: LogEntry, text: str) -> None:
    _, created = plainsql.now()
    params = [
        event.cluster_id,
        event.revision,
        event.type,
        event.kind,
        event.namespace,
        event.name,
        json_param(text),
        event.trace_id,
        created,
    ]
    plainsql.later(sql("event"), params, WatchEvent._meta.db_table)


def revisions(cluster_id: int) -> tuple[int, int]:
    """(revision, compacted_revision), unlocked: every revision up to it is committed."""
    with plainsql.cursor() as cursor:
        cursor.execute(sql("revisions"), [cluster_id])
        return cursor.fetchone() or (0, 0)


def compact_log(cluster_id: int, revision: int) -> None:
    with plainsql.cursor() as cursor:
        cursor.execute(sql("compact"), [cluster_id, revision, cluster_id, revision])


def compacted(cluster_id: int) -> int:
    with plainsql.cursor() as cursor:
        cursor.execute(sql("compacted"), [cluster_id])
        found = cursor.fetchone()
    return found[0] if found else 0


def log(
    cluster_id: int,
    after: int,
    limit: int | None = None,
    upto: int | None = None,
    kinds: tuple[str, ...] | None = None,
    decode: bool = True,
) -> list[LogEntry]:
    """Log entries after `after` (up to `upto`, of `kinds`), oldest first; JSON decoded only for
    those (not at all without `decode`: each event's `object` is then its stored JSON text)."""
    query, params = sql("log"), [cluster_id, after]
    if upto is not None:
        query = query.replace(" ORDER BY", " AND revision <= %s ORDER BY")
        params.append(upto)
    if kinds is not None:
        query = query.replace(" ORDER BY", f" AND kind IN ({', '.join(['%s'] * len(kinds))}) ORDER BY")
        params.extend(kinds)
    if limit:
        query += " LIMIT %s"
        params.append(limit)
    with plainsql.cursor() as cursor:
        cursor.execute(query, params)
        found = cursor.fetchall()
    return _events(cluster_id, found, json.loads if decode else None)


def watch_page(
    cluster_id: int, after: int, kinds: tuple[str, ...], limit: int
) -> tuple[int, int, list[LogEntry]]:
    """An informer's read in ONE statement: (the cluster's revision, its compacted revision, the
    log entries of `kinds` after `after` up to that revision, at most `limit`).

    One statement reads one snapshot of the database, so every entry up to the revision it sees
    is there (a writer bumps the revision and appends its entry in one transaction) and the
    compacted revision is the one those entries were read under.
    """
    query = _watch_statement(plainsql.vendor(), len(kinds))
    with plainsql.cursor() as cursor:
        cursor.execute(query, [after, *kinds, cluster_id, limit])
        found = cursor.fetchall()
    if not found:
        return 0, 0, []
    current, compacted = found[0][0], found[0][1]
    entries = [row[2:] for row in found if row[2] is not None]
    return current, compacted, _events(cluster_id, entries, shared_object)


@lru_cache(maxsize=64)
def _watch_statement(vendor: str, kinds: int) -> str:
    cluster, event = _table(Cluster), _table(WatchEvent)
    columns = ", ".join(f"e.{column}" for column in LOG_COLUMNS)
    return (
        f"SELECT c.revision, c.compacted_revision, {columns} FROM {cluster} c "
        f"LEFT JOIN {event} e ON e.cluster_id = c.id AND e.revision > %s AND e.revision <= c.revision "
        f"AND e.kind IN ({', '.join(['%s'] * kinds)}) WHERE c.id = %s ORDER BY e.revision LIMIT %s"
    )


def _events(cluster_id: int, found: list[tuple], loads: Callable[[str], Any] | None) -> list[LogEntry]:
    """The entries of `found` rows; each object decoded with `loads`, or kept as its JSON text."""
    events = []
    for revision, type_, kind, namespace, name, obj, trace_id in found:
        if isinstance(obj, bytes):
            obj = obj.decode()
        if loads is not None:
            obj = loads(obj) if isinstance(obj, str) else obj
        elif not isinstance(obj, str):
            obj = json.dumps(obj)
        events.append(LogEntry(cluster_id, revision, type_, kind, namespace, name, obj, trace_id))
    return events


@lru_cache(maxsize=2048)
def shared_object(text: str) -> dict:
    """A log entry's object decoded once for every reader of the same JSON text: the control
    plane's three informers and the broadcast hub each read every pod change of a burst. What it
    returns is shared, so nobody may change it: components copy an informer object
    (store.clone) before they change it."""
    return json.loads(text)


def bodies_length(cluster_id: int, kinds: tuple[str, ...]) -> int:
    """The total length of the stored JSON of every object of `kinds`."""
    length = "OCTET_LENGTH(body::text)" if plainsql.vendor() == "postgresql" else "LENGTH(body)"
    with plainsql.cursor() as cursor:
        cursor.execute(
            f"SELECT SUM({length}) FROM {_table(ApiObject)} WHERE cluster_id = %s "
            f"AND kind IN ({', '.join(['%s'] * len(kinds))})",
            [cluster_id, *kinds],
        )
        found = cursor.fetchone()
    return int(found[0] or 0) if found else 0


def decoded_bodies(cluster_id: int, kind: str, namespace: str = "") -> list[dict]:
    """Every object of `kind` (in `namespace` when one is given), by namespace and name, freshly
    decoded: the caller's own copies. One plain statement: a list through the ORM cost ~0.5 ms of
    query building, under a class on the same GIL as the writer that holds SQLite's lock."""
    return _decoded(_bodies(cluster_id, kind, namespace))


def kept_bodies(cluster_id: int, kind: str) -> list[dict]:
    """`decoded_bodies` of a kind few objects have (PriorityClasses), its stored text kept through
    a batch (database/sqlite/memo.py), and on any database through a transaction that holds the
    cluster's lock (`under_lock`): each pod a batch creates asks for them, and a write of the
    kind drops what was kept (store.write)."""
    key = ("bodies", cluster_id, kind)
    found = memo.get(key)
    if found is None:
        hold = under_lock(cluster_id)
        found = hold.get(key) if hold is not None else None
        if found is None:
            found = _bodies(cluster_id, kind)
            memo.put(key, found)
            if hold is not None:
                hold[key] = found
    return _decoded(found)


# Label requirements a statement applies (the others, Gt and Lt, are matched in Python).
SQL_LABEL_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def decoded_bodies_labelled(cluster_id: int, kind: str, namespace: str, requirements: list) -> list[dict]:
    """`decoded_bodies` narrowed by label requirements of SQL_LABEL_OPERATORS (through the Label
    rows, as the ORM's Exists subqueries did), with one plain statement per shape of selector
    built once: a lab's pod check lists with a selector about once a second per sandbox, and the
    ORM compiled its subqueries every time (a 5-pod list: 0.97 ms of CPU, 0.11 ms here)."""
    shape = tuple(
        (req.operator, len(req.values) if req.operator in ("In", "NotIn") else 0) for req in requirements
    )
    params: list = [cluster_id, kind, *([namespace] if namespace else [])]
    for req, (_, count) in zip(requirements, shape, strict=True):
        params += [req.key, *req.values[:count]]
    return _decoded(_body_column(_labelled_statement(plainsql.vendor(), bool(namespace), shape), params))


@lru_cache(maxsize=256)
def _labelled_statement(vendor: str, in_namespace: bool, shape: tuple[tuple[str, int], ...]) -> str:
    obj, label = _table(ApiObject), _table(Label)
    key, value = connection.ops.quote_name("key"), connection.ops.quote_name("value")
    where = ["o.cluster_id = %s", "o.kind = %s", *(["o.namespace = %s"] if in_namespace else [])]
    for operator, count in shape:
        rows = f"SELECT 1 FROM {label} l WHERE l.obj_id = o.id AND l.{key} = %s"
        if count:
            rows += f" AND l.{value} IN ({', '.join(['%s'] * count)})"
        where.append(f"{'NOT ' if operator in ('NotIn', 'DoesNotExist') else ''}EXISTS ({rows})")
    return f"SELECT o.body FROM {obj} o WHERE {' AND '.join(where)} ORDER BY o.namespace, o.name"


def bodies(cluster_id: int, kind: str) -> list[str]:
    """The stored JSON text of every object of `kind`, by namespace and name (not decoded)."""
    return [body if isinstance(body, str) else json.dumps(body) for body in _bodies(cluster_id, kind)]


def shared_bodies(cluster_id: int, kind: str) -> list[dict]:
    """Every object of `kind`, by namespace and name, decoded once per JSON text for every reader
    (`shared_object`; PostgreSQL's driver decodes the column itself): for readers that only look,
    never change what they get."""
    return [shared_object(body) if isinstance(body, str) else body for body in _bodies(cluster_id, kind)]


def _decoded(found: list) -> list[dict]:
    """Bodies as the driver gave them, decoded where they are text: the caller's own copies."""
    return [json.loads(body) if isinstance(body, str) else body for body in found]


def _bodies(cluster_id: int, kind: str, namespace: str = "") -> list:
    """The body column as the driver gives it (SQLite: text; PostgreSQL: text or decoded)."""
    if namespace:
        return _body_column(sql("bodies_in"), [cluster_id, kind, namespace])
    return _body_column(sql("bodies"), [cluster_id, kind])


def _body_column(statement: str, params: list) -> list:
    with plainsql.cursor() as cursor:
        cursor.execute(statement, params)
        return [body for (body,) in cursor.fetchall()]
