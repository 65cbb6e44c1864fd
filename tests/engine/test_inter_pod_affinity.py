"""InterPodAffinity, ported from upstream interpodaffinity/{filtering,scoring}_test.go (v1.33)."""

from __future__ import annotations

import pytest

from scheduler.engine.cycle import schedule
from scheduler.engine.framework import Code, CycleState
from scheduler.engine.plugins.interpodaffinity.plugin import (
    ERR_REASON_AFFINITY,
    ERR_REASON_ANTI_AFFINITY,
    ERR_REASON_EXISTING_ANTI_AFFINITY,
    InterPodAffinity,
    _ScoreState,
)
from scheduler.engine.plugins.interpodaffinity.terms import CACHE_KEY
from scheduler.engine.podinfo import PodInfo
from scheduler.engine.profile import Profile
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import make_node, make_pod, run_filter, run_score

REQ = "requiredDuringSchedulingIgnoredDuringExecution"
PREF = "preferredDuringSchedulingIgnoredDuringExecution"
UU, UN = Code.UNRESOLVABLE, Code.UNSCHEDULABLE
AFF = (UU, ERR_REASON_AFFINITY)
ANTI = (UN, ERR_REASON_ANTI_AFFINITY)
EXIST = (UN, ERR_REASON_EXISTING_ANTI_AFFINITY)
SKIP = "skip"
_UNSET = object()


def term(key, op, values=(), topology="", namespaces=None, ns_selector=_UNSET):
    expr = {"key": key, "operator": op}
    if values:
        expr["values"] = list(values)
    t = {"labelSelector": {"matchExpressions": [expr]}, "topologyKey": topology}
    if namespaces is not None:
        t["namespaces"] = namespaces
    if ns_selector is not _UNSET:
        t["namespaceSelector"] = ns_selector
    return t


def pod(name="p", labels=None, node="", ns="default", aff=(), anti=(), pref=(), pref_anti=()):
    affinity: dict = {}
    if aff or pref:
        affinity["podAffinity"] = {
            REQ: list(aff),
            PREF: [{"weight": w, "podAffinityTerm": t} for w, t in pref],
        }
    if anti or pref_anti:
        affinity["podAntiAffinity"] = {
            REQ: list(anti),
            PREF: [{"weight": w, "podAffinityTerm": t} for w, t in pref_anti],
        }
    extra = {"affinity": affinity} if affinity else {}
    return make_pod(name, labels=labels, node_name=node, namespace=ns, **extra)


def node(name, **labels):
    return make_node(name, labels=labels)


def outcomes(result: dict) -> dict:
    """{node: None | (code, reason) | "skip"} for comparing with the upstream tables."""
    out = {}
    for name, status in result.items():
        if status is None:
            out[name] = None
        elif status.code is Code.SKIP:
            out[name] = SKIP
        else:
            out[name] = (status.code, status.message())
    return out


