"""The lab loader validates as RELATE does: every error located, all of them at once."""

from __future__ import annotations

import pytest

from labs.loader import LabValidationError, bundled_paths, load_lab, load_lab_file

GOOD = """id: nodeselector
title: {en: NodeSelector, zh: 节点选择器}
level: beginner
minutes: 10
cluster:
  pace: 0
  manifests: |
    apiVersion: v1
    kind: Node
    metadata: {name: node1}
steps:
  - id: create-pod
    title: {en: Create, zh: 创建}
    instructions: {en: "Create **it**", zh: 创建它}
    checks:
      - type: podPending
        pod: pod-example
    solution:
      apply: |
        apiVersion: v1
        kind: Pod
        metadata: {name: pod-example}
        spec: {containers: [{name: c, image: nginx:1.15}]}
  - id: label-node
    title: {en: Label, zh: 标签}
    instructions: {en: Label it, zh: 打标签}
    checks:
      - type: podOnNode
        pod: pod-example
        node: node1
    solution:
      commands: [kubectl label nodes node1 zz=cxk]
"""


def errors_of(text: str) -> list[str]:
    with pytest.raises(LabValidationError) as info:
        load_lab(text)
    return [str(error) for error in info.value.errors]


def test_it_loads_a_valid_lab_with_steps_checks_and_solutions():
    lab = load_lab(GOOD)
    assert lab.id == "nodeselector" and lab.title.zh == "节点选择器"
    assert [step.id for step in lab.steps] == ["create-pod", "label-node"]
    assert lab.steps[1].checks[0].params == {"pod": "pod-example", "node": "node1"}
    assert lab.steps[1].solution.commands == ("kubectl label nodes node1 zz=cxk",)
    assert lab.steps[0].solution.reveal_after == 3


def test_it_reports_an_unknown_check_key_with_lab_step_check_and_line():
    text = GOOD.replace("        node: node1\n", "        nodeNmae: node1\n")
    errors = errors_of(text)
    assert "lab 'nodeselector', step 2 ('label-node'), check 1: unknown key 'nodeNmae'" in errors[-1]
    assert errors[-1].endswith("(line 30)")
    assert any("give exactly one of 'node' or 'nodeLabel'" in error for error in errors)


def test_it_reports_every_error_at_once_in_line_order():
    text = GOOD.replace("level: beginner", "level: expert").replace("type: podPending", "type: podPendng")
    text = text.replace("instructions: {en: Label it, zh: 打标签}", "instructions: {en: Label it}")
    errors = errors_of(text)
    assert len(errors) == 3
    assert (
        errors[0].startswith("lab 'nodeselector': level must be one of beginner") and "(line 3)" in errors[0]
    )
    assert "step 1 ('create-pod'), check 1: unknown check type 'podPendng'" in errors[1]
    assert "step 2 ('label-node'), instructions: missing required key 'zh'" in errors[2]


def test_it_locates_errors_inside_the_starting_manifests_by_lab_file_line():
    text = GOOD.replace("    kind: Node\n", "    kind: Nod\n", 1)
    (error,) = errors_of(text)
    assert error.startswith("lab 'nodeselector', cluster, manifests, manifest 1: kind 'Nod' is not served")
    assert error.endswith("(line 9)")


@pytest.mark.parametrize(
    ("check", "message"),
    [
        ("type: podPhase\n        pod: p\n        phase: Runing", "'Runing' is not a pod phase"),
        ("type: podCount\n        selector: 'app in (a'", "cannot read"),
        (
            "type: fieldEquals\n        kind: Pod\n        name: p\n"
            "        path: 'spec..x'\n        value: 1",
            "path",
        ),
        (
            "type: fieldMatches\n        kind: Pod\n        name: p\n"
            "        path: spec.x\n        pattern: '('",
            "regular",
        ),
        ("type: nodeTaint\n        node: n\n        key: k\n        effect: NoRun", "not a taint effect"),
        ("type: exists\n        kind: Ingress\n        name: s", "not a kind checks know"),
        ("type: nodeLabel\n        node: n\n        label: 'bad key!=x'", "name part must consist"),
    ],
)
def test_it_refuses_values_of_the_wrong_kind(check, message):
    text = GOOD.replace("type: podOnNode\n        pod: pod-example\n        node: node1", check)
    errors = errors_of(text)
    assert any("step 2 ('label-node'), check 1:" in e and message in e for e in errors), errors


def test_it_refuses_duplicate_step_ids_and_a_question_without_an_answer():
    text = GOOD.replace("id: label-node", "id: create-pod")
    assert any("duplicate step id" in e for e in errors_of(text))
    question = 'type: answer\n        question: {en: "Who", zh: 谁}\n        accept: [scheduler]'
    text = GOOD.replace("type: podOnNode\n        pod: pod-example\n        node: node1", question)
    assert any("the step asks a question: give its 'answer'" in e for e in errors_of(text))


def test_it_refuses_yaml_aliases_and_several_documents():
    assert "aliases" in errors_of("a: &x [1]\nb: *x\n")[0]
    assert "exactly one YAML document" in errors_of(GOOD + "---\n" + GOOD)[0]


def test_every_step_needs_a_solution():
    text = GOOD.replace("    solution:\n      commands: [kubectl label nodes node1 zz=cxk]\n", "")
    assert any("step 2 ('label-node'): missing required key 'solution'" in e for e in errors_of(text))


@pytest.mark.parametrize("path", bundled_paths(), ids=lambda p: p.stem)
def test_bundled_labs_are_valid_and_bilingual(path):
    lab = load_lab_file(path)
    assert lab.title.en and lab.title.zh
    for step in lab.steps:
        assert step.instructions.en.strip() and step.instructions.zh.strip()


def test_there_are_eleven_bundled_labs():
    assert len(bundled_paths()) == 11


def test_manifests_are_decoded_strictly_as_kubectl_decodes_them():
    text = GOOD.replace(
        "        spec: {containers: [{name: c, image: nginx:1.15}]}\n",
        "        spec:\n          containers:\n          - name: c\n            image: nginx:1.15\n"
        "            tolerations: [{key: gpu, operator: Exists}]\n",
    ).replace(
        "    metadata: {name: node1}\n", "    metadata: {name: node1}\n    spec: {unschedulable: false}\n"
    )
    text = text.replace("    kind: Node\n", "    kind: Node\n    kind: Node\n")
    assert errors_of(text) == [
        "lab 'nodeselector', cluster, manifests, manifest 1: "
        'Node in version "v1" cannot be handled as a Node: strict decoding error: '
        'yaml: unmarshal errors:\n  line 3: key "kind" already set in map (line 10)',
        "lab 'nodeselector', step 1 ('create-pod'), solution, apply, manifest 1: "
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "spec.containers[0].tolerations" (line 29)',
    ]
