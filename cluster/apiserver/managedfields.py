"""metadata.managedFields: who set which field, as kube-apiserver's field manager keeps it.

Every create, update and patch records an `Update` entry for its manager (the request's
`fieldManager`, else its User-Agent up to the first `/`) holding the fields it changed, taken from
every other manager; server-side apply records an `Apply` entry holding exactly the fields its
configuration sets, refuses (409) to change a field another manager owns unless forced, and
removes the fields its manager applied last time, no longer applies, and nobody else owns.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from cluster.apiserver import fieldsets
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError
from cluster.apiserver.fieldsets import Path

# What the field manager never records (its stripMeta set).
_STRIPPED = frozenset(
    {
        ("f:apiVersion",),
        ("f:kind",),
        ("f:metadata",),
        *(
            ("f:metadata", "f:" + key)
            for key in (
                "name",
                "namespace",
                "creationTimestamp",
                "selfLink",
                "uid",
                "clusterName",
                "generation",
                "managedFields",
                "resourceVersion",
            )
        ),
    }
)
# The fields a write through a path resets, so never owns (the strategies' GetResetFields).
_RESET_MAIN = (("f:status",),)
_RESET_STATUS = (("f:spec",), ("f:metadata", "f:ownerReferences"), ("f:metadata", "f:deletionTimestamp"))

APPLY, UPDATE = "Apply", "Update"


@dataclass(slots=True)
class Entry:
    manager: str
    operation: str
    api_version: str
    time: str | None
    fields: set[Path]
    subresource: str = ""

    def same(self, other: Entry) -> bool:
        """One entry per manager, operation and subresource (and version for an Update)."""
        return (self.manager, self.operation, self.subresource) == (
            other.manager,
            other.operation,
            other.subresource,
        ) and (self.operation == APPLY or self.api_version == other.api_version)

    def as_json(self) -> dict:
        out: dict = {"manager": self.manager, "operation": self.operation, "apiVersion": self.api_version}
        if self.time:
            out["time"] = self.time
        out["fieldsType"] = "FieldsV1"
        out["fieldsV1"] = fieldsets.encode(self.fields)
        if self.subresource:
            out["subresource"] = self.subresource
        return out


def prefix_from_user_agent(agent: str) -> str:
    """The manager of a request that names none: its User-Agent up to the first `/`, printable
    characters only, at most 128 bytes (upstream's prefixFromUserAgent)."""
    out, size = [], 0
    for char in agent.split("/")[0]:
        if not char.isprintable():
            continue
        size += len(char.encode())
        if size > 128:
            break
        out.append(char)
    return "".join(out)


def entries_of(meta: dict) -> list[Entry]:
    out = []
    for raw in meta.get("managedFields") or ():
        if not isinstance(raw, dict) or not raw:
            continue
        out.append(
            Entry(
                str(raw.get("manager") or ""),
                str(raw.get("operation") or ""),
                str(raw.get("apiVersion") or ""),
                raw.get("time"),
                fieldsets.decode(raw.get("fieldsV1")),
                str(raw.get("subresource") or ""),
            )
        )
    return out


def encoded(entries: list[Entry]) -> list[dict]:
    """As upstream sorts them: Apply before Update, then by time, manager, version, subresource."""
    ordered = sorted(
        (e for e in entries if e.fields),
        key=lambda e: (e.operation, e.time or "", e.manager, e.api_version, e.subresource),
    )
    return [e.as_json() for e in ordered]


def _filter(paths: set[Path], subresource: str, has_status: bool) -> set[Path]:
    if subresource == "status":
        return fieldsets.without(paths, _RESET_STATUS, _STRIPPED)
    return fieldsets.without(paths, _RESET_MAIN if has_status else (), _STRIPPED)


def _bare(obj: dict | None, subresource: str, has_status: bool) -> dict | None:
    """What a comparison walks: never managedFields; through status only status and metadata,
    and not status through the object itself (the fields each path resets, left out early)."""
    if obj is None:
        return None
    if subresource == "status":
        obj = {key: obj[key] for key in ("metadata", "status") if key in obj}
    elif has_status and "status" in obj:
        obj = {key: value for key, value in obj.items() if key != "status"}
    if "managedFields" in (obj.get("metadata") or {}):
        meta = dict(obj["metadata"])
        meta.pop("managedFields")
        obj = {**obj, "metadata": meta}
    return obj


@dataclass(frozen=True, slots=True)
class Write:
    """One write's field manager: who, through which subresource, of which kind."""

    manager: str
    kind: str
    api_version: str
    has_status: bool
    subresource: str = ""

    def comparison(self, old: dict | None, new: dict) -> fieldsets.Comparison:
        # A create compares with the kind's zero object, as upstream's create handler does.
        sub, has_status = self.subresource, self.has_status
        found = fieldsets.compare(
            fieldsets.type_of(self.kind), _bare(old, sub, has_status) or {}, _bare(new, sub, has_status)
        )
        return fieldsets.Comparison(
            self._filter(found.added), self._filter(found.removed), self._filter(found.modified)
        )

    def _filter(self, paths: set[Path]) -> set[Path]:
        return _filter(paths, self.subresource, self.has_status)

    def updated(self, entries: list[Entry], old: dict | None, new: dict) -> list[Entry]:
        """An Update: the fields it changed become its manager's, taken from everyone else."""
        change = self.comparison(old, new)
        changed = change.added | change.modified
        mine = Entry(self.manager, UPDATE, self.api_version, None, set(), self.subresource)
        kept = []
        for entry in entries:
            entry.fields = entry.fields - changed - change.removed
            if entry.same(mine):
                mine = entry
            else:
                kept.append(entry)
        if changed:
            mine.fields |= changed
            mine.time = now_rfc3339()
        return [e for e in [*kept, mine] if e.fields]

    def applied(
        self, entries: list[Entry], live: dict | None, config: dict, merged: dict, force: bool
    ) -> tuple[dict, list[Entry]]:
        """An Apply of `config` merged into `live` as `merged`: the object with what the manager
        stopped applying removed, and the entries; 409 on a conflict unless forced."""
        kind = fieldsets.type_of(self.kind)
        mine = Entry(self.manager, APPLY, self.api_version, None, set(), self.subresource)
        others = []
        for entry in entries:
            if entry.same(mine):
                mine = entry
            else:
                others.append(entry)
        last = mine.fields
        claimed = self._filter(fieldsets.to_set(kind, _bare(config, self.subresource, self.has_status)))
        owned = set(claimed).union(*(e.fields for e in others))
        for path in sorted(last - owned, key=len, reverse=True):
            if fieldsets.remove(merged, kind, path):
                _drop_empty_parents(merged, kind, path[:-1], owned)
        change = self.comparison(live, merged)
        changed = change.added | change.modified
        conflicts = [(e, p) for e in others for p in sorted(e.fields & changed)]
        if conflicts and not force:
            raise conflict_error(conflicts)
        for entry in others:
            entry.fields = entry.fields - changed - change.removed
        if claimed != last or change.added or change.removed or change.modified or mine.time is None:
            mine.time = now_rfc3339()
        mine.fields = claimed
        mine.api_version = self.api_version
        return merged, [e for e in [*others, mine] if e.fields]


def _drop_empty_parents(obj: dict, kind: fieldsets.Type, path: Path, owned: set[Path]) -> None:
    """A named field left empty by a removal goes too, unless someone owns it (`data: {}`)."""
    while len(path) > 1 and path[-1].startswith("f:") and path not in owned:
        node = fieldsets.find(obj, kind, path)
        if node not in ({}, []) or path == ("f:metadata",):
            return
        fieldsets.remove(obj, kind, path)
        path = path[:-1]
    top = len(path) == 1 and path not in owned and path[0] not in ("f:metadata", "f:spec")
    if top and fieldsets.find(obj, kind, path) in ({}, []):
        fieldsets.remove(obj, kind, path)


def _manager_text(entry: Entry) -> str:
    """As upstream's printManager of a manager's identity (which never holds a time):
    `"kubectl"`, `"kubelet" with subresource "status" using v1`."""
    text = json.dumps(entry.manager, ensure_ascii=False)
    if entry.subresource:
        text += f" with subresource {json.dumps(entry.subresource)}"
    if entry.operation == UPDATE:
        text += f" using {entry.api_version}"
    return text


def _identity(entry: Entry) -> str:
    """The manager's identity as upstream's BuildManagerIdentifier encodes it."""
    out = {"manager": entry.manager, "operation": entry.operation}
    if entry.operation == UPDATE:
        out["apiVersion"] = entry.api_version
    if entry.subresource:
        out["subresource"] = entry.subresource
    return json.dumps(out, separators=(",", ":"))


def conflict_error(conflicts: list[tuple[Entry, Path]]) -> ApiError:
    """409 Conflict, worded and detailed as NewApplyConflict (kubectl adds its own advice)."""
    causes = [
        {
            "reason": "FieldManagerConflict",
            "message": f"conflict with {_manager_text(entry)}",
            "field": fieldsets.path_text(path),
        }
        for entry, path in conflicts
    ]
    if len(conflicts) == 1:
        entry, path = conflicts[0]
        where = fieldsets.path_text(path)
        message = f"Apply failed with 1 conflict: conflict with {_manager_text(entry)}: {where}"
    else:
        # Grouped by manager, in the order of the managers' identities (their JSON), as upstream.
        by_manager: dict[str, tuple[Entry, list[str]]] = {}
        for entry, path in conflicts:
            by_manager.setdefault(_identity(entry), (entry, []))[1].append(fieldsets.path_text(path))
        lines = []
        for identity in sorted(by_manager):
            entry, paths = by_manager[identity]
            lines.append(f"conflicts with {_manager_text(entry)}:")
            lines.extend(f"- {p}" for p in paths)
        message = f"Apply failed with {len(conflicts)} conflicts: " + "\n".join(lines)
    return ApiError(409, "Conflict", message, {"causes": causes})