SEC = {"service": "securityscan"}
S2 = {"security": "S1"}
NODE1 = node("node1", region="r1", zone="z11")
EXISTING = pod("existing", labels=SEC, node="node1")
TEAMS = {
    "subteam1.team1": {"team": "team1"},
    "subteam2.team1": {"team": "team1"},
    "subteam1.team2": {"team": "team2"},
    "subteam2.team2": {"team": "team2"},
}
TEAM1 = {"matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]}

# TestRequiredAffinitySingleNode: (name, incoming pod, existing pods, expected outcome on node1)
SINGLE_NODE = [
    ("no required affinity rules: PreFilter skips", pod(), [], SKIP),
    (
        "affinity In operator matches the existing pod",
        pod(labels=S2, aff=[term("service", "In", ["securityscan", "value2"], "region")]),
        [EXISTING],
        None,
    ),
    (
        "affinity NotIn operator matches the existing pod",
        pod(labels=S2, aff=[term("service", "NotIn", ["securityscan3", "value3"], "region")]),
        [EXISTING],
        None,
    ),
    (
        "affinity does not match a pod in another namespace (and has no topologyKey)",
        pod(labels=S2, aff=[term("service", "In", ["securityscan", "value2"], namespaces=["DiffNameSpace"])]),
        [pod("existing", labels=SEC, node="node1", ns="ns")],
        AFF,
    ),
    (
        "affinity label selector does not match the existing pod",
        pod(labels=SEC, aff=[term("service", "In", ["antivirusscan", "value2"])]),
        [EXISTING],
        AFF,
    ),
    (
        "several required affinity terms with different operators are all satisfied",
        pod(
            labels=S2,
            aff=[
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "service", "operator": "Exists"},
                            {"key": "wrongkey", "operator": "DoesNotExist"},
                        ]
                    },
                    "topologyKey": "region",
                },
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "service", "operator": "In", "values": ["securityscan"]},
                            {"key": "service", "operator": "NotIn", "values": ["WrongValue"]},
                        ]
                    },
                    "topologyKey": "region",
                },
            ],
        ),
        [EXISTING],
        None,
    ),
    (
        "matchExpressions are ANDed: one failing expression fails the term",
        pod(
            labels=S2,
            aff=[
                term("service", "Exists", topology="region"),
                {
                    "labelSelector": {
                        "matchExpressions": [
                            {"key": "service", "operator": "In", "values": ["securityscan2"]},
                            {"key": "service", "operator": "NotIn", "values": ["WrongValue"]},
                        ]
                    },
                    "topologyKey": "region",
                },
            ],
        ),
        [EXISTING],
        AFF,
    ),
    (
        "satisfies affinity and anti-affinity with the existing pod",
        pod(
            labels=S2,
            aff=[term("service", "In", ["securityscan", "value2"], "region")],
            anti=[term("service", "In", ["antivirusscan", "value2"], "node")],
        ),
        [EXISTING],
        None,
    ),
    (
        "satisfies affinity, anti-affinity and the existing pod's anti-affinity",
        pod(
            labels=S2,
            aff=[term("service", "In", ["securityscan", "value2"], "region")],
            anti=[term("service", "In", ["antivirusscan", "value2"], "node")],
        ),
        [
            pod(
                "existing",
                labels=SEC,
                node="node1",
                anti=[term("service", "In", ["antivirusscan", "value2"], "node")],
            )
        ],
        None,
    ),
    (
        "satisfies affinity but not anti-affinity",
        pod(
            labels=S2,
            aff=[term("service", "In", ["securityscan", "value2"], "region")],
            anti=[term("service", "In", ["securityscan", "value2"], "zone")],
        ),
        [EXISTING],
        ANTI,
    ),
    (
        "satisfies its own rules but not the existing pod's anti-affinity (symmetry)",
        pod(
            labels=SEC,
            aff=[term("service", "In", ["securityscan", "value2"], "region")],
            anti=[term("service", "In", ["antivirusscan", "value2"], "node")],
        ),
        [
            pod(
                "existing",
                labels=SEC,
                node="node1",
                anti=[term("service", "In", ["securityscan", "value2"], "zone")],
            )
        ],
        EXIST,
    ),
    (
        "pod matches its own NotIn affinity, but a matching pod exists elsewhere",
        pod(labels=SEC, aff=[term("service", "NotIn", ["securityscan", "value2"], "region")]),
        [pod("other", labels={"service": "securityscan"}, node="node2")],
        AFF,
    ),
    (
        "existing pod's anti-affinity is respected when the pod has none",
        pod(labels=SEC),
        [
            pod(
                "existing",
                labels=SEC,
                node="node1",
                anti=[term("service", "In", ["securityscan", "value2"], "zone")],
            )
        ],
        EXIST,
    ),
    (
        "existing pod's anti-affinity that does not match the pod: PreFilter skips",
        pod(labels=SEC),
        [
            pod(
                "existing",
                labels=SEC,
                node="node1",
                anti=[term("service", "NotIn", ["securityscan", "value2"], "zone")],
            )
        ],
        SKIP,
    ),
    (
        "satisfies anti-affinity of the existing pod but not its own",
        pod(
            labels=SEC,
            anti=[
                term("service", "Exists", topology="region"),
                term("security", "Exists", topology="region"),
            ],
        ),
        [pod("existing", labels=S2, node="node1", anti=[term("security", "Exists", topology="zone")])],
        ANTI,
    ),
    (
        "symmetry a1: partial match of each other's terms",
        pod(
            labels=SEC,
            anti=[term("service", "Exists", topology="zone"), term("security", "Exists", topology="zone")],
        ),
        [pod("existing", labels=S2, node="node1", anti=[term("security", "Exists", topology="zone")])],
        ANTI,
    ),
    (
        "symmetry a2: partial match of each other's terms",
        pod(labels=S2, anti=[term("security", "Exists", topology="zone")]),
        [
            pod(
                "existing",
                labels=SEC,
                node="node1",
                anti=[
                    term("service", "Exists", topology="zone"),
                    term("security", "Exists", topology="zone"),
                ],
            )
        ],
        EXIST,
    ),
    (
        "symmetry b1",
        pod(
            labels={"abc": "", "xyz": ""},
            anti=[term("abc", "Exists", topology="zone"), term("def", "Exists", topology="zone")],
        ),
        [
            pod(
                "existing",
                labels={"def": "", "xyz": ""},
                node="node1",
                anti=[term("abc", "Exists", topology="zone"), term("def", "Exists", topology="zone")],
            )
        ],
        ANTI,
    ),
    (
        "symmetry b2",
        pod(
            labels={"def": "", "xyz": ""},
            anti=[term("abc", "Exists", topology="zone"), term("def", "Exists", topology="zone")],
        ),
        [
            pod(
                "existing",
                labels={"abc": "", "xyz": ""},
                node="node1",
                anti=[term("abc", "Exists", topology="zone"), term("def", "Exists", topology="zone")],
            )
        ],
        ANTI,
    ),
    (
        "affinity with a matching namespaceSelector",
        pod(labels=S2, aff=[term("service", "In", ["securityscan", "value2"], "region", ns_selector=TEAM1)]),
        [pod("existing", labels=SEC, node="node1", ns="subteam1.team1")],
        None,
    ),
    (
        "affinity with a non-matching namespaceSelector",
        pod(labels=S2, aff=[term("service", "In", ["securityscan", "value2"], "region", ns_selector=TEAM1)]),
        [pod("existing", labels=SEC, node="node1", ns="subteam1.team2")],
        AFF,
    ),
    (
        "anti-affinity with a matching namespaceSelector",
        pod(
            ns="subteam1.team1",
            labels=S2,
            anti=[term("service", "In", ["securityscan", "value2"], "zone", ns_selector=TEAM1)],
        ),
        [pod("existing", labels=SEC, node="node1", ns="subteam2.team1")],
        ANTI,
    ),
    (
        "anti-affinity with namespaceSelector {} matches every namespace",
        pod(
            ns="subteam1.team1",
            labels=S2,
            anti=[term("service", "In", ["securityscan", "value2"], "zone", ns_selector={})],
        ),
        [pod("existing", labels=SEC, node="node1", ns="subteam2.team1")],
        ANTI,
    ),
    (
        "anti-affinity with a non-matching namespaceSelector",
        pod(
            ns="subteam1.team1",
            labels=S2,
            anti=[term("service", "In", ["securityscan", "value2"], "zone", ns_selector=TEAM1)],
        ),
        [pod("existing", labels=SEC, node="node1", ns="subteam1.team2")],
        None,
    ),
]


