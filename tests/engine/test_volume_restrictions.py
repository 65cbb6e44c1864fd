"""VolumeRestrictions disk conflicts, ported from upstream's volumerestrictions/volume_restrictions_test.go.

Upstream's TestAccessModeConflicts (ReadWriteOncePod claims, a missing claim) is at the end.
"""

from __future__ import annotations

import pytest

from scheduler.engine.framework import Code, CycleState
from scheduler.engine.plugins.volumerestrictions.volume_restrictions import (
    ERR_REASON_DISK_CONFLICT,
    VolumeRestrictions,
)
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import make_node, make_pod, run_filter

GCE_FOO = {"name": "v", "gcePersistentDisk": {"pdName": "foo"}}
GCE_BAR = {"name": "v", "gcePersistentDisk": {"pdName": "bar"}}
AWS_FOO = {"name": "v", "awsElasticBlockStore": {"volumeID": "foo"}}
AWS_BAR = {"name": "v", "awsElasticBlockStore": {"volumeID": "bar"}}
RBD_AB = {"name": "v", "rbd": {"monitors": ["a", "b"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
RBD_CD = {"name": "v", "rbd": {"monitors": ["c", "d"], "pool": "foo", "image": "bar", "fsType": "ext4"}}
ISCSI_16 = {
    "name": "v",
    "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2016-12.server:storage.target01"},
}
ISCSI_17 = {
    "name": "v",
    "iscsi": {"targetPortal": "127.0.0.1:3260", "iqn": "iqn.2017-12.server:storage.target01"},
}
NO_RESTRICTION = {"name": "volume with no restriction", "emptyDir": {}}


def read_only(volume: dict) -> dict:
    (kind,) = (key for key in volume if key != "name")
    return {**volume, kind: {**volume[kind], "readOnly": True}}


def check(pod_volumes: list[dict], existing_volumes: list[dict] | None):
    """The status on node n, which runs one pod with `existing_volumes` (None: no pod at all)."""
    pods = []
    if existing_volumes is not None:
        pods.append(make_pod("existing", node_name="n", volumes=existing_volumes))
    pod = make_pod("p", volumes=pod_volumes) if pod_volumes else make_pod("p")
    return run_filter(VolumeRestrictions(), pod, [make_node("n")], pods)["n"]


SKIPPED, CONFLICT = "skip", "conflict"
# Upstream runs the same four rows for each disk kind: nothing, one state, same state, different state.
UPSTREAM_ROWS = [
    ("GCE", GCE_FOO, GCE_BAR),
    ("AWS", AWS_FOO, AWS_BAR),
    ("RBD", RBD_AB, RBD_CD),
    ("ISCSI", ISCSI_16, ISCSI_17),
]
CASES = []
for kind, volume, other in UPSTREAM_ROWS:
    CASES += [
        (f"{kind}: nothing", [], None, SKIPPED),
        (f"{kind}: one state", [], [volume], SKIPPED),
        (f"{kind}: same state", [volume], [volume], CONFLICT),
        (f"{kind}: different state", [other], [volume], None),
    ]
CASES += [
    ("pod with a volume that doesn't have restrictions", [NO_RESTRICTION], None, SKIPPED),
    # KubeSim additions (docs/scheduler.md §2.9): read-only rules per disk kind.
    ("GCE: both read-only share the disk", [read_only(GCE_FOO)], [read_only(GCE_FOO)], None),
    ("GCE: one read-write conflicts", [read_only(GCE_FOO)], [GCE_FOO], CONFLICT),
    ("AWS: conflicts even when both are read-only", [read_only(AWS_FOO)], [read_only(AWS_FOO)], CONFLICT),
    ("ISCSI: both read-only share the target", [read_only(ISCSI_16)], [read_only(ISCSI_16)], None),
    ("ISCSI: one read-write conflicts", [ISCSI_16], [read_only(ISCSI_16)], CONFLICT),
    ("RBD: both read-only share the image", [read_only(RBD_AB)], [read_only(RBD_AB)], None),
    (
        "RBD: one shared monitor is enough",
        [{"name": "v", "rbd": {"monitors": ["b", "z"], "pool": "foo", "image": "bar"}}],
        [RBD_AB],
        CONFLICT,
    ),
    (
        "RBD: another image does not conflict",
        [{"name": "v", "rbd": {"monitors": ["a"], "pool": "foo", "image": "baz"}}],
        [RBD_AB],
        None,
    ),
    (
        "RBD: an empty pool is the default pool rbd",
        [{"name": "v", "rbd": {"monitors": ["a"], "image": "img"}}],
        [{"name": "w", "rbd": {"monitors": ["a"], "pool": "rbd", "image": "img"}}],
        CONFLICT,
    ),
    (
        "different kinds never conflict",
        [{"name": "v", "gcePersistentDisk": {"pdName": "foo"}}],
        [AWS_FOO],
        None,
    ),
]


@pytest.mark.parametrize(("mine", "existing", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filter_matches_upstream_table(mine, existing, expected):
    status = check(mine, existing)
    if expected is None:
        assert status is None
    elif expected == SKIPPED:
        assert status.code is Code.SKIP
        assert "spec.volumes" in status.why.en
    else:
        assert status.code is Code.UNSCHEDULABLE
        assert status.reasons == (ERR_REASON_DISK_CONFLICT,) == ("node(s) had no available disk",)


def test_why_names_both_volumes_and_the_rule():
    status = check(
        [{"name": "data", "gcePersistentDisk": {"pdName": "foo"}}],
        [{"name": "cache", "gcePersistentDisk": {"pdName": "foo", "readOnly": True}}],
    )
    assert status.why.en == (
        "The pod's spec.volumes[0] (data: gcePersistentDisk foo, read-write) conflicts with volume cache "
        "of pod default/existing on {node} (read-only): the same GCE PD (pdName) may be shared only "
        "when every pod mounts it readOnly."
    )
    assert "Pod default/existing 的卷 cache（只读）冲突" in status.why.zh


def test_only_nodes_whose_pods_use_the_disk_fail():
    nodes = [make_node(name) for name in ("a", "b", "c")]
    pods = [
        make_pod("x", node_name="b", volumes=[AWS_FOO]),
        make_pod("y", node_name="c", volumes=[AWS_BAR, NO_RESTRICTION]),
        make_pod("z", node_name="a"),
    ]
    result = run_filter(VolumeRestrictions(), make_pod("p", volumes=[NO_RESTRICTION, AWS_FOO]), nodes, pods)
    assert {name for name, status in result.items() if status} == {"b"}


def test_a_reused_plugin_follows_pods_joining_and_leaving_the_node():
    plugin, pod = VolumeRestrictions(), PodInfo.of(make_pod("p", volumes=[AWS_FOO]))
    holder = make_pod("holder", node_name="n", volumes=[AWS_FOO])
    snapshot = Snapshot.from_objects([make_node("n")], [holder])
    assert plugin.filter(CycleState(), pod, snapshot.nodes)["n"].reasons == (ERR_REASON_DISK_CONFLICT,)
    snapshot.remove_pod(holder)
    assert plugin.filter(CycleState(), pod, snapshot.nodes) == {}
    snapshot.add_pod(holder)
    assert "n" in plugin.filter(CycleState(), pod, snapshot.nodes)


# -- TestAccessModeConflicts ----------------------------------------------------------------------
def rwop_claim(name: str, modes=("ReadWriteOncePod",)) -> dict:
    return {
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"accessModes": list(modes)},
    }


def claim_volume(name: str) -> dict:
    return {"name": name, "persistentVolumeClaim": {"claimName": name}}


def access(pod_claims, existing_claims, claims):
    pods = [make_pod("existing", node_name="n", volumes=[claim_volume(c) for c in existing_claims])]
    pod = make_pod("p", volumes=[claim_volume(c) for c in pod_claims])
    return run_filter(VolumeRestrictions(), pod, [make_node("n")], pods, storage=claims)["n"]


def test_access_mode_conflicts_as_upstream():
    claims = [
        rwop_claim("claim-with-rwop-1"),
        rwop_claim("claim-with-rwop-2"),
        rwop_claim("rwo", ["ReadWriteOnce"]),
    ]
    assert access(["claim-with-rwop-1"], ["claim-with-rwop-2"], claims) is None
    conflict = access(["claim-with-rwop-1"], ["claim-with-rwop-1"], claims)
    assert conflict.code is Code.UNSCHEDULABLE
    assert conflict.reasons == (
        "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode",
    )
    assert conflict.why.en.startswith(
        "Claim claim-with-rwop-1 has access mode ReadWriteOncePod and pod existing"
    )
    assert access(["rwo"], ["rwo"], claims) is None  # ReadWriteOnce is per node: not this plugin's rule
    missing = access(["claim-with-rwop-3"], [], claims)
    assert missing.code is Code.UNRESOLVABLE
    assert missing.reasons == ('persistentvolumeclaim "claim-with-rwop-3" not found',)
    assert missing.why.zh.startswith('persistentvolumeclaim "claim-with-rwop-3" not found：')
