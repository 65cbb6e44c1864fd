"""ControllerRevisions (apps/v1, `controllerrevisions`): upstream
`pkg/registry/apps/controllerrevision`, ValidateControllerRevision(Update) and
printControllerRevision; kubectl describes them generically.

The DaemonSet and StatefulSet controllers keep one per template they rolled out (its `data` the
patch that puts the template back, its `revision` the rollout's number); `kubectl rollout
history|undo ds/sts` read them.
"""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.defaults import no_defaults
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kubeapi import describe
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    if obj.get("data") is None:
        errors.required("data", "data is mandatory")
    revision = obj.get("revision", 0)
    if isinstance(revision, int) and not isinstance(revision, bool) and revision < 0:
        errors.invalid("revision", revision, "must be greater than or equal to 0")
    if old is not None and obj.get("data") != old.get("data"):
        errors.invalid("data", obj.get("data"), "field is immutable")


def controller_name(obj: dict) -> str:
    """formatResourceName of the controller: `daemonset.apps/fluentd`, `<none>` without one."""
    ref = next((r for r in obj["metadata"].get("ownerReferences") or [] if r.get("controller")), None)
    if ref is None:
        return "<none>"
    group = (ref.get("apiVersion") or "").rpartition("/")[0]
    kind = f"{ref.get('kind', '')}.{group}" if group else ref.get("kind", "")
    return f"{kind.lower()}/{ref.get('name', '')}"


def _row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], controller_name(obj), obj.get("revision", 0), age(obj, now)]


TABLE = TableSpec(
    (NAME_COLUMN, ("Controller", "string", "", 0), ("Revision", "integer", "", 0), AGE_COLUMN),
    _row,
)

KIND = KindInfo(
    kind="ControllerRevision",
    plural="controllerrevisions",
    singular="controllerrevision",
    group="apps",
    version="v1",
    namespaced=True,
    reset_rank=30,  # after their DaemonSets and StatefulSets, which would write them again
    defaults=no_defaults,
    validate=validate,
    table=TABLE,
    describe=describe.generic("ControllerRevision"),
)