def _filter(incoming, nodes, pods, namespace_labels=None):
    snapshot = Snapshot.from_objects(nodes, pods)
    snapshot.namespace_labels = namespace_labels or {}
    plugin, state, info = InterPodAffinity(), CycleState(), PodInfo.of(incoming)
    outcome = plugin.pre_filter(state, info, snapshot.nodes, snapshot)
    if outcome is not None:
        return {n.name: outcome for n in snapshot.nodes}
    failures = plugin.filter(state, info, snapshot.nodes)
    return {n.name: failures.get(n.name) for n in snapshot.nodes}


@pytest.mark.parametrize(("name", "incoming", "pods", "want"), SINGLE_NODE, ids=[c[0] for c in SINGLE_NODE])
def test_required_affinity_single_node(name, incoming, pods, want):
    assert outcomes(_filter(incoming, [NODE1], pods, TEAMS)) == {"node1": want}


CHINA, CHINA_AZ1, INDIA = {"region": "China"}, {"region": "China", "az": "az1"}, {"region": "India"}
R1Z1 = {"region": "r1", "zone": "z1"}
R1Z2 = {"region": "r1", "zone": "z2"}

# TestRequiredAffinityMultipleNodes: (name, incoming, existing pods, nodes, expected per node)
MULTI_NODE = [
    (
        "nodes sharing the topology value of a matching pod all fit",
        pod(aff=[term("foo", "In", ["bar"], "region")]),
        [pod("p1", labels={"foo": "bar"}, node="node1")],
        [node("node1", **CHINA), node("node2", **CHINA_AZ1), node("node3", **INDIA)],
        [None, None, AFF],
    ),
    (
        "the first pod of a group that matches its own terms fits anywhere",
        pod(
            labels={"foo": "bar", "service": "securityscan"},
            aff=[term("foo", "In", ["bar"], "zone"), term("service", "In", ["securityscan"], "zone")],
        ),
        [pod("p1", labels={"foo": "bar"}, node="nodeA")],
        [node("nodeA", zone="az1", hostname="h1"), node("nodeB", zone="az2", hostname="h2")],
        [None, None],
    ),
    (
        "the first pod of a group still needs the topology keys on the node",
        pod(
            labels={"foo": "bar", "service": "securityscan"},
            aff=[term("foo", "In", ["bar"], "zone"), term("service", "In", ["securityscan"], "zone")],
        ),
        [pod("p1", labels={"foo": "bar"}, node="nodeA")],
        [node("nodeA", zoneLabel="az1", hostname="h1"), node("nodeB", zoneLabel="az2", hostname="h2")],
        [AFF, AFF],
    ),
    (
        "anti-affinity excludes every node of the matching pod's region",
        pod(anti=[term("foo", "In", ["abc"], "region")]),
        [pod("p1", labels={"foo": "abc"}, node="nodeA")],
        [node("nodeA", region="r1", hostname="nodeA"), node("nodeB", region="r1", hostname="nodeB")],
        [ANTI, ANTI],
    ),
    (
        "anti-affinity matches when any term matches",
        pod(anti=[term("foo", "In", ["abc"], "region"), term("service", "In", ["securityscan"], "zone")]),
        [pod("p1", labels={"foo": "abc", "service": "securityscan"}, node="nodeA")],
        [
            node("nodeA", region="r1", zone="z1", hostname="nodeA"),
            node("nodeB", region="r1", zone="z2", hostname="nodeB"),
        ],
        [ANTI, ANTI],
    ),
    (
        "anti-affinity spares the other region",
        pod(anti=[term("foo", "In", ["abc"], "region")]),
        [pod("p1", labels={"foo": "abc"}, node="nodeA")],
        [node("nodeA", **CHINA), node("nodeB", **CHINA_AZ1), node("nodeC", **INDIA)],
        [ANTI, ANTI, None],
    ),
    (
        "an existing pod's anti-affinity in another namespace does not apply",
        pod(ns="NS1", labels={"foo": "123"}, anti=[term("foo", "In", ["bar"], "region")]),
        [
            pod("p1", ns="NS1", labels={"foo": "bar"}, node="nodeA"),
            pod("p2", ns="NS2", node="nodeC", anti=[term("foo", "In", ["123"], "region")]),
        ],
        [node("nodeA", **CHINA), node("nodeB", **CHINA_AZ1), node("nodeC", **INDIA)],
        [ANTI, ANTI, None],
    ),
    (
        "existing anti-affinity with a topologyKey no node has: PreFilter skips",
        pod(labels={"foo": ""}),
        [pod("p1", node="nodeA", anti=[term("foo", "Exists", topology="invalid-node-label")])],
        [
            node("nodeA", region="r1", zone="z1", hostname="nodeA"),
            node("nodeB", region="r1", zone="z1", hostname="nodeB"),
        ],
        [SKIP, SKIP],
    ),
    (
        "incoming anti-affinity whose topologyKey no node has passes",
        pod(node="", anti=[term("foo", "Exists", topology="invalid-node-label")]),
        [pod("p1", labels={"foo": ""}, node="nodeA")],
        [
            node("nodeA", region="r1", zone="z1", hostname="nodeA"),
            node("nodeB", region="r1", zone="z1", hostname="nodeB"),
        ],
        [None, None],
    ),
    (
        "the pod violates each existing pod's terms on all nodes",
        pod(labels={"foo": "", "bar": ""}),
        [
            pod("p1", node="nodeA", anti=[term("foo", "Exists", topology="zone")]),
            pod("p2", node="nodeA", anti=[term("bar", "Exists", topology="region")]),
        ],
        [node("nodeA", **R1Z1, hostname="nodeA"), node("nodeB", **R1Z2, hostname="nodeB")],
        [EXIST, EXIST],
    ),
    (
        "the pod's anti-affinity terms each exclude a node",
        pod(anti=[term("foo", "Exists", topology="zone"), term("bar", "Exists", topology="region")]),
        [pod("p1", labels={"foo": ""}, node="nodeA"), pod("p2", labels={"bar": ""}, node="nodeB")],
        [node("nodeA", **R1Z1, hostname="nodeA"), node("nodeB", **R1Z2, hostname="nodeB")],
        [ANTI, ANTI],
    ),
    (
        "existing anti-affinity: a term with an unknown topologyKey counts for nothing",
        pod(labels={"foo": "", "bar": ""}),
        [
            pod(
                "p1",
                node="nodeA",
                anti=[
                    term("foo", "Exists", topology="invalid-node-label"),
                    term("bar", "Exists", topology="zone"),
                ],
            )
        ],
        [node("nodeA", **R1Z1, hostname="nodeA"), node("nodeB", **R1Z2, hostname="nodeB")],
        [EXIST, None],
    ),
    (
        "incoming anti-affinity: a term with an unknown topologyKey counts for nothing",
        pod(
            anti=[
                term("foo", "Exists", topology="invalid-node-label"),
                term("bar", "Exists", topology="zone"),
            ]
        ),
        [pod("podA", labels={"foo": "", "bar": ""}, node="nodeA")],
        [node("nodeA", **R1Z1, hostname="nodeA"), node("nodeB", **R1Z2, hostname="nodeB")],
        [ANTI, None],
    ),
    (
        "existing anti-affinity: all terms with valid topologyKeys",
        pod(labels={"foo": "", "bar": ""}),
        [
            pod(
                "p1",
                node="nodeA",
                anti=[term("foo", "Exists", topology="region"), term("bar", "Exists", topology="zone")],
            )
        ],
        [node("nodeA", **R1Z1, hostname="nodeA"), node("nodeB", **R1Z2, hostname="nodeB")],
        [EXIST, EXIST],
    ),
    (
        "incoming anti-affinity: all terms with valid topologyKeys",
        pod(anti=[term("foo", "Exists", topology="region"), term("bar", "Exists", topology="zone")]),
        [pod("p1", labels={"foo": "", "bar": ""}, node="nodeA")],
        [node("nodeA", **R1Z1, hostname="nodeA"), node("nodeB", **R1Z2, hostname="nodeB")],
        [ANTI, ANTI],
    ),
    (
        "existing pods on nodeA and nodeB each have a matching term: only nodeC fits",
        pod(labels={"foo": "", "bar": ""}),
        [
            pod(
                "p1",
                node="nodeA",
                anti=[term("foo", "Exists", topology="zone"), term("labelA", "Exists", topology="zone")],
            ),
            pod(
                "p2",
                node="nodeB",
                anti=[term("bar", "Exists", topology="zone"), term("labelB", "Exists", topology="zone")],
            ),
        ],
        [
            node("nodeA", **R1Z1, hostname="nodeA"),
            node("nodeB", **R1Z2, hostname="nodeB"),
            node("nodeC", region="r1", zone="z3", hostname="nodeC"),
        ],
        [EXIST, EXIST, None],
    ),
    (
        "affinity: all terms matched by one pod, topology keys shared",
        pod(aff=[term("foo", "Exists", topology="region"), term("bar", "Exists", topology="zone")]),
        [pod("pod1", labels={"foo": "", "bar": ""}, node="nodeA")],
        [node("nodeA", **R1Z1, hostname="nodeA"), node("nodeB", region="r1", zone="z1", hostname="nodeB")],
        [None, None],
    ),
    (
        "affinity: the terms must be matched by the same pod",
        pod(aff=[term("foo", "Exists", topology="region"), term("bar", "Exists", topology="zone")]),
        [pod("pod1", labels={"foo": ""}, node="nodeA"), pod("pod2", labels={"bar": ""}, node="nodeB")],
        [node("nodeA", **R1Z1, hostname="nodeA"), node("nodeB", **R1Z2, hostname="nodeB")],
        [AFF, AFF],
    ),
]


