"""What every `kubectl describe` shares, in kubectl's layout (k8s.io/kubectl `pkg/describe`): the
describe hook's reads (events of an object, what an owner controls), the events table that ends
the text, kubectl's time formats, and the generic describer of kinds without their own.

A kind's describe hook (`KindInfo.describe`) is `describe(read, namespace, name) -> str`; `read`
answers `get(kind, namespace, name)`, `find(...)` (None when absent) and `list(kind, namespace,
field_selector="")` through the API server (dashboard/console/describe.py `ClusterReader`).
Real kubectl builds this text client-side from GETs; the web console prints the hooks' output,
and the kubectl tests compare the two. Lines are written with tabs exactly as kubectl writes them
and aligned by a copy of Go's tabwriter, so columns line up the same way.
"""

from __future__ import annotations

from datetime import datetime

from cluster.kubeapi.describe_parts import RFC1123Z, annotations_multiline, events_section, labels_multiline
from cluster.kubeapi.humanize import parse_time
from cluster.kubeapi.tabwriter import tabwrite
from k8s import clock


def rfc_time(value: str | None) -> str:
    parsed = parse_time(value)
    return parsed.strftime(RFC1123Z) if parsed else "<unset>"


def with_events(lines: list[str], events: list[dict], now: datetime) -> str:
    """kubectl flushes its tabwriter before an events table, not before "Events: <none>"."""
    if not events:
        return tabwrite("\n".join([*lines, *events_section(events, now)]) + "\n")
    return tabwrite("\n".join(lines) + "\n") + tabwrite("\n".join(events_section(events, now)) + "\n")


def go_time(value: str | None) -> str:
    """A metav1.Time formatted by Go: the zero time when unset, as kubectl prints it."""
    parsed = parse_time(value)
    return parsed.strftime(RFC1123Z) if parsed else "Mon, 01 Jan 0001 00:00:00 +0000"


def involves(event: dict, obj: dict) -> bool:
    """searchEvents: the events whose involvedObject is this object, by kind, name, namespace and
    uid, so an earlier object of the same name is not mixed in. The kubelet names a node's events
    by the node's name as uid, and kubectl searches both."""
    ref = event.get("involvedObject") or {}
    meta = obj.get("metadata") or {}
    if ref.get("kind") != obj.get("kind") or ref.get("name") != meta.get("name"):
        return False
    if (ref.get("namespace") or "") != (meta.get("namespace") or ""):
        return False
    uids = {meta.get("uid")} | ({meta.get("name")} if obj.get("kind") == "Node" else set())
    return ref.get("uid") in uids


def object_head(obj: dict) -> list[str]:
    """Name, Namespace, Labels and Annotations: how most describers begin."""
    meta = obj.get("metadata") or {}
    return [
        f"Name:\t{meta.get('name', '')}",
        f"Namespace:\t{meta.get('namespace', '')}",
        *labels_multiline("Labels", meta.get("labels")),
        *annotations_multiline("Annotations", meta.get("annotations")),
    ]


def events_of(read, obj: dict) -> list[dict]:
    namespace = (obj.get("metadata") or {}).get("namespace") or None
    return [e for e in read.list("Event", namespace) if involves(e, obj)]


def owned(read, kind: str, owner: dict) -> list[dict]:
    """The objects of `kind` the owner controls (getPodStatusForController filters by owner uid)."""
    meta = owner["metadata"]
    return [
        item
        for item in read.list(kind, meta.get("namespace"))
        if any(
            ref.get("uid") == meta.get("uid") and ref.get("controller")
            for ref in (item.get("metadata") or {}).get("ownerReferences") or []
        )
    ]


# -- kubectl's generic describer (kinds without their own: Events, Leases) ----------------------
_ACRONYMS = {"API", "URL", "UID", "OSB", "GUID"}
_SKIPPED = {".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels"}
_SKIPPED |= {".metadata.annotations"}


def _camel_parts(field: str) -> list[str]:
    parts: list[str] = []
    for ch in field:
        if parts and not (ch.isupper() and not parts[-1][-1].isupper()):
            if ch.isupper() and len(parts[-1]) > 1 and parts[-1].isupper():
                parts[-1] += ch
                continue
            if ch.islower() and len(parts[-1]) > 1 and parts[-1].isupper():
                # "APIVersion": the last capital starts the next word
                parts.append(parts[-1][-1] + ch)
                parts[-2] = parts[-2][:-1]
                continue
            parts[-1] += ch
        else:
            parts.append(ch)
    return [p for p in parts if p]


def smart_label(field: str) -> str:
    """smartLabelFor: "apiVersion" -> "API Version"; a field with other than letters and '-' as is."""
    if any(not (ch.isalpha() or ch == "-") for ch in field):
        return field
    words = [p.upper() if p.upper() in _ACRONYMS else p[:1].upper() + p[1:] for p in _camel_parts(field)]
    return " ".join(words)


def _go_value(value) -> str:
    if value is None:
        return "<nil>"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def unstructured(content: dict, level: int = 0, prefix: str = "") -> list[str]:
    """printUnstructuredContent: every field, sorted, nested maps and lists indented by level."""
    lines: list[str] = []
    pad = "  " * level
    for field in sorted(content):
        value, path = content[field], f"{prefix}.{field}"
        if path in _SKIPPED:
            continue
        if isinstance(value, dict):
            lines.append(f"{pad}{smart_label(field)}:")
            lines += unstructured(value, level + 1, path)
        elif isinstance(value, list):
            lines.append(f"{pad}{smart_label(field)}:")
            for child in value:
                if isinstance(child, dict):
                    lines += unstructured(child, level + 1, path)
                else:
                    lines.append(f"{'  ' * (level + 1)}{_go_value(child)}")
        else:
            lines.append(f"{pad}{smart_label(field)}:\t{_go_value(value)}")
    return lines


def describe_generic(obj: dict) -> list[str]:
    meta = obj.get("metadata") or {}
    lines = [f"Name:\t{meta.get('name', '')}", f"Namespace:\t{meta.get('namespace', '')}"]
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    return lines + unstructured(obj)


def generic(kind: str):
    """The describe hook of a kind kubectl describes generically (Events, Leases)."""

    def describe_hook(read, namespace: str, name: str) -> str:
        obj = read.get(kind, namespace, name)
        return with_events(describe_generic(obj), events_of(read, obj), clock.now())

    describe_hook.__name__ = f"describe_{kind.lower()}"
    return describe_hook
