"""checklab: every bundled lab passes its self-test; broken labs are reported with their place."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from labs.loader import bundled_paths, load_lab, load_lab_file
from labs.selftest import self_test
from tests.labs.conftest import nodes

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.mark.parametrize("path", bundled_paths(), ids=lambda p: p.stem)
def test_bundled_lab_fails_before_and_passes_after_each_solution(path):
    report = self_test(load_lab_file(path))
    assert report.errors == []
    assert report.steps_passed == len(load_lab_file(path).steps)


def lab_text(check: str, solution: str) -> str:
    manifests = "\n".join("    " + line for line in nodes("node1").splitlines())
    return f"""id: broken
title: {{en: Broken, zh: 坏的}}
level: beginner
minutes: 1
cluster:
  manifests: |
{manifests}
steps:
  - id: only
    title: {{en: Only, zh: 唯一}}
    instructions: {{en: Do it, zh: 做}}
    checks:
{check}
    solution:
{solution}
"""


def test_a_step_that_passes_before_its_solution_is_reported():
    check = "      - {type: exists, kind: Node, name: node1}"
    lab = load_lab(lab_text(check, "      commands: [kubectl label nodes node1 a=b]"))
    (error,) = self_test(lab).errors
    assert (
        str(error) == "lab 'broken', step 1 ('only'): its checks already pass before its solution (line 16)"
    )


def test_a_solution_that_does_not_satisfy_the_check_is_reported_at_the_check():
    check = "      - {type: nodeLabel, node: node1, label: zz=cxk}"
    lab = load_lab(lab_text(check, "      commands: [kubectl label nodes node1 zz=other]"))
    (error,) = self_test(lab).errors
    assert str(error).startswith("lab 'broken', step 1 ('only'), check 1: still fails after the solution: ")
    assert "Node node1 should have the label zz=cxk." in str(error) and str(error).endswith("(line 20)")


def test_checklab_exits_non_zero_with_located_errors(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(lab_text("      - {type: nodeLabel, node: node1, lable: zz=cxk}", "      commands: [x]"))
    with pytest.raises(CommandError, match="1 of 1 lab"):
        call_command("checklab", str(bad))
    err = capsys.readouterr().err
    assert "step 1 ('only'), check 1: unknown key 'lable' (did you mean 'label'?) (line 20)" in err