@pytest.mark.parametrize(
    ("name", "incoming", "pods", "nodes", "want"), MULTI_NODE, ids=[c[0] for c in MULTI_NODE]
)
def test_required_affinity_multiple_nodes(name, incoming, pods, nodes, want):
    got = outcomes(_filter(incoming, nodes, pods))
    assert got == {n["metadata"]["name"]: w for n, w in zip(nodes, want, strict=True)}


def test_invalid_required_affinity_fails_prefilter_with_apimachinery_text():
    bad = pod(
        labels=SEC,
        aff=[
            term("service", "In", ["{{.bad-value.}}"], "region"),
            term("service", "In", ["antivirusscan"], "node"),
        ],
    )
    status = run_filter(InterPodAffinity(), bad, [NODE1])["node1"]
    assert status.code is UU
    assert status.message() == (
        'parsing pod: requiredAffinityTerms: values[0][service]: Invalid value: "{{.bad-value.}}": '
        "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
        "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
        "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
    )
    assert "spec.affinity" in status.why.en and "spec.affinity" in status.why.zh


# TestGetTPMapMatchingIncomingAffinityAntiAffinity: counts per topology pair
A, B, AB = {"aaa": ""}, {"bbb": ""}, {"aaa": "", "bbb": ""}
COUNTS = [
    (
        "no pod has a violating label",
        [B],
        [term("aaa", "Exists", topology="hostname")],
        [term("aaa", "Exists", topology="hostname")],
        {},
        {},
    ),
    (
        "single term",
        [A],
        [term("aaa", "Exists", topology="hostname")],
        [term("aaa", "Exists", topology="hostname")],
        {("hostname", "nodeA"): 1},
        {("hostname", "nodeA"): 1},
    ),
    (
        "multiple affinity terms count once per term",
        [AB],
        [term("aaa", "Exists", topology="hostname"), term("bbb", "Exists", topology="hostname")],
        [term("aaa", "Exists", topology="hostname")],
        {("hostname", "nodeA"): 2},
        {("hostname", "nodeA"): 1},
    ),
    (
        "affinity needs every term, anti-affinity any",
        [A],
        [term("aaa", "Exists", topology="hostname"), term("bbb", "Exists", topology="hostname")],
        [term("aaa", "Exists", topology="hostname"), term("bbb", "Exists", topology="hostname")],
        {},
        {("hostname", "nodeA"): 1},
    ),
    (
        "partial anti-affinity match, case 1",
        [AB],
        [term("aaa", "Exists", topology="hostname"), term("ccc", "Exists", topology="hostname")],
        [term("aaa", "Exists", topology="hostname"), term("ccc", "Exists", topology="hostname")],
        {},
        {("hostname", "nodeA"): 1},
    ),
    (
        "partial anti-affinity match, case 2",
        [B],
        [term("aaa", "Exists", topology="hostname"), term("bbb", "Exists", topology="hostname")],
        [term("aaa", "Exists", topology="hostname"), term("bbb", "Exists", topology="hostname")],
        {},
        {("hostname", "nodeA"): 1},
    ),
]


