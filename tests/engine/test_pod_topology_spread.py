"""PodTopologySpread, ported from upstream podtopologyspread/{filtering,scoring}_test.go (v1.33).

Nodes are written "name:key=value,key=value" and existing pods "name@node:label,label=value".
"""

from __future__ import annotations

import pytest

from scheduler.engine.cycle import schedule
from scheduler.engine.framework import Code, CycleState
from scheduler.engine.plugins.helper.topology import go_round
from scheduler.engine.plugins.podtopologyspread.plugin import (
    ERR_REASON_CONSTRAINTS_NOT_MATCH,
    ERR_REASON_NODE_LABEL_NOT_MATCH,
    PodTopologySpread,
)
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.profile import Profile
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import make_node, make_pod, run_filter

OK, UN, UU = None, Code.UNSCHEDULABLE, Code.UNRESOLVABLE
HOST = "kubernetes.io/hostname"
FOO = {"matchExpressions": [{"key": "foo", "operator": "Exists"}]}
BAR = {"matchExpressions": [{"key": "bar", "operator": "Exists"}]}
TAINT = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
_UNSET = object()


def labels_of(text: str) -> dict:
    out = {}
    for item in filter(None, text.split(",")):
        key, _, value = item.partition("=")
        out[key] = value
    return out


def nodes(*specs: str) -> list[dict]:
    """ "node-a:zone=zone1,node=node-a" (append "!" to the name for the unschedulable taint)."""
    out = []
    for spec in specs:
        name, _, labels = spec.partition(":")
        tainted = name.endswith("!")
        out.append(make_node(name.rstrip("!"), labels=labels_of(labels), taints=TAINT if tainted else None))
    return out


def pods(*specs: str) -> list[dict]:
    """ "p-a1@node-a:foo" ("ns/name@node:..." for another namespace, "~name" for a terminating pod)."""
    out = []
    for spec in specs:
        head, _, labels = spec.partition(":")
        name, _, node_name = head.partition("@")
        namespace, _, name = name.rpartition("/")
        p = make_pod(
            name.lstrip("~"), labels=labels_of(labels), node_name=node_name, namespace=namespace or "default"
        )
        if name.startswith("~"):
            p["metadata"]["deletionTimestamp"] = "2025-01-01T00:00:00Z"
        out.append(p)
    return out


def sc(
    skew, key, when="DoNotSchedule", selector=FOO, min_domains=None, affinity=None, taints=None, keys=None
):
    c = {"maxSkew": skew, "topologyKey": key, "whenUnsatisfiable": when}
    if selector is not None:
        c["labelSelector"] = selector
    for field, value in (
        ("minDomains", min_domains),
        ("nodeAffinityPolicy", affinity),
        ("nodeTaintsPolicy", taints),
        ("matchLabelKeys", keys),
    ):
        if value is not None:
            c[field] = value
    return c


def incoming(
    labels="foo", *constraints, node_selector=None, affinity_in=None, affinity_not_in=None, tolerate=False
):
    spec: dict = {}
    if constraints:
        spec["topologySpreadConstraints"] = list(constraints)
    if node_selector:
        spec["nodeSelector"] = node_selector
    if affinity_in or affinity_not_in:
        key, values = affinity_in or affinity_not_in
        expr = {"key": key, "operator": "In" if affinity_in else "NotIn", "values": values}
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": [expr]}]
                }
            }
        }
    if tolerate:
        spec["tolerations"] = [{"key": "node.kubernetes.io/unschedulable", "operator": "Exists"}]
    return make_pod("p", labels=labels_of(labels), **spec)


ZONES4 = nodes(
    "node-a:zone=zone1,node=node-a",
    "node-b:zone=zone1,node=node-b",
    "node-x:zone=zone2,node=node-x",
    "node-y:zone=zone2,node=node-y",
)
SPREAD_2103 = pods(
    "p-a1@node-a:foo",
    "p-a2@node-a:foo",
    "p-b1@node-b:foo",
    "p-y1@node-y:foo",
    "p-y2@node-y:foo",
    "p-y3@node-y:foo",
)
FOO_BAR_NODES = nodes("node-a:node=node-a,foo", "node-b:node=node-b,foo", "node-c:node=node-c,bar")
POLICY_PODS = pods("p-a@node-a:bar", "p-b@node-b:bar", "p-c@node-b:bar", "p-d@node-c")
TAINTED = nodes("node-a:node=node-a", "node-b:node=node-b", "node-c!:node=node-c,bar")


def _prefilter_counts(pod, node_list, pod_list):
    snapshot = Snapshot.from_objects(node_list, pod_list)
    state = CycleState()
    outcome = PodTopologySpread().pre_filter(state, PodInfo.of(pod), snapshot.nodes, snapshot)
    return outcome, state.get("PreFilterPodTopologySpread")


