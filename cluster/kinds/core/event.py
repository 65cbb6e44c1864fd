"""Events (core/v1, `events`, short name `ev`): the printer's columns (printEvent); the server fills
in nothing and validates metadata only; kubectl describes them generically."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.defaults import no_defaults
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.validators import metadata_only
from cluster.kubeapi import describe
from cluster.kubeapi.humanize import since
from cluster.kubeapi.tables import TableSpec

COLUMNS = (
    ("Last Seen", "string", "", 0),
    ("Type", "string", "", 0),
    ("Reason", "string", "", 0),
    ("Object", "string", "", 0),
    ("Subobject", "string", "", 1),
    ("Source", "string", "", 1),
    ("Message", "string", "", 0),
    ("First Seen", "string", "", 1),
    ("Count", "string", "", 1),
    ("Name", "string", "name", 1),
)


def _row(obj: dict, now: datetime) -> list:
    first = (
        since(obj.get("firstTimestamp"), now)
        if obj.get("firstTimestamp")
        else since(obj.get("eventTime"), now)
    )
    last = since(obj["lastTimestamp"], now) if obj.get("lastTimestamp") else first
    count = obj.get("count") or 1
    if obj.get("series"):
        last = since(obj["series"].get("lastObservedTime"), now)
        count = obj["series"].get("count", count)
    involved = obj.get("involvedObject") or {}
    kind = (involved.get("kind") or "").lower()
    target = f"{kind}/{involved['name']}" if involved.get("name") else kind
    source = obj.get("source") or {}
    component = source.get("component") or obj.get("reportingController", "")
    host = source.get("host") or obj.get("reportingInstance", "")
    source_text = f"{component}, {host}" if component and host else component
    return [
        last,
        obj.get("type", ""),
        obj.get("reason", ""),
        target,
        involved.get("fieldPath", ""),
        source_text,
        (obj.get("message") or "").strip(),
        first,
        count,
        obj["metadata"]["name"],
    ]


TABLE = TableSpec(COLUMNS, _row)

KIND = KindInfo(
    kind="Event",
    plural="events",
    singular="event",
    group="",
    version="v1",
    namespaced=True,
    short_names=("ev",),
    field_selectors=(
        "involvedObject.kind",
        "involvedObject.namespace",
        "involvedObject.name",
        "involvedObject.uid",
        "involvedObject.apiVersion",
        "involvedObject.resourceVersion",
        "involvedObject.fieldPath",
        "reason",
        "reportingComponent",
        "source",
        "type",
    ),
    lab_manifest=False,
    reset_rank=50,
    defaults=no_defaults,
    validate=metadata_only,
    table=TABLE,
    describe=describe.generic("Event"),
)