@pytest.mark.parametrize(
    ("name", "labels", "aff", "anti", "want_aff", "want_anti"), COUNTS, ids=[c[0] for c in COUNTS]
)
def test_incoming_pod_counts_matching_pods_per_topology_pair(name, labels, aff, anti, want_aff, want_anti):
    existing = [pod(f"normal-{i}", labels=lab, node="nodeA") for i, lab in enumerate(labels)]
    snapshot = Snapshot.from_objects([node("nodeA", hostname="nodeA")], existing)
    state = CycleState()
    InterPodAffinity().pre_filter(state, PodInfo.of(pod(aff=aff, anti=anti)), snapshot.nodes, snapshot)
    s = state["PreFilterInterPodAffinity"]
    assert s.affinity_counts == want_aff
    assert s.anti_counts == want_anti


# -- Score: TestPreferredAffinity --------------------------------------------------------------
def sec(value):
    return {"security": value}


STAY_S1_REGION = {"pref": [(5, term("security", "In", ["S1"], "region"))]}
STAY_S2_REGION = {"pref": [(6, term("security", "In", ["S2"], "region"))]}
AFFINITY3 = {
    "pref": [
        (
            8,
            {
                "labelSelector": {
                    "matchExpressions": [
                        {"key": "security", "operator": "NotIn", "values": ["S1"]},
                        {"key": "security", "operator": "In", "values": ["S2"]},
                    ]
                },
                "topologyKey": "region",
            },
        ),
        (
            2,
            {
                "labelSelector": {
                    "matchExpressions": [
                        {"key": "security", "operator": "Exists"},
                        {"key": "wrongkey", "operator": "DoesNotExist"},
                    ]
                },
                "topologyKey": "region",
            },
        ),
    ]
}
HARD = {
    "aff": [
        term("security", "In", ["S1", "value2"], "region"),
        {
            "labelSelector": {
                "matchExpressions": [
                    {"key": "security", "operator": "Exists"},
                    {"key": "wrongkey", "operator": "DoesNotExist"},
                ]
            },
            "topologyKey": "region",
        },
    ]
}
AWAY_S1_AZ = {"pref_anti": [(5, term("security", "In", ["S1"], "az"))]}
AWAY_S2_AZ = {"pref_anti": [(5, term("security", "In", ["S2"], "az"))]}
STAY_S1_AWAY_S2 = {
    "pref": [(8, term("security", "In", ["S1"], "region"))],
    "pref_anti": [(5, term("security", "In", ["S2"], "az"))],
}
NS_SELECTED = {
    "pref": [(5, term("security", "In", ["S1"], "region", namespaces=["subteam2.team2"], ns_selector=TEAM1))]
}
ANTI_NS_SELECTED = {
    "pref_anti": [
        (5, term("security", "In", ["S1"], "region", namespaces=["subteam2.team2"], ns_selector=TEAM1))
    ]
}
RG_CHINA, RG_INDIA, AZ1, AZ2 = {"region": "China"}, {"region": "India"}, {"az": "az1"}, {"az": "az2"}
RG_CHINA_AZ1 = {"region": "China", "az": "az1"}