# TestPreFilterState: the matching pods counted per domain.
PREFILTER_STATE = [
    (
        "clean cluster with one constraint",
        incoming("foo", sc(5, "zone", selector={"matchLabels": {"foo": "bar"}})),
        ZONES4,
        [],
        [{"zone1": 0, "zone2": 0}],
    ),
    (
        "normal case with one constraint",
        incoming("foo", sc(1, "zone")),
        ZONES4,
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-y1@node-y:foo", "p-y2@node-y:foo"),
        [{"zone1": 3, "zone2": 2}],
    ),
    (
        "null label selector matches nothing",
        incoming("foo", sc(1, "zone", selector=None)),
        ZONES4,
        pods("p-a1@node-a:foo", "p-y1@node-y:foo"),
        [{"zone1": 0, "zone2": 0}],
    ),
    (
        "3-zone cluster",
        incoming("foo", sc(1, "zone")),
        [*ZONES4, *nodes("node-o:zone=zone3,node=node-o", "node-p:zone=zone3,node=node-p")],
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-y1@node-y:foo", "p-y2@node-y:foo"),
        [{"zone1": 3, "zone2": 2, "zone3": 0}],
    ),
    (
        "namespace mismatch doesn't count",
        incoming("foo", sc(1, "zone")),
        ZONES4,
        pods(
            "p-a1@node-a:foo",
            "ns1/p-a2@node-a:foo",
            "p-b1@node-b:foo",
            "ns2/p-y1@node-y:foo",
            "p-y2@node-y:foo",
        ),
        [{"zone1": 2, "zone2": 1}],
    ),
    (
        "two constraints",
        incoming("foo", sc(1, "zone"), sc(1, "node")),
        ZONES4,
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo",
            "p-y3@node-y:foo",
            "p-y4@node-y:foo",
        ),
        [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-x": 0, "node-y": 4}],
    ),
    (
        "soft constraints are bypassed",
        incoming(
            "foo",
            sc(1, "zone", "ScheduleAnyway"),
            sc(1, "zone"),
            sc(1, "node", "ScheduleAnyway"),
            sc(1, "node"),
        ),
        nodes(
            "node-a:zone=zone1,node=node-a", "node-b:zone=zone1,node=node-b", "node-y:zone=zone2,node=node-y"
        ),
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo",
            "p-y3@node-y:foo",
            "p-y4@node-y:foo",
        ),
        [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
    ),
    (
        "different label selectors - complex pods",
        incoming("foo,bar", sc(1, "zone"), sc(1, "node", selector=BAR)),
        nodes(
            "node-a:zone=zone1,node=node-a", "node-b:zone=zone1,node=node-b", "node-y:zone=zone2,node=node-y"
        ),
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo,bar",
            "p-b1@node-b:foo",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo,bar",
            "p-y3@node-y:foo",
            "p-y4@node-y:foo,bar",
        ),
        [{"zone1": 3, "zone2": 4}, {"node-a": 1, "node-b": 0, "node-y": 2}],
    ),
    (
        "nodes excluded by the pod's node affinity don't count",
        incoming("foo", sc(1, "zone"), sc(1, "node"), affinity_not_in=("node", ["node-x"])),
        ZONES4,
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo",
            "p-y3@node-y:foo",
            "p-y4@node-y:foo",
        ),
        [{"zone1": 3, "zone2": 4}, {"node-a": 2, "node-b": 1, "node-y": 4}],
    ),
    (
        "NodeAffinityPolicy honored with nodeSelector",
        incoming("foo", sc(1, "node", selector=BAR), node_selector={"foo": ""}),
        FOO_BAR_NODES,
        POLICY_PODS,
        [{"node-a": 1, "node-b": 2}],
    ),
    (
        "NodeAffinityPolicy ignored with nodeSelector",
        incoming("foo", sc(1, "node", selector=BAR, affinity="Ignore"), node_selector={"foo": ""}),
        FOO_BAR_NODES,
        POLICY_PODS,
        [{"node-a": 1, "node-b": 2, "node-c": 0}],
    ),
    (
        "NodeAffinityPolicy honored with nodeAffinity",
        incoming("foo", sc(1, "node", selector=BAR), affinity_in=("foo", [""])),
        FOO_BAR_NODES,
        POLICY_PODS,
        [{"node-a": 1, "node-b": 2}],
    ),
    (
        "NodeAffinityPolicy ignored with nodeAffinity",
        incoming("foo", sc(1, "node", selector=BAR, affinity="Ignore"), affinity_in=("foo", [""])),
        FOO_BAR_NODES,
        POLICY_PODS,
        [{"node-a": 1, "node-b": 2, "node-c": 0}],
    ),
    (
        "NodeTaintsPolicy ignored by default",
        incoming("foo", sc(1, "node", selector=BAR)),
        TAINTED,
        POLICY_PODS,
        [{"node-a": 1, "node-b": 2, "node-c": 0}],
    ),
    (
        "NodeTaintsPolicy honored",
        incoming("foo", sc(1, "node", selector=BAR, taints="Honor")),
        TAINTED,
        POLICY_PODS,
        [{"node-a": 1, "node-b": 2}],
    ),
    (
        "NodeTaintsPolicy honored with tolerated taints",
        incoming("foo", sc(1, "node", selector=BAR, taints="Honor"), tolerate=True),
        TAINTED,
        POLICY_PODS,
        [{"node-a": 1, "node-b": 2, "node-c": 0}],
    ),
    (
        "two inclusion constraints, zone honor/ignore, node ignore/ignore",
        incoming("foo", sc(1, "zone"), sc(1, "node", affinity="Ignore"), node_selector={"foo": ""}),
        nodes(
            "node-a:zone=zone1,node=node-a,foo",
            "node-b:zone=zone1,node=node-b",
            "node-x:zone=zone2,node=node-x,foo",
        ),
        pods("p-b1@node-b:foo", "p-b2@node-b:foo", "p-x1@node-x:foo"),
        [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
    ),
    (
        "two inclusion constraints, zone honor/honor, node honor/ignore",
        incoming("foo", sc(1, "zone", taints="Honor"), sc(1, "node")),
        nodes(
            "node-a:zone=zone1,node=node-a,foo",
            "node-b!:zone=zone1,node=node-b",
            "node-x:zone=zone2,node=node-x,foo",
        ),
        pods("p-b1@node-b:foo", "p-b2@node-b:foo", "p-x1@node-x:foo"),
        [{"zone1": 0, "zone2": 1}, {"node-a": 0, "node-b": 2, "node-x": 1}],
    ),
    (
        "two inclusion constraints, zone honor/ignore, node honor/ignore",
        incoming("foo", sc(1, "zone"), sc(1, "node"), node_selector={"foo": ""}),
        nodes(
            "node-a:zone=zone1,node=node-a",
            "node-b!:zone=zone1,node=node-b,foo",
            "node-x:zone=zone2,node=node-x,foo",
            "node-y:zone=zone2,node=node-y",
        ),
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-x1@node-x:foo", "p-y1@node-y:foo"),
        [{"zone1": 0, "zone2": 1}, {"node-b": 0, "node-x": 1}],
    ),
    (
        "two inclusion constraints, zone ignore/ignore, node honor/honor",
        incoming(
            "foo", sc(1, "zone", affinity="Ignore"), sc(1, "node", taints="Honor"), node_selector={"foo": ""}
        ),
        nodes(
            "node-a:zone=zone1,node=node-a",
            "node-b!:zone=zone1,node=node-b,foo",
            "node-x:zone=zone2,node=node-x,foo",
            "node-y:zone=zone2,node=node-y,foo",
        ),
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-x1@node-x:foo", "p-x2@node-x:foo", "p-y1@node-y:foo"),
        [{"zone1": 2, "zone2": 3}, {"node-x": 2, "node-y": 1}],
    ),
    (
        "matchLabelKeys ANDed with a non-empty labelSelector",
        incoming("foo,bar=a", sc(1, "zone", keys=["bar"])),
        ZONES4,
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo,bar=a",
            "p-b1@node-b:foo",
            "p-y1@node-y:foo,bar=a",
            "p-y2@node-y:bar",
        ),
        [{"zone1": 1, "zone2": 1}],
    ),
    (
        "matchLabelKeys ANDed with an empty labelSelector",
        incoming("foo=a", sc(1, "zone", selector={}, keys=["foo"])),
        ZONES4,
        pods(
            "p-a1@node-a:foo=a",
            "p-a2@node-a:foo=a",
            "p-b1@node-b:foo=a",
            "p-y1@node-y:foo=a",
            "p-y2@node-y:foo=a",
        ),
        [{"zone1": 3, "zone2": 2}],
    ),
    (
        "a matchLabelKeys key the pod lacks leaves a nil selector matching nothing",
        incoming("foo", sc(1, "zone", selector=None, keys=["bar"])),
        ZONES4,
        pods("p-a1@node-a:foo=a", "p-y1@node-y:foo=a"),
        [{"zone1": 0, "zone2": 0}],
    ),
    (
        "a matchLabelKeys key the pod lacks is ignored",
        incoming("foo", sc(1, "zone", keys=["bar"])),
        ZONES4,
        pods(
            "p-a1@node-a:foo=a",
            "p-a2@node-a:foo=a",
            "p-b1@node-b:foo=a",
            "p-y1@node-y:foo=a",
            "p-y2@node-y:foo=a",
        ),
        [{"zone1": 3, "zone2": 2}],
    ),
    (
        "two constraints with the same topologyKey",
        incoming("foo,bar", sc(1, "zone"), sc(1, "zone", selector=BAR)),
        ZONES4,
        pods(
            "p-a1@node-a:foo,bar",
            "p-b1@node-b:foo",
            "p-x1@node-x:bar",
            "p-y1@node-y:foo,bar",
            "p-y2@node-y:bar",
        ),
        [{"zone1": 2, "zone2": 1}, {"zone1": 1, "zone2": 3}],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "node_list", "pod_list", "want"), PREFILTER_STATE, ids=[c[0] for c in PREFILTER_STATE]
)
def test_prefilter_counts_matching_pods_per_domain(name, pod, node_list, pod_list, want):
    outcome, state = _prefilter_counts(pod, node_list, pod_list)
    assert outcome is None
    assert state.counts == want


