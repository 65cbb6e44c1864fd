"""KubeSchedulerConfiguration → profiles: several by schedulerName, upstream's validation messages,
DefaultPreemption, and percentageOfNodesToScore (numFeasibleNodesToFind)."""

from __future__ import annotations

import pytest

from scheduler.configuration import InvalidConfiguration, parse
from scheduler.engine.config import ConfigError, load_config
from scheduler.engine.cycle import nodes_to_find, schedule
from scheduler.engine.snapshot import Snapshot
from tests.engine.builders import make_node, make_pod

ZERO_CANDIDATES = {"minCandidateNodesPercentage": 0, "minCandidateNodesAbsolute": 0}
V1 = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration"}


def test_every_profile_is_built_by_its_scheduler_name():
    config = load_config(
        {
            **V1,
            "profiles": [
                {},
                {
                    "schedulerName": "packer",
                    "plugins": {"score": {"disabled": [{"name": "ImageLocality"}]}},
                    "pluginConfig": [
                        {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "MostAllocated"}}}
                    ],
                },
            ],
        }
    )
    assert list(config.profiles) == ["default-scheduler", "packer"]
    packer = config.profile_for("packer")
    assert "ImageLocality" not in [plugin.name for plugin, _ in packer.scorers]
    assert config.profile_for("nobody") is None


def test_a_duplicate_scheduler_name_is_refused():
    with pytest.raises(ConfigError, match=r'^profiles\[1\]\.schedulerName: Duplicate value: "a"$'):
        load_config({**V1, "profiles": [{"schedulerName": "a"}, {"schedulerName": "a"}]})


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (
            {"percentageOfNodesToScore": 101},
            "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]",
        ),
        (
            {"profiles": [{"percentageOfNodesToScore": -1}]},
            "profiles[0].percentageOfNodesToScore: Invalid value: -1: not in valid range [0-100]",
        ),
        (
            {"profiles": [{"pluginConfig": [{"name": "DefaultPreemption", "args": ZERO_CANDIDATES}]}]},
            "profiles[0].pluginConfig[0].args: Invalid value: 0: numbers must not both be zero",
        ),
    ],
)  # fmt: skip
def test_upstream_validation_messages(config, message):
    with pytest.raises(ConfigError) as raised:
        load_config({**V1, **config})
    assert str(raised.value) == message


def test_disabling_default_preemption_turns_the_post_filter_off():
    plugins = {"postFilter": {"disabled": [{"name": "DefaultPreemption"}]}}
    profile = load_config({**V1, "profiles": [{"plugins": plugins}]}).profile_for("default-scheduler")
    assert profile.post_filter is False
    default = load_config(
        {**V1, "profiles": [{"plugins": {"queueSort": {"enabled": [{"name": "PrioritySort"}]}}}]}
    )
    assert default.profile_for("default-scheduler").post_filter is True


def test_a_located_error_names_the_line():
    text = "apiVersion: kubescheduler.config.k8s.io/v1\nprofiles:\n  - {}\n  - schedulerNam: x\n"
    with pytest.raises(InvalidConfiguration) as raised:
        parse(text)
    assert str(raised.value) == "config.yaml (line 4): profiles[1].schedulerNam: unknown field"


@pytest.mark.parametrize(
    ("percentage", "nodes", "expected"),
    [(None, 50, (50, 100)), (10, 99, (99, 100)), (None, 1000, (420, 42)), (10, 500, (100, 10)),
     (60, 500, (300, 60)), (None, 6000, (300, 5))],
)  # fmt: skip
def test_num_feasible_nodes_to_find(percentage, nodes, expected):
    assert nodes_to_find(percentage, nodes) == expected


def test_nodes_past_the_search_are_shown_as_not_scored():
    nodes = [
        make_node(f"n{i:03}", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}) for i in range(200)
    ]
    config = load_config({**V1, "percentageOfNodesToScore": 10})
    profile = config.profile_for("default-scheduler")
    pod = make_pod("p")
    decision = schedule(pod, Snapshot.from_objects(nodes), profile, start_index=150)
    found = [f"n{i:03}" for i in range(150, 200)] + [f"n{i:03}" for i in range(50)]
    assert sorted(decision.feasible) == sorted(found)
    assert decision.processed == 100
    result = decision.to_json()
    assert result["nodesToFind"] == {"count": 100, "percentage": 10}
    assert result["notScored"] == [f"n{i:03}" for i in range(50, 150)]
    assert result["nodes"]["n100"]["scores"] == {} and result["nodes"]["n100"]["feasible"]
    assert result["profile"] == "default-scheduler"


def test_the_pod_backoffs_are_read_and_validated():
    config = load_config({**V1, "podInitialBackoffSeconds": 2, "podMaxBackoffSeconds": 30})
    assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (2, 30)
    assert (load_config(None).pod_initial_backoff_seconds, load_config(None).pod_max_backoff_seconds) == (
        1,
        10,
    )
    with pytest.raises(
        ConfigError, match=r"^podInitialBackoffSeconds: Invalid value: 0: must be greater than 0$"
    ):
        load_config({**V1, "podInitialBackoffSeconds": 0})
    with pytest.raises(
        ConfigError, match=r"^podMaxBackoffSeconds: Invalid value: 1: must be greater than or equal"
    ):
        load_config({**V1, "podInitialBackoffSeconds": 2, "podMaxBackoffSeconds": 1})