def nodes_of(*label_sets):
    return [node(f"node{i}", **labels) for i, labels in enumerate(label_sets, start=1)]


PREFERRED = [
    (
        "no affinity anywhere: PreScore skips",
        pod(labels=sec("S1")),
        [],
        nodes_of(RG_CHINA, RG_INDIA, AZ1),
        None,
    ),
    (
        "a matching pod in the topology gives the high score",
        pod(labels=sec("S1"), **STAY_S1_REGION),
        [pod("a", sec("S1"), "node1"), pod("b", sec("S2"), "node2"), pod("c", sec("S1"), "node3")],
        nodes_of(RG_CHINA, RG_INDIA, AZ1),
        [100, 0, 0],
    ),
    (
        "nodes sharing the topology value share the score",
        pod(**STAY_S1_REGION),
        [pod("a", sec("S1"), "node1")],
        nodes_of(RG_CHINA, RG_CHINA_AZ1, RG_INDIA),
        [100, 100, 0],
    ),
    (
        "the region with more matching pods scores higher",
        pod(labels=sec("S1"), **STAY_S2_REGION),
        [
            pod(f"p{i}", sec("S2"), n)
            for i, n in enumerate(["node1", "node1", "node2", "node3", "node4", "node5"])
        ],
        nodes_of(RG_CHINA, RG_INDIA, RG_CHINA, RG_CHINA, RG_INDIA),
        [100, 0, 100, 100, 0],
    ),
    (
        "different operators and values, including some match failures",
        pod(labels=sec("S1"), **AFFINITY3),
        [pod("a", sec("S1"), "node1"), pod("b", sec("S2"), "node2"), pod("c", sec("S1"), "node3")],
        nodes_of(RG_CHINA, RG_INDIA, AZ1),
        [20, 100, 0],
    ),
    (
        "symmetry: existing pods' preferred affinity",
        pod(labels=sec("S2")),
        [pod("a", sec("S1"), "node1", **STAY_S1_REGION), pod("b", sec("S2"), "node2", **STAY_S2_REGION)],
        nodes_of(RG_CHINA, RG_INDIA, AZ1),
        [0, 100, 0],
    ),
    (
        "symmetry with a namespaceSelector",
        pod(labels=sec("S1"), ns="subteam1.team1"),
        [pod("a", sec("S1"), "node1", **NS_SELECTED), pod("b", sec("S2"), "node2", **STAY_S2_REGION)],
        nodes_of(RG_CHINA, RG_INDIA, AZ1),
        [100, 0, 0],
    ),
    (
        "anti-affinity symmetry with a namespaceSelector",
        pod(labels=sec("S1"), ns="subteam1.team1"),
        [pod("a", sec("S1"), "node1", **ANTI_NS_SELECTED), pod("b", sec("S2"), "node2", **STAY_S2_REGION)],
        nodes_of(RG_CHINA, RG_INDIA, AZ1),
        [0, 100, 100],
    ),
    (
        "symmetry: existing pods' required affinity weighs hardPodAffinityWeight",
        pod(labels=sec("S1")),
        [pod("a", sec("S1"), "node1", **HARD), pod("b", sec("S2"), "node2", **HARD)],
        nodes_of(RG_CHINA, RG_INDIA, AZ1),
        [100, 100, 0],
    ),
    (
        "anti-affinity: a node with a matching pod scores low",
        pod(labels=sec("S1"), **AWAY_S1_AZ),
        [pod("a", sec("S1"), "node1"), pod("b", sec("S2"), "node2")],
        nodes_of(AZ1, RG_CHINA),
        [0, 100],
    ),
    (
        "anti-affinity: a node without the topology key scores high",
        pod(labels=sec("S1"), **AWAY_S1_AZ),
        [pod("a", sec("S1"), "node1"), pod("b", sec("S1"), "node2")],
        nodes_of(AZ1, RG_CHINA),
        [0, 100],
    ),
    (
        "anti-affinity: more matching pods, lower score",
        pod(labels=sec("S1"), **AWAY_S1_AZ),
        [pod("a", sec("S1"), "node1"), pod("b", sec("S1"), "node1"), pod("c", sec("S2"), "node2")],
        nodes_of(AZ1, RG_INDIA),
        [0, 100],
    ),
    (
        "anti-affinity symmetry",
        pod(labels=sec("S2")),
        [pod("a", sec("S1"), "node1", **AWAY_S2_AZ), pod("b", sec("S2"), "node2", **AWAY_S1_AZ)],
        nodes_of(AZ1, AZ2),
        [0, 100],
    ),
    (
        "preferred affinity and anti-affinity together",
        pod(labels=sec("S1"), **STAY_S1_AWAY_S2),
        [pod("a", sec("S1"), "node1"), pod("b", sec("S1"), "node2")],
        nodes_of(RG_CHINA, AZ1),
        [100, 0],
    ),
    (
        "same labels: together in the region, apart per node",
        pod(labels=sec("S1"), **STAY_S1_AWAY_S2),
        [
            pod(f"p{i}", sec("S1"), n)
            for i, n in enumerate(["node1", "node1", "node2", "node3", "node3", "node4", "node5"])
        ],
        nodes_of(RG_CHINA_AZ1, RG_INDIA, RG_CHINA, RG_CHINA, RG_INDIA),
        [100, 0, 100, 100, 0],
    ),
    (
        "affinity, anti-affinity and both symmetries",
        pod(labels=sec("S1"), **STAY_S1_AWAY_S2),
        [
            pod("a", sec("S1"), "node1"),
            pod("b", sec("S2"), "node2"),
            pod("c", None, "node3", **STAY_S1_AWAY_S2),
            pod("d", None, "node4", **AWAY_S1_AZ),
        ],
        nodes_of(RG_CHINA, AZ1, RG_INDIA, AZ2),
        [100, 0, 100, 0],
    ),
    (
        "partial nodes of a topology without pods with affinity (issue 82796)",
        pod(labels=sec("S1")),
        [pod("a", sec("S1"), "node1"), pod("b", None, "node2", **STAY_S1_AWAY_S2)],
        nodes_of(RG_CHINA, RG_CHINA),
        [0, 0],
    ),
    (
        "affinity with pods matching the namespaceSelector",
        pod(labels=sec("S1"), ns="subteam1.team1", **NS_SELECTED),
        [
            pod("a", sec("S1"), "node1", ns="subteam1.team1"),
            pod("b", sec("S1"), "node1", ns="subteam1.team1"),
            pod("c", sec("S1"), "node1", ns="subteam1.team2"),
            pod("d", sec("S1"), "node2", ns="subteam2.team1"),
        ],
        nodes_of(RG_CHINA, RG_INDIA),
        [100, 0],
    ),
    (
        "affinity with pods matching namespaceSelector and namespaces",
        pod(labels=sec("S1"), ns="subteam1.team1", **NS_SELECTED),
        [
            pod("a", sec("S1"), "node1", ns="subteam1.team1"),
            pod("b", sec("S1"), "node1", ns="subteam1.team1"),
            pod("c", sec("S1"), "node1", ns="subteam2.team2"),
            pod("d", sec("S1"), "node2", ns="subteam2.team1"),
        ],
        nodes_of(RG_CHINA, RG_INDIA),
        [100, 0],
    ),
    (
        "anti-affinity with pods matching the namespaceSelector",
        pod(labels=sec("S1"), ns="subteam1.team1", **ANTI_NS_SELECTED),
        [
            pod("a", sec("S1"), "node1", ns="subteam1.team1"),
            pod("b", sec("S1"), "node1", ns="subteam1.team1"),
            pod("c", sec("S1"), "node1", ns="subteam1.team2"),
            pod("d", sec("S1"), "node2", ns="subteam2.team1"),
        ],
        nodes_of(RG_CHINA, RG_INDIA),
        [0, 100],
    ),
    (
        "existing preferred terms count unless ignored",
        pod(labels=sec("S2")),
        [pod("a", sec("S1"), "node1", **STAY_S1_AWAY_S2), pod("b", sec("S2"), "node2", **STAY_S2_REGION)],
        nodes_of(RG_CHINA, RG_INDIA),
        [0, 100],
    ),
]