def test_prefilter_skips_a_pod_without_constraints():
    outcome, _ = _prefilter_counts(incoming("foo"), nodes("node-a:zone=zone1,node=node-a"), [])
    assert outcome.code is Code.SKIP
    assert "spec.topologySpreadConstraints" in outcome.why.en


NODE3 = nodes("node-a:node=node-a", "node-b:node=node-b", "node-c:node=node-c")
FOO_NODES4 = nodes(
    "node-a:node=node-a,foo", "node-b:node=node-b,foo", "node-x:node=node-x,foo", "node-y:node=node-y"
)
FOO_NODES4_TAINTED = nodes(
    "node-a:node=node-a,foo", "node-b:node=node-b,foo", "node-x:node=node-x,foo", "node-y!:node=node-y"
)
POLICY_PODS2 = pods("p-b1@node-a:foo", "p-b2@node-b:foo", "p-y1@node-y:foo")

# TestSingleConstraint: the Filter code per node.
SINGLE = [
    ("no existing pods", incoming("foo", sc(1, "zone")), ZONES4, [], [OK, OK, OK, OK]),
    (
        "no existing pods, incoming pod doesn't match itself",
        incoming("foo", sc(1, "zone", selector=BAR)),
        ZONES4,
        [],
        [OK, OK, OK, OK],
    ),
    (
        "existing pods in a different namespace do not count",
        incoming("foo", sc(1, "zone")),
        ZONES4,
        pods("ns1/p-a1@node-a:foo", "ns2/p-b1@node-a:foo", "p-x1@node-x:foo", "p-y1@node-y:foo"),
        [OK, OK, UN, UN],
    ),
    (
        "existing pods do not match a null selector",
        incoming("foo", sc(1, "zone", selector=None)),
        ZONES4,
        pods("p-x1@node-x:foo", "p-y1@node-y:foo"),
        [OK, OK, OK, OK],
    ),
    (
        "pods spread across zones as 3/3, all nodes fit",
        incoming("foo", sc(1, "zone")),
        ZONES4,
        SPREAD_2103,
        [OK, OK, OK, OK],
    ),
    (
        "pods spread as 1/2 because node-b lacks the zone label",
        incoming("foo", sc(1, "zone")),
        nodes(
            "node-a:zone=zone1,node=node-a",
            "node-b:zon=zone1,node=node-b",
            "node-x:zone=zone2,node=node-x",
            "node-y:zone=zone2,node=node-y",
        ),
        pods("p-a1@node-a:foo", "p-b1@node-b:foo", "p-x1@node-x:foo", "p-y1@node-y:foo"),
        [OK, UU, UN, UN],
    ),
    (
        "no node has the rack label",
        incoming("foo", sc(1, "rack")),
        nodes("node-a:zone=zone1,node=node-a", "node-x:zone=zone2,node=node-x"),
        [],
        [UU, UU],
    ),
    (
        "pods spread across nodes as 2/1/0/3, only node-x fits",
        incoming("foo", sc(1, "node")),
        ZONES4,
        SPREAD_2103,
        [UN, UN, OK, UN],
    ),
    (
        "pods spread as 2/1/0/3, maxSkew 2: node-b and node-x fit",
        incoming("foo", sc(2, "node")),
        ZONES4,
        SPREAD_2103,
        [UN, OK, OK, UN],
    ),
    (
        "pods spread as 2/1/0/3, the pod doesn't match itself",
        incoming("bar", sc(1, "node")),
        ZONES4,
        SPREAD_2103,
        [UN, OK, OK, UN],
    ),
    (
        "node affinity excludes node-b and node-x from the counts: node-a fits",
        incoming("foo", sc(1, "node"), affinity_in=("node", ["node-a", "node-y"])),
        ZONES4,
        SPREAD_2103,
        [OK, OK, OK, UN],
    ),
    (
        "terminating pods are excluded",
        incoming("foo", sc(1, "node")),
        nodes("node-a:node=node-a", "node-b:node=node-b"),
        pods("~p-a@node-a:foo", "p-b@node-b:foo"),
        [OK, UN],
    ),
    (
        "node affinity: pods spread as 0/~2~/0/1, node-a fits",
        incoming("foo", sc(1, "zone"), affinity_not_in=("node", ["node-b"])),
        ZONES4,
        pods("p-b1@node-b:foo", "p-b2@node-b:foo", "p-y1@node-y:foo"),
        [OK, OK, UN, UN],
    ),
    (
        "2/2/1, maxSkew 2, fewer domains than minDomains: only the third node fits",
        incoming("foo", sc(2, "node", min_domains=4)),
        NODE3,
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-b2@node-b:foo", "p-c1@node-c:foo"),
        [UN, UN, OK],
    ),
    (
        "2/2/1, maxSkew 2, more domains than minDomains: all nodes fit",
        incoming("foo", sc(2, "node", min_domains=2)),
        NODE3,
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-b2@node-b:foo", "p-c1@node-c:foo"),
        [OK, OK, OK],
    ),
    (
        "zones 2/1, maxSkew 2, fewer domains than minDomains: zone2 fits",
        incoming("foo", sc(2, "zone", min_domains=3)),
        ZONES4,
        pods("p-b1@node-a:foo", "p-b2@node-b:foo", "p-y1@node-y:foo"),
        [UN, UN, OK, OK],
    ),
    (
        "zones 2/1, maxSkew 2, more domains than minDomains: all fit",
        incoming("foo", sc(2, "zone", min_domains=1)),
        ZONES4,
        pods("p-b1@node-a:foo", "p-b2@node-b:foo", "p-y1@node-y:foo"),
        [OK, OK, OK, OK],
    ),
    (
        "NodeAffinityPolicy honored with nodeSelector",
        incoming("foo", sc(1, "node"), node_selector={"foo": ""}),
        FOO_NODES4,
        POLICY_PODS2,
        [UN, UN, OK, OK],
    ),
    (
        "NodeAffinityPolicy ignored with nodeSelector",
        incoming("foo", sc(1, "node", affinity="Ignore"), node_selector={"foo": ""}),
        FOO_NODES4,
        POLICY_PODS2,
        [UN, UN, OK, UN],
    ),
    (
        "NodeAffinityPolicy honored with nodeAffinity",
        incoming("foo", sc(1, "node"), affinity_in=("foo", [""])),
        FOO_NODES4,
        POLICY_PODS2,
        [UN, UN, OK, OK],
    ),
    (
        "NodeAffinityPolicy ignored with nodeAffinity",
        incoming("foo", sc(1, "node", affinity="Ignore"), affinity_in=("foo", [""])),
        FOO_NODES4,
        POLICY_PODS2,
        [UN, UN, OK, UN],
    ),
    (
        "NodeTaintsPolicy honored",
        incoming("foo", sc(1, "node", taints="Honor")),
        FOO_NODES4_TAINTED,
        POLICY_PODS2,
        [UN, UN, OK, OK],
    ),
    (
        "NodeTaintsPolicy ignored",
        incoming("foo", sc(1, "node")),
        FOO_NODES4_TAINTED,
        POLICY_PODS2,
        [UN, UN, OK, UN],
    ),
]

