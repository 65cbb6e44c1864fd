"""Field ownership with the real kubectl, as a 1.33 cluster keeps it: managedFields on every
write (hidden unless --show-managed-fields), server-side apply's conflict with another manager
and --force-conflicts, and dry runs that store nothing and hand out no resourceVersion."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.kubectl

CONFIG = """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: owned
data:
  a: "{a}"
"""


def managed(kubectl, *target: str) -> list[dict]:
    obj = json.loads(kubectl.ok("get", *target, "-o", "json", "--show-managed-fields"))
    return [{k: v for k, v in e.items() if k != "time"} for e in obj["metadata"].get("managedFields", [])]


def test_a_create_records_its_manager_and_get_hides_it_unless_asked(kubectl):
    kubectl.ok("create", "configmap", "mf-made", "--from-literal=k=v")
    assert "managedFields" not in kubectl.ok("get", "cm", "mf-made", "-o", "yaml")
    shown = kubectl.ok("get", "cm", "mf-made", "-o", "yaml", "--show-managed-fields")
    assert "managedFields:" in shown and "time:" in shown
    assert managed(kubectl, "cm", "mf-made") == [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {".": {}, "f:k": {}}},
            "manager": "kubectl-create",
            "operation": "Update",
        }
    ]
    kubectl.ok("label", "cm", "mf-made", "team=blue")
    labelled = managed(kubectl, "cm", "mf-made")
    assert [(e["manager"], e["operation"]) for e in labelled] == [
        ("kubectl-create", "Update"),
        ("kubectl-label", "Update"),
    ]
    assert labelled[1]["fieldsV1"] == {"f:metadata": {"f:labels": {".": {}, "f:team": {}}}}


def test_server_side_apply_records_ownership_and_a_second_manager_gets_the_conflict(kubectl):
    applied = kubectl.ok("apply", "--server-side", "-f", "-", stdin=CONFIG.format(a="1"))
    assert applied.strip() == "configmap/owned serverside-applied"
    assert managed(kubectl, "cm", "owned") == [
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:a": {}}},
            "manager": "kubectl",
            "operation": "Apply",
        }
    ]
    refused = kubectl.run(
        "apply", "--server-side", "--field-manager=other", "-f", "-", stdin=CONFIG.format(a="2")
    )
    assert refused.returncode == 1
    assert 'Apply failed with 1 conflict: conflict with "kubectl": .data.a' in refused.stderr
    assert "--force-conflicts" in refused.stderr  # kubectl's own advice follows the Status
    forced = kubectl.run(
        "apply",
        "--server-side",
        "--field-manager=other",
        "--force-conflicts",
        "-f",
        "-",
        stdin=CONFIG.format(a="2"),
    )
    assert forced.returncode == 0, forced.stderr
    assert kubectl.ok("get", "cm", "owned", "-o", "jsonpath={.data.a}") == "2"
    assert [(e["manager"], e["operation"], e["fieldsV1"]) for e in managed(kubectl, "cm", "owned")] == [
        ("other", "Apply", {"f:data": {"f:a": {}}})
    ]


def test_dry_runs_store_nothing_and_hand_out_no_resource_version(kubectl):
    made = json.loads(
        kubectl.ok("create", "configmap", "mf-dry", "--from-literal=k=v", "--dry-run=server", "-o", "json")
    )
    assert "resourceVersion" not in made["metadata"] and made["metadata"]["uid"]
    assert kubectl.run("get", "cm", "mf-dry").returncode == 1
    kubectl.ok("create", "configmap", "mf-dry", "--from-literal=k=v")
    stored = kubectl.ok("get", "cm", "mf-dry", "-o", "jsonpath={.metadata.resourceVersion}")
    labelled = json.loads(kubectl.ok("label", "cm", "mf-dry", "x=y", "--dry-run=server", "-o", "json"))
    assert labelled["metadata"]["resourceVersion"] == stored
    assert labelled["metadata"]["labels"] == {"x": "y"}
    assert kubectl.ok("get", "cm", "mf-dry", "-o", "jsonpath={.metadata.labels}") == ""
    changed = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: mf-dry\ndata:\n  k: w\n"
    # data.k is kubectl-create's: a diff of an apply that takes it must force, as on a real cluster.
    diff = kubectl.run("diff", "--server-side", "-f", "-", stdin=changed)
    assert diff.returncode > 1 and 'conflict with "kubectl-create" using v1: .data.k' in diff.stderr
    diff = kubectl.run("diff", "--server-side", "--force-conflicts", "-f", "-", stdin=changed)
    assert diff.returncode == 1, diff.stderr  # 1: there are differences
    assert "resourceVersion" not in diff.stdout and "+  k: w" in diff.stdout


def test_a_client_side_applied_field_conflicts_until_kubectl_migrates_its_owner(kubectl):
    first = CONFIG.format(a="1").replace("owned", "mf-csa")
    kubectl.ok("apply", "-f", "-", stdin=first)
    assert [e["manager"] for e in managed(kubectl, "cm", "mf-csa")] == ["kubectl-client-side-apply"]
    changed = first.replace('"1"', '"2"')
    refused = kubectl.run("apply", "--server-side", "-f", "-", stdin=changed)
    assert refused.returncode == 1
    message = 'Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a'
    assert message in refused.stderr
    # An apply that changes nothing succeeds; kubectl then hands the client-side manager's fields
    # to its own (a JSON patch of managedFields), so the change goes through next time.
    kubectl.ok("apply", "--server-side", "-f", "-", stdin=first)
    assert [(e["manager"], e["operation"]) for e in managed(kubectl, "cm", "mf-csa")] == [
        ("kubectl", "Apply")
    ]
    kubectl.ok("apply", "--server-side", "-f", "-", stdin=changed)
    assert kubectl.ok("get", "cm", "mf-csa", "-o", "jsonpath={.data.a}") == "2"