def _score(incoming, nodes, pods, args=None, namespace_labels=TEAMS):
    snapshot = Snapshot.from_objects(nodes, pods)
    snapshot.namespace_labels = namespace_labels
    plugin, state, info = InterPodAffinity(args), CycleState(), PodInfo.of(incoming)
    status = plugin.pre_score(state, info, snapshot.nodes, snapshot)
    if status is not None:
        return status
    column = plugin.score(state, info, snapshot.nodes)
    column.normalized = plugin.normalize_score(state, info, list(column.raw))
    return plugin, column


@pytest.mark.parametrize(
    ("name", "incoming", "pods", "nodes", "want"), PREFERRED, ids=[c[0] for c in PREFERRED]
)
def test_preferred_affinity_scores(name, incoming, pods, nodes, want):
    result = _score(incoming, nodes, pods)
    if want is None:
        assert result.code is Code.SKIP
    else:
        assert result[1].normalized == want


def test_ignoring_existing_pods_preferred_terms_skips_a_pod_without_preferences():
    existing = [
        pod("a", sec("S1"), "node1", **STAY_S1_AWAY_S2),
        pod("b", sec("S2"), "node2", **STAY_S2_REGION),
    ]
    result = _score(
        pod(labels=sec("S2")),
        nodes_of(RG_CHINA, RG_INDIA),
        existing,
        {"ignorePreferredTermsOfExistingPods": True},
    )
    assert result.code is Code.SKIP


def test_no_nodes_to_score_skips():
    assert _score(pod(labels=sec("S2")), [], []).code is Code.SKIP


def test_invalid_preferred_affinity_fails_prescore_with_error():
    bad = pod(pref=[(8, term("security", "In", ["{{.bad-value.}}"], "region"))])
    status = _score(bad, nodes_of(RG_CHINA, RG_CHINA), [])
    assert status.code is Code.ERROR
    assert 'Invalid value: "{{.bad-value.}}"' in status.message()


HARD_NS = {
    "aff": [
        term(
            "service",
            "In",
            ["S1"],
            "region",
            namespaces=["default", "subteam2.team2"],
            ns_selector=TEAM1,
        )
    ]
}
HARD_WEIGHT = [
    ("with the default weight", "default", 1, [100, 100, 0]),
    ("with zero weight", "default", 0, None),
    ("with no matching namespace", "subteam1.team2", 1, None),
    ("with a matching namespaceSelector", "subteam1.team1", 1, [100, 100, 0]),
    ("with matching namespaces", "subteam2.team2", 1, [100, 100, 0]),
]