# TestMultipleConstraints
MULTIPLE = [
    (
        "zone and node, spreads [3/3, 2/1/0/3]",
        incoming("foo", sc(1, "zone"), sc(1, "node")),
        ZONES4,
        SPREAD_2103,
        [UN, UN, OK, UN],
    ),
    (
        "zone and node, spreads [3/4, 2/1/0/4]",
        incoming("foo", sc(1, "zone"), sc(1, "node")),
        ZONES4,
        [*SPREAD_2103, *pods("p-y4@node-y:foo")],
        [UN, UN, UN, UN],
    ),
    (
        "different selectors, spreads [1/0, 1/0/0/1]",
        incoming("foo,bar", sc(1, "zone"), sc(1, "node", selector=BAR)),
        ZONES4,
        pods("p-a1@node-a:foo", "p-y1@node-y:bar"),
        [UN, UN, OK, UN],
    ),
    (
        "different selectors, spreads [1/0, 0/0/1/1]",
        incoming("foo,bar", sc(1, "zone"), sc(1, "node", selector=BAR)),
        ZONES4,
        pods("p-a1@node-a:foo", "p-x1@node-x:bar", "p-y1@node-y:bar"),
        [UN, UN, UN, UN],
    ),
    (
        "different selectors, spreads [2/3, 1/0/0/1]",
        incoming("foo,bar", sc(1, "zone"), sc(1, "node", selector=BAR)),
        ZONES4,
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo,bar",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo,bar",
            "p-y3@node-y:foo",
        ),
        [UN, OK, UN, UN],
    ),
    (
        "the pod doesn't match itself on the zone constraint",
        incoming("bar", sc(1, "zone"), sc(1, "node", selector=BAR)),
        ZONES4,
        pods("p-a1@node-a:foo", "p-x1@node-x:bar", "p-y1@node-y:bar"),
        [OK, OK, UN, UN],
    ),
    (
        "node-x lacks the node label, spreads [1/1, 1/0/0/1]",
        incoming("foo", sc(1, "zone"), sc(1, "node")),
        nodes(
            "node-a:zone=zone1,node=node-a",
            "node-b:zone=zone1,node=node-b",
            "node-x:zone=zone2",
            "node-y:zone=zone2,node=node-y",
        ),
        pods("p-a1@node-a:foo", "p-y3@node-y:foo"),
        [UN, OK, UU, UN],
    ),
    (
        "inclusion: zone honor/ignore, node ignore/ignore",
        incoming("foo", sc(1, "zone"), sc(1, "node", affinity="Ignore"), node_selector={"foo": ""}),
        nodes(
            "node-a:zone=zone1,node=node-a,foo",
            "node-b:zone=zone1,node=node-b,foo",
            "node-x:zone=zone2,node=node-x,foo",
            "node-y:zone=zone2,node=node-y",
        ),
        pods("p-a1@node-a:foo", "p-b1@node-b:foo", "p-y1@node-y:foo"),
        [UN, UN, OK, UN],
    ),
    (
        "inclusion: zone honor/honor, node honor/ignore",
        incoming("foo", sc(1, "zone", taints="Honor"), sc(1, "node")),
        nodes(
            "node-a:zone=zone1,node=node-a,foo",
            "node-b:zone=zone1,node=node-b,foo",
            "node-x:zone=zone2,node=node-x,foo",
            "node-y!:zone=zone2,node=node-y",
        ),
        pods("p-a1@node-a:foo", "p-b1@node-b:foo", "p-y1@node-y:foo"),
        [UN, UN, OK, UN],
    ),
    (
        "inclusion: zone honor/ignore, node honor/ignore",
        incoming("foo", sc(1, "zone"), sc(1, "node"), node_selector={"foo": ""}),
        nodes(
            "node-a:zone=zone1,node=node-a,foo",
            "node-b:zone=zone1,node=node-b",
            "node-x:zone=zone2,node=node-x,foo",
            "node-y!:zone=zone2,node=node-y,foo",
        ),
        pods("p-a1@node-a:foo", "p-b1@node-b:foo", "p-y1@node-y:foo"),
        [UN, OK, OK, UN],
    ),
    (
        "inclusion: zone honor/honor, node ignore/ignore",
        incoming(
            "foo", sc(1, "zone", taints="Honor"), sc(1, "node", affinity="Ignore"), node_selector={"foo": ""}
        ),
        nodes(
            "node-a:zone=zone1,node=node-a,foo",
            "node-b:zone=zone1,node=node-b",
            "node-x:zone=zone2,node=node-x,foo",
            "node-y!:zone=zone2,node=node-y,foo",
        ),
        pods("p-a1@node-a:foo", "p-b1@node-b:foo", "p-y1@node-y:foo"),
        [UN, UN, OK, UN],
    ),
    (
        "two constraints on zone, spreads [3/3, 2/1]",
        incoming("foo,bar", sc(1, "zone", selector=BAR), sc(1, "zone")),
        ZONES4,
        pods(
            "p-a1@node-a:foo,bar",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo,bar",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo,bar",
            "p-y3@node-y:foo",
        ),
        [UN, UN, OK, OK],
    ),
    (
        "two constraints on zone, spreads [3/4, 2/1]",
        incoming("foo,bar", sc(1, "zone", selector=BAR), sc(1, "zone")),
        ZONES4,
        pods(
            "p-a1@node-a:foo,bar",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo,bar",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo,bar",
            "p-y3@node-y:foo",
            "p-y4@node-y:foo",
        ),
        [UN, UN, UN, UN],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "node_list", "pod_list", "want"), SINGLE + MULTIPLE, ids=[c[0] for c in SINGLE + MULTIPLE]
)
def test_filter_codes(name, pod, node_list, pod_list, want):
    result = run_filter(PodTopologySpread(), pod, node_list, pod_list)
    got = [None if status is None else status.code for status in result.values()]
    assert got == want
    for status in result.values():
        if status is not None:
            reason = (
                ERR_REASON_NODE_LABEL_NOT_MATCH if status.code is UU else ERR_REASON_CONSTRAINTS_NOT_MATCH
            )
            assert status.reasons == (reason,)
            assert status.plugin == "PodTopologySpread"


