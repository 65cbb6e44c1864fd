"""The cycle itself: plugin errors fail it as in kube-scheduler, and kept explanations stay put."""

from __future__ import annotations

import json

import pytest

from scheduler.engine.cycle import schedule
from scheduler.engine.framework import SUCCESS, Code, Plugin, ScoreColumn, Status, Why, unschedulable
from scheduler.engine.profile import Profile
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import container, make_node, make_pod

NODES = [
    make_node(
        f"node{i}",
        labels={"kubernetes.io/hostname": f"node{i}", "zone": "a" if i < 2 else "b"},
        allocatable={"cpu": "4", "memory": "8Gi", "pods": "10"},
    )
    for i in range(3)
]
BROKEN = Status(Code.ERROR, ("selector is broken",), "", Why("broken", "坏了"))


class Failing(Plugin):
    """Returns Code.ERROR at the extension point named by `args["at"]`, Success elsewhere."""

    name = "Failing"
    is_filter = True
    is_score = True

    def pre_filter(self, state, pod, nodes, snapshot):
        return BROKEN if self.args["at"] == "PreFilter" else None

    def filter(self, state, pod, nodes):
        return {"node1": BROKEN} if self.args["at"] == "Filter" else {}

    def pre_score(self, state, pod, nodes, snapshot):
        return BROKEN if self.args["at"] == "PreScore" else None

    def score(self, state, pod, nodes):
        return BROKEN if self.args["at"] == "Score" else ScoreColumn(raw=[1] * len(nodes))


def _profile(at: str) -> Profile:
    failing = Failing({"at": at})
    profile = Profile.build([("NodeUnschedulable", 0), ("NodeResourcesFit", 1)])
    profile.filters.append(failing)
    profile.scorers.append((failing, 1))
    return profile


@pytest.mark.parametrize(
    ("at", "error"),
    [
        ("PreFilter", 'running PreFilter plugin "Failing": selector is broken'),
        ("Filter", 'running "Failing" filter plugin: selector is broken'),
        ("PreScore", 'running PreScore plugin "Failing": selector is broken'),
        ("Score", 'running Score plugins: plugin "Failing" failed with: selector is broken'),
    ],
)
def test_a_plugin_error_fails_the_cycle_with_kube_schedulers_wording(at, error):
    decision = schedule(make_pod("web"), Snapshot.from_objects(NODES), _profile(at))
    assert decision.error == error
    assert decision.selected is None
    assert decision.message == error
    result = decision.to_json()
    assert result["error"] == error and result["selected"] is None and result["message"] == error


def test_a_prefilter_error_is_every_nodes_first_failure_while_other_filters_still_explain():
    pod = make_pod("web", containers=[container(requests={"cpu": "2"})])
    nodes = [make_node(n["metadata"]["name"], allocatable={"cpu": "1", "pods": "10"}) for n in NODES]
    decision = schedule(pod, Snapshot.from_objects(nodes), _profile("PreFilter"))
    node0 = decision.to_json()["nodes"]["node0"]
    assert node0["firstFailure"]["plugin"] == "Failing"
    assert node0["firstFailure"]["status"] == "Error"
    assert node0["filters"]["NodeResourcesFit"]["reasons"] == ["Insufficient cpu"]  # teaching mode
    assert decision.feasible == []


def test_a_filter_error_on_one_node_fails_the_cycle_although_other_nodes_fit():
    decision = schedule(make_pod("web"), Snapshot.from_objects(NODES), _profile("Filter"))
    assert decision.feasible == ["node0", "node2"]
    assert decision.selected is None
    assert decision.to_json()["nodes"]["node1"]["firstFailure"]["status"] == "Error"


def test_rejections_are_still_not_errors():
    class Rejecting(Plugin):
        name = "Rejecting"
        is_filter = True

        def filter(self, state, pod, nodes):
            return {"node1": unschedulable(self.name, "node(s) are busy")}

    profile = Profile.build([("NodeUnschedulable", 0)])
    profile.filters.append(Rejecting())
    decision = schedule(make_pod("web"), Snapshot.from_objects(NODES), profile)
    assert decision.error is None
    assert decision.selected == "node0"
    assert decision.filter_status("Rejecting", "node2") is SUCCESS


def test_the_default_profile_fails_the_cycle_on_an_unparsable_spread_selector():
    bad = {"matchExpressions": [{"key": "app", "operator": "In", "values": ["{{bad}}"]}]}
    spread = [
        {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": bad}
    ]
    decision = schedule(make_pod("web", topologySpreadConstraints=spread), Snapshot.from_objects(NODES))
    assert decision.error.startswith(
        'running PreFilter plugin "PodTopologySpread": obtaining pod\'s hard topology spread constraints: '
    )
    assert decision.selected is None


def test_a_kept_explanation_does_not_change_when_later_pods_land():
    """Scores are explained lazily, so what they read must be frozen when the cycle runs."""
    spread = [
        {
            "maxSkew": 1,
            "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": {"app": "web"}},
        }
    ]
    anti = {
        "podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {
                    "weight": 10,
                    "podAffinityTerm": {
                        "labelSelector": {"matchLabels": {"app": "web"}},
                        "topologyKey": "zone",
                    },
                }
            ]
        }
    }
    snapshot = Snapshot.from_objects(NODES, [make_pod("web-0", labels={"app": "web"}, node_name="node0")])
    web = {"labels": {"app": "web"}, "topologySpreadConstraints": spread, "affinity": anti}
    first = schedule(make_pod("web-1", **web), snapshot)
    snapshot.add_pod(first.pod.bound_to(first.selected))
    before = json.dumps(first.to_json(), sort_keys=True)
    for index in range(2, 6):
        decision = schedule(make_pod(f"web-{index}", **web), snapshot)
        snapshot.add_pod(decision.pod.bound_to(decision.selected))
    assert json.dumps(first.to_json(), sort_keys=True) == before
