"""CSINodes (storage.k8s.io/v1, `csinodes`, cluster-scoped), v1.33: upstream
`pkg/registry/storage/csinode`, ValidateCSINode, printCSINode and kubectl's describeCSINode.

A CSINode names the CSI drivers on a node and how many volumes each may attach there
(`spec.drivers[].allocatable.count`): the scheduler's NodeVolumeLimits reads it. KubeSim's
kubelets do not register drivers; a teacher writes CSINodes by hand (docs/storage.md).
"""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.defaults import no_defaults
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kubeapi.describe import events_of, rfc_time, with_events
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from k8s import clock

NODE_ID_MAX_LENGTH = 192


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    """ValidateCSINode: each driver's name (once), node ID and non-negative allocatable count."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        errors.type_error("spec", spec, "an object")
        return
    drivers = spec.get("drivers") or []
    if not isinstance(drivers, list):
        errors.type_error("spec.drivers", drivers, "a list")
        return
    seen: set[str] = set()
    for index, driver in enumerate(drivers):
        path = f"spec.drivers[{index}]"
        if not isinstance(driver, dict):
            errors.type_error(path, driver, "an object")
            continue
        name = driver.get("name") or ""
        if not name:
            errors.required(f"{path}.name")
        elif name in seen:
            errors.duplicate(f"{path}.name", name)
        else:
            errors.dns_subdomain(f"{path}.name", name)
        seen.add(name)
        node_id = driver.get("nodeID") or ""
        if not node_id:
            errors.required(f"{path}.nodeID")
        elif len(node_id) > NODE_ID_MAX_LENGTH:
            errors.invalid(f"{path}.nodeID", node_id, f"must be {NODE_ID_MAX_LENGTH} characters or less")
        count = (driver.get("allocatable") or {}).get("count")
        if isinstance(count, int) and count < 0:
            errors.invalid(f"{path}.allocatable.count", count, "must be greater than or equal to 0")


def _row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], len((obj.get("spec") or {}).get("drivers") or []), age(obj, now)]


TABLE = TableSpec((NAME_COLUMN, ("Drivers", "integer", "", 0), AGE_COLUMN), _row)


def describe_lines(csi: dict) -> list[str]:
    meta, spec = csi["metadata"], csi.get("spec") or {}
    lines = [
        f"Name:\t{meta['name']}",
        *labels_multiline("Labels", meta.get("labels")),
        *annotations_multiline("Annotations", meta.get("annotations")),
        f"CreationTimestamp:\t{rfc_time(meta.get('creationTimestamp'))}",
        "Spec:",
    ]
    if spec.get("drivers") is not None:
        lines.append("  Drivers:")
        for driver in spec["drivers"]:
            lines += [f"    {driver.get('name', '')}:", f"      Node ID:\t{driver.get('nodeID', '')}"]
            count = (driver.get("allocatable") or {}).get("count")
            if count is not None:
                lines += ["      Allocatables:", f"        Count:\t{count}"]
            if driver.get("topologyKeys") is not None:
                lines.append(f"      Topology Keys:\t[{' '.join(driver['topologyKeys'])}]")
    return lines


def describe(read, namespace: str, name: str) -> str:
    csi = read.get("CSINode", None, name)
    return with_events(describe_lines(csi), events_of(read, csi), clock.now())


KIND = KindInfo(
    kind="CSINode",
    plural="csinodes",
    singular="csinode",
    group="storage.k8s.io",
    version="v1",
    namespaced=False,
    reset_rank=85,
    defaults=no_defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)