def _score(pod, node_list, pod_list, failed=(), owners=None, args=None):
    """PreScore on the candidate nodes (nodes + failed = the snapshot), Score, NormalizeScore."""
    snapshot = Snapshot.from_objects([*node_list, *failed], pod_list)
    if owners is not None:
        snapshot.workload_selectors = owners
    candidates = [snapshot.get(n["metadata"]["name"]) for n in node_list]
    plugin, state, info = PodTopologySpread(args), CycleState(), PodInfo.of(pod)
    status = plugin.pre_score(state, info, candidates, snapshot)
    if status is not None:
        return status
    column = plugin.score(state, info, candidates)
    column.normalized = plugin.normalize_score(state, info, list(column.raw))
    return plugin, column


HOSTS4 = nodes(*(f"node-{n}:{HOST}=node-{n}" for n in "abcd"))
SPREAD_4321 = pods(
    "p-a1@node-a:foo",
    "p-a2@node-a:foo",
    "p-a3@node-a:foo",
    "p-a4@node-a:foo",
    "p-b1@node-b:foo",
    "p-b2@node-b:foo",
    "p-b3@node-b:foo",
    "p-c1@node-c:foo",
    "p-c2@node-c:foo",
    "p-d1@node-d:foo",
)
SPREAD_42x3 = pods(
    "p-a1@node-a:foo",
    "p-a2@node-a:foo",
    "p-a3@node-a:foo",
    "p-a4@node-a:foo",
    "p-b1@node-b:foo",
    "p-b2@node-b:foo",
    "p-x1@node-x:foo",
    "p-y1@node-y:foo",
    "p-y2@node-y:foo",
    "p-y3@node-y:foo",
)
HOST_ZONES = nodes(
    f"node-a:zone=zone1,{HOST}=node-a",
    f"node-b:zone=zone1,{HOST}=node-b",
    f"node-x:zone=zone2,{HOST}=node-x",
    f"node-y:zone=zone2,{HOST}=node-y",
)
FOO_SERVICE = [{"kind": "Service", "namespace": "default", "selector": {"foo": ""}}]
HOSTNAME_FOO = sc(1, HOST, "ScheduleAnyway")
NODE_FOO_POLICY = nodes("node-a:node=node-a,foo", "node-b:node=node-b,foo", "node-c:node=node-c")
POLICY_SCORE_PODS = pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-c1@node-c:foo")