@pytest.mark.parametrize(("name", "ns", "weight", "want"), HARD_WEIGHT, ids=[c[0] for c in HARD_WEIGHT])
def test_preferred_affinity_with_hard_pod_affinity_symmetric_weight(name, ns, weight, want):
    existing = [pod("a", None, "node1", **HARD_NS), pod("b", None, "node2", **HARD_NS)]
    incoming = pod(labels={"service": "S1"}, ns=ns)
    result = _score(incoming, nodes_of(RG_CHINA, RG_INDIA, AZ1), existing, {"hardPodAffinityWeight": weight})
    if want is None:
        assert result.code is Code.SKIP
    else:
        assert result[1].normalized == want


def test_hard_pod_affinity_weight_outside_0_to_100_is_rejected():
    with pytest.raises(ValueError, match="hardPodAffinityWeight"):
        InterPodAffinity({"hardPodAffinityWeight": 101})


def test_normalization_uses_true_min_and_max_with_float_truncation():
    # Raw scores -5, 24, 95: min −5, max 95. (24 − (−5))/100 = 0.29, ·100 = 28.999999999999996 → 28,
    # where integer arithmetic 100·29//100 would give 29.
    plugin, state = InterPodAffinity(), CycleState()
    state["PreScoreInterPodAffinity"] = _ScoreState({"zone": {"a": 1}}, {})
    assert plugin.normalize_score(state, PodInfo.of(pod()), [-5, 24, 95]) == [0, 28, 100]


def test_score_explanation_shows_domains_and_normalization():
    incoming = pod(labels=sec("S1"), **STAY_S1_AWAY_S2)
    existing = [pod("web-1", sec("S1"), "node1"), pod("db-1", sec("S2"), "node2")]
    plugin, column = _score(incoming, nodes_of(RG_CHINA, RG_CHINA_AZ1), existing, namespace_labels={})
    assert column.raw == [8, 3]  # node2 also sits in az=az1 with db-1: 8 − 5
    assert column.normalized == [100, 0]
    why = plugin.explain_score(column.details[0], column.raw[0], column.normalized[0], 2)
    assert "region=China: +8 (+8: pod web-1 matches" in why.en
    assert "region=China：+8（+8：Pod web-1 匹配" in why.zh
    assert "×2" in why.en and "×2" in why.zh


def test_filter_failures_name_the_field_and_the_offending_pod():
    incoming = pod(labels=SEC, anti=[term("service", "In", ["securityscan"], "kubernetes.io/hostname")])
    nodes = [
        node("node1", **{"kubernetes.io/hostname": "node1"}),
        node("node2", **{"kubernetes.io/hostname": "node2"}),
    ]
    result = run_filter(InterPodAffinity(), incoming, nodes, [pod("web-1", SEC, "node2")])
    status = result["node2"]
    assert result["node1"] is None
    assert status.message() == ERR_REASON_ANTI_AFFINITY
    assert "Pod web-1 on node2" in status.why.en
    assert "spec.affinity.podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]" in status.why.en
    assert "web-1" in status.why.zh and "kubernetes.io/hostname=node2" in status.why.zh


def test_existing_anti_affinity_failure_names_the_existing_pod_and_domain():
    existing = pod("db-0", {"app": "db"}, "node1", anti=[term("app", "In", ["web"], "zone")])
    nodes = [node("node1", zone="a"), node("node5", zone="a"), node("node6", zone="b")]
    result = run_filter(InterPodAffinity(), pod(labels={"app": "web"}), nodes, [existing])
    assert result["node6"] is None
    status = result["node5"]
    assert status.message() == ERR_REASON_EXISTING_ANTI_AFFINITY
    assert "Pod db-0 on node1" in status.why.en and "zone=a" in status.why.en
    assert result["node1"] is status  # nodes of one domain share one explanation


def test_missing_topology_label_names_the_term():
    incoming = pod(aff=[term("app", "In", ["db"], "rack")])
    result = run_filter(
        InterPodAffinity(), incoming, [node("n1", zone="a")], [pod("db", {"app": "db"}, "n1")]
    )
    assert "no label rack" in result["n1"].why.en
    assert "rack" in result["n1"].why.zh


def test_existing_pods_terms_are_parsed_once_and_cached_on_the_pod_info():
    snapshot = Snapshot.from_objects(
        [node("node1", zone="a")],
        [pod("db-0", {"app": "db"}, "node1", anti=[term("app", "In", ["web"], "zone")])],
    )
    plugin = InterPodAffinity()
    existing = snapshot.nodes[0].pods[0]
    for _ in range(2):
        plugin.pre_filter(CycleState(), PodInfo.of(pod(labels={"app": "web"})), snapshot.nodes, snapshot)
    cached = existing.extra[CACHE_KEY]
    plugin.pre_filter(CycleState(), PodInfo.of(pod(labels={"app": "web"})), snapshot.nodes, snapshot)
    assert existing.extra[CACHE_KEY] is cached
    assert len(cached.required_anti_affinity) == 1


def test_cycle_places_a_replica_away_from_its_sibling():
    anti = [term("app", "In", ["web"], "kubernetes.io/hostname")]
    nodes = [node(f"n{i}", **{"kubernetes.io/hostname": f"n{i}"}) for i in (1, 2)]
    profile = Profile.build([("InterPodAffinity", 2)])
    decision = schedule(
        pod("web-2", {"app": "web"}, anti=anti),
        Snapshot.from_objects(nodes, [pod("web-1", {"app": "web"}, "n1", anti=anti)]),
        profile,
    )
    assert decision.selected == "n2"
    assert decision.first_failure["n1"].message() == ERR_REASON_ANTI_AFFINITY


def test_run_score_skips_when_nothing_matches():
    assert run_score(InterPodAffinity(), pod(labels={"x": "y"}), [node("a")], []) is None
