"""`manage.py explain` end to end: the numbers a real kube-scheduler would produce."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "explain"


def explain(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", "explain", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )


def explain_json(pod: str, *extra: str) -> dict:
    done = explain(
        "--cluster", str(FIXTURES / "cluster.yaml"), "--pod", str(FIXTURES / pod), "--output", "json", *extra
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_it_explains_every_node_and_picks_the_least_loaded_one():
    result = explain_json("pod-web.yaml")
    assert result["pod"] == "default/web"
    assert result["selected"] == "node2"
    assert result["message"] is None
    master = result["nodes"]["master"]
    assert master["feasible"] is False
    assert master["firstFailure"]["plugin"] == "TaintToleration"
    assert master["firstFailure"]["reasons"] == [
        "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }"
    ]
    assert master["total"] is None and master["scores"] == {}
    assert list(master["filters"]) == [
        "NodeUnschedulable",
        "NodeName",
        "TaintToleration",
        "NodeAffinity",
        "NodePorts",
        "NodeResourcesFit",
        "VolumeRestrictions",
        "NodeVolumeLimits",
        "VolumeBinding",
        "VolumeZone",
        "PodTopologySpread",
        "InterPodAffinity",
    ]
    assert master["filters"]["NodeAffinity"]["status"] == "Skip"
    node1, node2 = result["nodes"]["node1"]["scores"], result["nodes"]["node2"]["scores"]
    # LeastAllocated with the non-zero accounting: node1 cpu (4000−4000)·100/4000 = 0, memory 81 → 40.
    assert node1["NodeResourcesFit"] == {
        **node1["NodeResourcesFit"],
        "raw": 40,
        "normalized": 40,
        "weight": 1,
        "weighted": 40,
    }
    assert node2["NodeResourcesFit"]["raw"] == 90
    assert node1["NodeResourcesBalancedAllocation"]["raw"] == 59
    assert node2["NodeResourcesBalancedAllocation"]["raw"] == 96
    assert node1["ImageLocality"]["raw"] == 1 and node2["ImageLocality"]["raw"] == 0
    assert node1["TaintToleration"]["weighted"] == 300
    # No preferred node affinity, no spread constraints, no pod affinity: skipped at PreScore.
    assert (
        "NodeAffinity" not in node1 and "PodTopologySpread" not in node1 and "InterPodAffinity" not in node1
    )
    assert result["nodes"]["node1"]["total"] == 400
    assert result["nodes"]["node2"]["total"] == 486


def test_a_single_feasible_node_is_chosen_without_scoring():
    result = explain_json("pod-big.yaml")
    assert result["selected"] == "node2"
    assert result["nodes"]["node1"]["firstFailure"]["reasons"] == ["Insufficient cpu"]
    assert all(node["scores"] == {} for node in result["nodes"].values())


def test_an_unmatched_node_selector_gives_kubectls_exact_message():
    result = explain_json("pod-nodeselector.yaml")
    assert result["selected"] is None
    assert result["message"] == (
        "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "2 node(s) didn't match Pod's node affinity/selector. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )
    # Teaching mode: the master fails NodeAffinity too, though it reports its first failure.
    assert result["nodes"]["master"]["filters"]["NodeAffinity"]["status"] == "UnschedulableAndUnresolvable"


def test_score_all_nodes_scores_the_filtered_master_too():
    result = explain_json("pod-web.yaml", "--score-all-nodes")
    assert result["nodes"]["master"]["total"] == 486
    assert result["selected"] == "node2"


def test_a_config_switches_to_most_allocated():
    result = explain_json("pod-web.yaml", "--config", str(FIXTURES / "most-allocated.yaml"))
    assert result["nodes"]["node1"]["scores"]["NodeResourcesFit"]["raw"] == 59
    assert result["nodes"]["node2"]["scores"]["NodeResourcesFit"]["raw"] == 9
    assert result["nodes"]["node1"]["scores"]["NodeResourcesFit"]["legacy"] == ["MostRequestedPriority"]
    assert result["selected"] == "node1"


def test_text_output_shows_the_matrices_and_the_message():
    done = explain(
        "--cluster", str(FIXTURES / "cluster.yaml"), "--pod", str(FIXTURES / "pod-nodeselector.yaml")
    )
    assert done.returncode == 0, done.stderr
    assert "NodeAffinity (MatchNodeSelector/PodSelectorMatches)" in done.stdout
    assert "✗*" in done.stdout
    assert "Warning  FailedScheduling  default-scheduler  0/3 nodes are available:" in done.stdout


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (
            {"cluster.yaml": "kind: Node\nmetadata: {name: a\n"},
            "cluster.yaml: invalid YAML in document 1 (line 3)",
        ),
        (
            {"cluster.yaml": "kind: Node\nmetadata: {name: a}\n---\nkind: Service\nmetadata: {name: s}\n"},
            "cluster.yaml: document 2 (line 4): "
            "kind: expected Node, Pod, PodDisruptionBudget, PriorityClass, PersistentVolumeClaim, "
            "PersistentVolume, StorageClass or CSINode, got 'Service'",
        ),
        (
            {"cluster.yaml": "kind: Node\nmetadata: {name: a}\nstatus:\n  allocatable:\n    cpu: 1K\n"},
            "cluster.yaml: document 1 (line 5): status.allocatable.cpu: invalid quantity '1K'",
        ),
        ({}, "cluster.yaml: no such file"),
    ],
)
def test_bad_input_gets_one_located_error_and_status_2(tmp_path, files, expected):
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    done = explain("--cluster", str(tmp_path / "cluster.yaml"), "--pod", str(FIXTURES / "pod-web.yaml"))
    assert done.returncode == 2
    assert expected in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unknown_config_field_is_named():
    done = explain(
        "--cluster", str(FIXTURES / "cluster.yaml"), "--pod", str(FIXTURES / "pod-web.yaml"),
        "--config", str(FIXTURES / "bad-config.yaml"),
    )  # fmt: skip
    assert done.returncode == 2
    assert "profiles[0].pluginConfig[0].args.scoringStrategy.tpye: unknown field" in done.stderr
    assert "(line 9)" in done.stderr
    assert "Traceback" not in done.stderr


def explained_json(cluster: str, pod: str) -> dict:
    """`explain --output json` of fixture `pod` against fixture `cluster`, which must succeed."""
    done = explain("--cluster", str(FIXTURES / cluster), "--pod", str(FIXTURES / pod), "--output", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def preemption_json(pod: str) -> dict:
    return explained_json("preemption-cluster.yaml", pod)


def test_preemption_nominates_the_node_whose_victims_violate_no_pdb():
    result = preemption_json("pod-high.yaml")
    assert result["selected"] is None
    # A successful preemption adds no clause to FailedScheduling.
    assert result["message"] == "0/2 nodes are available: 2 Insufficient cpu."
    preemption = result["preemption"]
    assert result["nominatedNode"] == preemption["nominatedNode"] == "node2"
    assert preemption["decidedBy"] == "minNumPDBViolations"
    assert [v["pod"] for v in preemption["victims"]] == ["default/low-2"]
    node1 = next(c for c in preemption["candidates"] if c["node"] == "node1")
    # low-1 is evicted (and its PDB allows no disruption); mid-1 is reprieved.
    assert [(s["pod"], s["result"], s["violatesPDB"]) for s in node1["steps"]] == [
        ("default/low-1", "victim", True),
        ("default/mid-1", "reprieved", False),
    ]
    assert preemption["criteria"][0] == {
        **preemption["criteria"][0],
        "scores": {"node1": -1, "node2": 0},
        "kept": ["node2"],
        # In a class's words: the figure compared, not upstream's negated score.
        "label": {"en": "PodDisruptionBudget violations", "zh": "违反 PDB 的次数"},
        "values": {"node1": 1, "node2": 0},
    }


def test_preemption_policy_never_is_not_eligible():
    result = preemption_json("pod-high-never.yaml")
    assert result["preemption"]["eligible"] is False
    assert result["nominatedNode"] is None
    assert result["message"] == (
        "0/2 nodes are available: 2 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never."
    )


def test_preemption_that_cannot_make_room_names_each_nodes_reason():
    result = preemption_json("pod-huge.yaml")
    # node1: even without low-1 and mid-1 there are only 2 cpus; node2 likewise.
    assert result["message"] == (
        "0/2 nodes are available: 2 Insufficient cpu. "
        "preemption: 0/2 nodes are available: 2 Insufficient cpu."
    )
    nodes = result["preemption"]["nodes"]
    assert nodes["node1"]["reasons"] == ["Insufficient cpu"] and not nodes["node1"]["candidate"]


def test_preemption_text_output_walks_victim_by_victim():
    done = explain(
        "--cluster", str(FIXTURES / "preemption-cluster.yaml"), "--pod", str(FIXTURES / "pod-high.yaml")
    )
    assert done.returncode == 0, done.stderr
    assert "Preemption (DefaultPreemption PostFilter):" in done.stdout
    assert "✗ victim    default/low-1 (priority 0)" in done.stdout
    assert "✓ reprieved default/mid-1 (priority 500)" in done.stdout
    assert "Nominated node2, decided by minNumPDBViolations" in done.stdout
    assert "Nominated node: node2 (status.nominatedNodeName)" in done.stdout


def test_a_pdb_with_the_wrong_api_version_is_an_input_error(tmp_path):
    bad = tmp_path / "cluster.yaml"
    bad.write_text(
        "apiVersion: v1\nkind: PodDisruptionBudget\nmetadata: {name: x}\nspec: {}\n", encoding="utf-8"
    )
    done = explain("--cluster", str(bad), "--pod", str(FIXTURES / "pod-high.yaml"))
    assert done.returncode == 2
    assert "apiVersion: PodDisruptionBudget is in apiVersion policy/v1" in done.stderr


def test_equal_priority_nodes_are_named_once_under_no_victims(tmp_path):
    huge = tmp_path / "pod.yaml"
    huge.write_text(
        "apiVersion: v1\nkind: Pod\nmetadata: {name: huge}\nspec:\n  containers:\n"
        "  - {name: c, image: nginx, resources: {requests: {cpu: 4500m}}}\n",
        encoding="utf-8",
    )
    done = explain("--cluster", str(FIXTURES / "cluster.yaml"), "--pod", str(huge), "--output", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["message"].endswith(
        "preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, "
        "2 No preemption victims found for incoming pod."
    )
    assert result["preemption"]["noVictims"] == ["node1", "node2"]
    assert result["preemption"]["nodes"] == {} and result["preemption"]["candidates"] == []


def class_json(pod: str) -> dict:
    return explained_json("priorityclass-cluster.yaml", pod)


def test_priority_classes_resolve_the_pods_priorities_and_preemption_takes_the_default_class_pod():
    result = class_json("pod-class-high.yaml")
    preemption = result["preemption"]
    # The Job's pod has the global default's 10; the DaemonSet's pod system-node-critical's value.
    assert preemption["nominatedNode"] == "node2"
    assert [(v["pod"], v["priority"]) for v in preemption["victims"]] == [("default/pi-7k2mw", 10)]
    # node1 holds only the DaemonSet's pod, of higher priority: nothing there may be evicted.
    assert [c["node"] for c in preemption["candidates"]] == ["node2"]
    assert preemption["noVictims"] == ["node1"] or "node1" in json.dumps(preemption["noVictims"])


def test_a_daemon_set_pod_is_placed_by_its_match_fields_term():
    result = class_json("pod-daemon-node2.yaml")
    assert result["selected"] == "node2"
    first = result["nodes"]["node1"]["firstFailure"]
    assert (first["plugin"], first["status"]) == ("NodeAffinity", "UnschedulableAndUnresolvable")
    assert "matchFields on metadata.name" in first["why"]["en"]


def test_an_unknown_priority_class_is_a_located_input_error(tmp_path):
    pod = tmp_path / "pod.yaml"
    pod.write_text((FIXTURES / "pod-class-high.yaml").read_text().replace("high", "missing"))
    done = explain("--cluster", str(FIXTURES / "priorityclass-cluster.yaml"), "--pod", str(pod))
    assert done.returncode == 2
    assert "spec.priorityClassName: no PriorityClass with name missing was found" in done.stderr


def test_a_cluster_file_may_hold_claims_volumes_and_classes():
    done = explain(
        "--cluster",
        str(FIXTURES / "storage-cluster.yaml"),
        "--pod",
        str(FIXTURES / "pod-claim.yaml"),
        "--output",
        "json",
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["selected"] == "node1"
    node2 = result["nodes"]["node2"]["firstFailure"]
    assert (node2["plugin"], node2["reasons"]) == (
        "VolumeBinding",
        ["node(s) didn't find available persistent volumes to bind"],
    )


def test_what_if_explains_the_edited_copy_beside_the_real_decision(tmp_path):
    question = tmp_path / "what-if.yaml"
    question.write_text("nodes:\n  node2:\n    labels: {kubernetes.io/hostname: node2, lc: fuheinan}\n")
    done = explain(
        "--cluster", str(FIXTURES / "cluster.yaml"), "--pod", str(FIXTURES / "pod-nodeselector.yaml"),
        "--what-if", str(question), "--output", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert answer["real"]["selected"] is None and answer["whatIf"]["selected"] == "node2"
    assert answer["changes"]["selected"] == [None, "node2"]
    assert answer["changes"]["nodes"]["node2"]["feasible"] == [False, True]
    assert "node1" not in answer["changes"]["nodes"]


def test_what_if_a_profile_packs_and_the_text_says_what_changed(tmp_path):
    question = tmp_path / "what-if.yaml"
    question.write_text(
        "profile:\n  pluginConfig:\n    - name: NodeResourcesFit\n"
        "      args: {scoringStrategy: {type: MostAllocated}}\n"
    )
    done = explain(
        "--cluster", str(FIXTURES / "cluster.yaml"), "--pod", str(FIXTURES / "pod-web.yaml"),
        "--what-if", str(question),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "=== Real ===" in done.stdout and "=== What if ===" in done.stdout
    assert "  selected node: node2 → node1" in done.stdout


def test_a_bad_what_if_is_a_located_error(tmp_path):
    question = tmp_path / "what-if.yaml"
    question.write_text("nodes:\n  node9: {labels: {}}\n")
    done = explain(
        "--cluster", str(FIXTURES / "cluster.yaml"), "--pod", str(FIXTURES / "pod-web.yaml"),
        "--what-if", str(question),
    )  # fmt: skip
    assert done.returncode == 2
    assert 'what-if request is invalid: nodes.node9: Not found: "node9"' in done.stderr
    assert "Traceback" not in done.stderr