# TestPodTopologySpreadScore: (name, pod, candidate nodes, failed nodes, existing pods, owners, scores)
SCORES = [
    (
        "one constraint on node, no existing pods",
        incoming("foo", HOSTNAME_FOO),
        HOSTS4[:2],
        [],
        [],
        None,
        [100, 100],
    ),
    (
        "only one node is a candidate",
        incoming("foo", HOSTNAME_FOO),
        HOSTS4[:1],
        HOSTS4[1:2],
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo"),
        None,
        [100],
    ),
    (
        "all nodes have the same number of matching pods",
        incoming("foo", HOSTNAME_FOO),
        HOSTS4[:2],
        [],
        pods("p-a1@node-a:foo", "p-b1@node-b:foo"),
        None,
        [100, 100],
    ),
    (
        "matching pods spread as 2/1/0/3",
        incoming("foo", HOSTNAME_FOO),
        HOSTS4,
        [],
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo",
            "p-d1@node-d:foo",
            "p-d2@node-d:foo",
            "p-d3@node-d:foo",
        ),
        None,
        [20, 60, 100, 0],
    ),
    (
        "null selector",
        incoming("foo", sc(1, HOST, "ScheduleAnyway", selector=None)),
        HOSTS4,
        [],
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-d1@node-d:foo"),
        None,
        [100, 100, 100, 100],
    ),
    (
        "2/1/0/3 with maxSkew 2",
        incoming("foo", sc(2, HOST, "ScheduleAnyway")),
        HOSTS4,
        [],
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo",
            "p-d1@node-d:foo",
            "p-d2@node-d:foo",
            "p-d3@node-d:foo",
        ),
        None,
        [33, 66, 100, 16],
    ),
    (
        "4/3/2/1 with maxSkew 3",
        incoming("foo", sc(3, HOST, "ScheduleAnyway")),
        HOSTS4,
        [],
        SPREAD_4321,
        None,
        [44, 66, 77, 100],
    ),
    (
        "system defaulting: nodes without zone, pods selected by a service",
        incoming("foo"),
        HOSTS4,
        [],
        SPREAD_4321,
        FOO_SERVICE,
        [44, 66, 77, 100],
    ),
    (
        "3 out of 4 nodes are candidates",
        incoming("foo", HOSTNAME_FOO),
        nodes(f"node-a:{HOST}=node-a", f"node-b:{HOST}=node-b", f"node-x:{HOST}=node-x"),
        nodes(f"node-y:{HOST}=node-y"),
        SPREAD_42x3,
        None,
        [33, 83, 100],
    ),
    (
        "3 out of 4 candidates, one lacks the topology key",
        incoming("foo", HOSTNAME_FOO),
        nodes(f"node-a:{HOST}=node-a", "node-b:n=node-b", f"node-x:{HOST}=node-x"),
        nodes(f"node-y:{HOST}=node-y"),
        SPREAD_42x3,
        None,
        [16, 0, 100],
    ),
    (
        "one constraint on zone, 3 out of 4 candidates",
        incoming("foo", sc(1, "zone", "ScheduleAnyway")),
        HOST_ZONES[:3],
        HOST_ZONES[3:],
        SPREAD_42x3,
        None,
        [75, 75, 100],
    ),
    (
        "zone and node, 2 out of 4 candidates",
        incoming("foo", sc(1, "zone", "ScheduleAnyway"), HOSTNAME_FOO),
        [HOST_ZONES[0], HOST_ZONES[2]],
        [HOST_ZONES[1], HOST_ZONES[3]],
        pods(
            "p-a1@node-a:foo",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo",
            "p-x1@node-x:foo",
            "p-x2@node-x:foo",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo",
            "p-y3@node-y:foo",
            "p-y4@node-y:foo",
        ),
        None,
        [100, 63],
    ),
    (
        "two constraints on zone, 2 out of 4 candidates",
        incoming("foo,bar", sc(1, "zone", "ScheduleAnyway"), sc(1, "zone", "ScheduleAnyway", selector=BAR)),
        nodes("node-a:zone=zone1", "node-x:zone=zone2"),
        nodes("node-b:zone=zone1", "node-y:zone=zone2"),
        pods(
            "p-a1@node-a:foo,bar",
            "p-a2@node-a:foo",
            "p-b1@node-b:foo,bar",
            "p-y1@node-y:foo",
            "p-y2@node-y:foo,bar",
            "p-y3@node-y:foo",
        ),
        None,
        [85, 100],
    ),
    (
        "zone and node with different selectors",
        incoming("foo,bar", sc(1, "zone", "ScheduleAnyway"), sc(1, HOST, "ScheduleAnyway", selector=BAR)),
        HOST_ZONES,
        [],
        pods("p-a1@node-a:foo", "p-b1@node-b:foo,bar", "p-y1@node-y:foo", "p-y2@node-y:bar"),
        None,
        [60, 20, 100, 60],
    ),
    (
        "zone and node with different selectors, some nodes have 0 pods",
        incoming("foo,bar", sc(1, "zone", "ScheduleAnyway"), sc(1, HOST, "ScheduleAnyway", selector=BAR)),
        HOST_ZONES,
        [],
        pods("p-b1@node-b:bar", "p-x1@node-x:foo", "p-y1@node-y:foo,bar"),
        None,
        [100, 60, 40, 0],
    ),
    (
        "zone and node with different selectors, 3 out of 4 candidates",
        incoming("foo,bar", sc(1, "zone", "ScheduleAnyway"), sc(1, HOST, "ScheduleAnyway", selector=BAR)),
        HOST_ZONES[:3],
        HOST_ZONES[3:],
        pods("p-a1@node-a:foo", "p-b1@node-b:foo,bar", "p-y1@node-y:foo", "p-y2@node-y:bar"),
        None,
        [50, 25, 100],
    ),
    (
        "existing pods in a different namespace do not count",
        incoming("foo", HOSTNAME_FOO),
        HOSTS4[:2],
        [],
        pods("ns1/p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-b2@node-b:foo"),
        None,
        [100, 33],
    ),
    (
        "terminating pods are excluded",
        incoming("foo", HOSTNAME_FOO),
        HOSTS4[:2],
        [],
        pods("~p-a@node-a:foo", "p-b@node-b:foo"),
        None,
        [100, 0],
    ),
    (
        "minDomains has no effect on ScheduleAnyway",
        incoming("foo", sc(2, "node", "ScheduleAnyway", min_domains=10)),
        NODE3,
        [],
        pods("p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-b2@node-b:foo", "p-c1@node-c:foo"),
        None,
        [75, 75, 100],
    ),
    (
        "NodeAffinityPolicy honored with nodeSelector",
        incoming("foo", sc(1, "node", "ScheduleAnyway"), node_selector={"foo": ""}),
        NODE_FOO_POLICY,
        [],
        POLICY_SCORE_PODS,
        None,
        [0, 33, 100],
    ),
    (
        "NodeAffinityPolicy ignored with nodeSelector",
        incoming("foo", sc(1, "node", "ScheduleAnyway", affinity="Ignore"), node_selector={"foo": ""}),
        NODE_FOO_POLICY,
        [],
        POLICY_SCORE_PODS,
        None,
        [66, 100, 100],
    ),
    (
        "NodeAffinityPolicy honored with nodeAffinity",
        incoming("foo", sc(1, "node", "ScheduleAnyway"), affinity_in=("foo", [""])),
        NODE_FOO_POLICY,
        [],
        POLICY_SCORE_PODS,
        None,
        [0, 33, 100],
    ),
    (
        "NodeAffinityPolicy ignored with nodeAffinity",
        incoming("foo", sc(1, "node", "ScheduleAnyway", affinity="Ignore"), affinity_in=("foo", [""])),
        NODE_FOO_POLICY,
        [],
        POLICY_SCORE_PODS,
        None,
        [66, 100, 100],
    ),
    (
        "NodeTaintsPolicy honored",
        incoming("foo", sc(1, "node", "ScheduleAnyway", taints="Honor")),
        nodes("node-a:node=node-a", "node-b:node=node-b", "node-c!:node=node-c"),
        [],
        POLICY_SCORE_PODS,
        None,
        [0, 33, 100],
    ),
    (
        "NodeTaintsPolicy ignored",
        incoming("foo", sc(1, "node", "ScheduleAnyway")),
        nodes("node-a:node=node-a", "node-b:node=node-b", "node-c!:node=node-c"),
        [],
        POLICY_SCORE_PODS,
        None,
        [66, 100, 100],
    ),
    (
        "matchLabelKeys ANDed with an empty labelSelector",
        incoming(
            "foo,bar",
            sc(1, "zone", "ScheduleAnyway", selector={}, keys=["foo"]),
            sc(1, HOST, "ScheduleAnyway", selector={}, keys=["bar"]),
        ),
        nodes(
            *(
                f"node-{n}:zone={z},{HOST}=node-{n}"
                for n, z in (("a", "zone1"), ("b", "zone1"), ("c", "zone2"), ("d", "zone2"))
            )
        ),
        [],
        pods("p-a1@node-a:foo", "p-b1@node-b:foo,bar", "p-y1@node-c:foo", "p-y2@node-c:bar"),
        None,
        [60, 20, 60, 100],
    ),
    (
        "matchLabelKeys ANDed with a non-empty labelSelector",
        incoming(
            "foo,bar,baz",
            sc(1, "zone", "ScheduleAnyway"),
            sc(1, HOST, "ScheduleAnyway", selector=BAR, keys=["baz"]),
        ),
        nodes(
            *(
                f"node-{n}:zone={z},{HOST}=node-{n}"
                for n, z in (("a", "zone1"), ("b", "zone1"), ("c", "zone2"), ("d", "zone2"))
            )
        ),
        [],
        pods(
            "p-a1@node-a:foo",
            "p-b1@node-b:foo,bar,baz",
            "p-c1@node-c:foo",
            "p-c2@node-c:bar",
            "p-d3@node-c:bar,baz",
        ),
        None,
        [60, 20, 60, 100],
    ),
]


@pytest.mark.parametrize(
    ("name", "pod", "node_list", "failed", "pod_list", "owners", "want"), SCORES, ids=[c[0] for c in SCORES]
)
def test_scores(name, pod, node_list, failed, pod_list, owners, want):
    _, column = _score(pod, node_list, pod_list, failed, owners)
    assert column.normalized == want


PRESCORE_SKIP = [
    ("the pod has no soft constraints", incoming("foo", sc(1, "zone")), None, None),
    ("a bare pod gets no cluster-default constraints", incoming("foo"), None, None),
    (
        "an owner in another namespace does not select the pod",
        incoming("foo"),
        [{"namespace": "other", "selector": {"foo": ""}}],
        None,
    ),
    (
        "an owner whose selector does not match",
        incoming("foo"),
        [{"namespace": "default", "selector": {"matchExpressions": [{"key": "tar", "operator": "Exists"}]}}],
        None,
    ),
    (
        "an owner with an empty selector adds no requirement",
        incoming("foo"),
        [{"kind": "ReplicaSet", "namespace": "default", "selector": {}}],
        None,
    ),
    (
        "List defaulting without default constraints",
        incoming("foo"),
        FOO_SERVICE,
        {"defaultingType": "List"},
    ),
]


@pytest.mark.parametrize(("name", "pod", "owners", "args"), PRESCORE_SKIP, ids=[c[0] for c in PRESCORE_SKIP])
def test_prescore_skips(name, pod, owners, args):
    status = _score(pod, HOSTS4[:2], [], owners=owners, args=args)
    assert status.code is Code.SKIP
    assert "spec.topologySpreadConstraints" in status.why.en


def test_system_default_constraints_count_nodes_without_zone_as_one_more_domain():
    node_list = nodes(
        f"node-a:{HOST}=node-a,topology.kubernetes.io/zone=mars",
        f"node-b:{HOST}=node-b,topology.kubernetes.io/zone=mars",
        f"node-c:{HOST}=node-c",
        f"node-d:{HOST}=node-d",
    )
    owners = [{"kind": "ReplicaSet", "namespace": "default", "selector": FOO}]
    _, column = _score(incoming("foo=tar,baz=sup"), node_list, pods("p1@node-a:foo"), owners=owners)
    weights = [round(part[4], 6) for part in column.details[0][1]]
    assert weights == [1.791759, 1.386294]  # ln(4+2) for 4 hostnames; ln(2+2) for zones mars and ""
    # node-a: 1·ln6 + 2 + 1·ln4 + 4 = 9.18 → 9; node-b: 2 + 5.39 → 7; node-c/d: hostname only, 2.
    assert column.raw == [9, 7, 2, 2]
    assert column.normalized == [22, 44, 100, 100]


def test_list_default_constraints_apply_to_pods_their_workload_selects():
    args = {
        "defaultingType": "List",
        "defaultConstraints": [sc(1, "node", selector=None), sc(1, "node", "ScheduleAnyway", selector=None)],
    }
    owners = [{"kind": "Service", "namespace": "default", "selector": {"foo": "bar"}}]
    node_list = nodes("node-a:node=node-a", "node-b:node=node-b")
    snapshot = Snapshot.from_objects(node_list, pods("p1@node-a:foo=bar"))
    snapshot.workload_selectors = owners
    plugin, state, info = PodTopologySpread(args), CycleState(), PodInfo.of(incoming("foo=bar"))
    assert plugin.pre_filter(state, info, snapshot.nodes, snapshot) is None
    failures = plugin.filter(state, info, snapshot.nodes)
    assert list(failures) == ["node-a"]
    assert "PodTopologySpreadArgs.defaultConstraints[0]" in failures["node-a"].why.en


def test_workload_selectors_can_come_from_plugin_args():
    args = {"workloadSelectors": FOO_SERVICE}
    _, column = _score(incoming("foo"), HOSTS4, SPREAD_4321, args=args)
    assert column.normalized == [44, 66, 77, 100]


def test_raw_score_rounds_half_away_from_zero_as_go_math_round():
    assert [go_round(x) for x in (0.5, 1.5, 2.5, 2.4999999, 0.49999999999999994, 7.0)] == [1, 2, 3, 2, 0, 7]


def test_skew_failure_explains_counts_minimum_and_arithmetic():
    result = run_filter(
        PodTopologySpread(), incoming("foo", sc(1, "zone")), ZONES4, [*SPREAD_2103, *pods("p-y4@node-y:foo")]
    )
    why = result["node-x"].why
    assert why.en == (
        "spec.topologySpreadConstraints[0] (topologyKey zone, maxSkew 1, labelSelector foo): zone=zone2 "
        "already has 4 matching pod(s), the least-loaded domain zone=zone1 has 3; placing the pod here makes "
        "skew 4 + 1 − 3 = 2 > 1."
    )
    assert "zone=zone2 已有 4 个匹配的 Pod" in why.zh
    assert result["node-x"] is result["node-y"]  # one explanation per domain


def test_min_domains_failure_says_the_minimum_counts_as_zero():
    pod_list = pods(
        "p-a1@node-a:foo", "p-a2@node-a:foo", "p-b1@node-b:foo", "p-b2@node-b:foo", "p-c1@node-c:foo"
    )
    why = run_filter(PodTopologySpread(), incoming("foo", sc(2, "node", min_domains=4)), NODE3, pod_list)[
        "node-a"
    ].why
    assert "only 3 eligible domain(s) < minDomains 4" in why.en and "minDomains 4" in why.zh


def test_missing_label_names_the_constraint_field():
    status = run_filter(PodTopologySpread(), incoming("foo", sc(1, "rack")), nodes("node-a:zone=zone1"), [])[
        "node-a"
    ]
    assert status.message() == ERR_REASON_NODE_LABEL_NOT_MATCH
    assert "no label rack" in status.why.en and "spec.topologySpreadConstraints[0]" in status.why.zh


def test_invalid_selector_is_an_error_for_every_node():
    bad = sc(
        1, "zone", selector={"matchExpressions": [{"key": "foo", "operator": "In", "values": ["{{bad}}"]}]}
    )
    result = run_filter(PodTopologySpread(), incoming("foo", bad), ZONES4, [])
    assert {status.code for status in result.values()} == {Code.ERROR}
    assert (
        result["node-a"]
        .message()
        .startswith("obtaining pod's hard topology spread constraints: values[0][foo]")
    )


def test_score_explanation_shows_the_logarithmic_weight_and_normalization():
    pod_list = pods(
        "p-a1@node-a:foo",
        "p-a2@node-a:foo",
        "p-b1@node-b:foo",
        "p-d1@node-d:foo",
        "p-d2@node-d:foo",
        "p-d3@node-d:foo",
    )
    plugin, column = _score(incoming("foo", HOSTNAME_FOO), HOSTS4, pod_list)
    why = plugin.explain_score(column.details[0], column.raw[0], column.normalized[0], 2)
    assert column.raw == [4, 2, 0, 5]
    assert f"{HOST}=node-a: 2 matching pod(s) × ln(4+2)=1.792 + (maxSkew 1 − 1) = 3.584" in why.en
    assert "rounded 4" in why.en and "100·(5 + 0 − 4) // 5 = 20" in why.en
    assert "四舍五入为 4" in why.zh and "×2 = 40" in why.zh


def test_cycle_spreads_replicas_across_zones():
    profile = Profile.build([("PodTopologySpread", 2)])
    snapshot = Snapshot.from_objects(ZONES4, pods("p-a1@node-a:foo", "p-x1@node-x:foo", "p-y1@node-y:foo"))
    decision = schedule(incoming("foo", sc(1, "zone")), snapshot, profile)
    assert decision.feasible == ["node-a", "node-b"]
    assert decision.first_failure["node-x"].message() == ERR_REASON_CONSTRAINTS_NOT_MATCH
