"""metadata.managedFields: Update entries on every write, Apply entries, conflicts and pruning."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError

APPLY = "application/apply-patch+yaml"


def _cm(data: dict) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "cfg", "namespace": "default"},
        "data": data,
    }


def _entries(obj: dict) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "time"} for e in obj["metadata"]["managedFields"]]


def test_create_records_an_update_entry_with_dots_for_new_maps_only(cluster):
    actor = Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl-create")
    deploy = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {"containers": [{"name": "nginx", "image": "nginx"}]},
            },
        },
    }
    created = api.create(cluster, deploy, actor)
    (entry,) = created["metadata"]["managedFields"]
    assert entry["manager"] == "kubectl-create" and entry["operation"] == "Update"
    assert entry["apiVersion"] == "apps/v1" and entry["fieldsType"] == "FieldsV1"
    fields = entry["fieldsV1"]
    assert fields["f:metadata"] == {"f:labels": {".": {}, "f:app": {}}}
    spec = fields["f:spec"]
    assert "." not in spec and spec["f:selector"] == {} and spec["f:replicas"] == {}
    assert spec["f:strategy"]["f:rollingUpdate"]["."] == {}
    container = spec["f:template"]["f:spec"]["f:containers"]['k:{"name":"nginx"}']
    assert container["."] == {} and container["f:image"] == {} and container["f:name"] == {}
    assert "f:status" not in fields


def test_server_side_apply_conflicts_and_force_takes_ownership(cluster):
    first = Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl")
    api.patch(cluster, "ConfigMap", "default", "cfg", _cm({"a": "1", "b": "2"}), APPLY, first)
    other = Actor("kubectl", "kubectl/v1.33.1", field_manager="other")
    with pytest.raises(ApiError) as err:
        api.patch(cluster, "ConfigMap", "default", "cfg", _cm({"a": "9"}), APPLY, other)
    assert err.value.code == 409 and err.value.reason == "Conflict"
    assert err.value.message == 'Apply failed with 1 conflict: conflict with "kubectl": .data.a'
    assert err.value.details == {
        "causes": [
            {"reason": "FieldManagerConflict", "message": 'conflict with "kubectl"', "field": ".data.a"}
        ]
    }
    # The same value is no conflict: both own it.
    shared = api.patch(cluster, "ConfigMap", "default", "cfg", _cm({"a": "1"}), APPLY, other)
    assert [e["manager"] for e in shared["metadata"]["managedFields"]] == ["kubectl", "other"]
    forced = api.patch(cluster, "ConfigMap", "default", "cfg", _cm({"a": "9"}), APPLY, other, force=True)
    assert forced["data"] == {"a": "9", "b": "2"}
    assert _entries(forced) == [
        {
            "manager": "kubectl",
            "operation": "Apply",
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:b": {}}},
        },
        {
            "manager": "other",
            "operation": "Apply",
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:a": {}}},
        },
    ]


def test_apply_removes_what_its_manager_stopped_applying(cluster):
    me = Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl")
    api.patch(cluster, "ConfigMap", "default", "cfg", _cm({"a": "1", "b": "2"}), APPLY, me)
    result = api.patch(cluster, "ConfigMap", "default", "cfg", _cm({"a": "1"}), APPLY, me)
    assert result["data"] == {"a": "1"}
    bare = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "namespace": "default"}}
    result = api.patch(cluster, "ConfigMap", "default", "cfg", bare, APPLY, me)
    assert "data" not in result and "managedFields" not in result["metadata"]


def test_an_update_takes_the_fields_it_changes_from_an_applier(cluster):
    me = Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl")
    api.patch(cluster, "ConfigMap", "default", "cfg", _cm({"a": "1", "b": "2"}), APPLY, me)
    editor = Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl-edit")
    merge = "application/merge-patch+json"
    result = api.patch(cluster, "ConfigMap", "default", "cfg", {"data": {"a": "5"}}, merge, editor)
    assert _entries(result) == [
        {
            "manager": "kubectl",
            "operation": "Apply",
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:b": {}}},
        },
        {
            "manager": "kubectl-edit",
            "operation": "Update",
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:a": {}}},
        },
    ]
    again = api.patch(cluster, "ConfigMap", "default", "cfg", {"data": {"a": "5"}}, merge, editor)
    assert again["metadata"]["resourceVersion"] == result["metadata"]["resourceVersion"]


def test_a_status_write_is_its_own_entry(cluster):
    api.create(
        cluster,
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        },
        Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl-run"),
    )
    pod = api.get(cluster, "Pod", "default", "p")
    pod["status"]["phase"] = "Running"
    result = api.update(cluster, pod, Actor("kubelet", "node1"), "status")
    kubelet = [e for e in result["metadata"]["managedFields"] if e["manager"] == "kubelet"]
    assert kubelet[0]["subresource"] == "status" and kubelet[0]["fieldsV1"] == {"f:status": {"f:phase": {}}}


def test_conflicts_with_several_managers_are_grouped_as_upstream_words_them(cluster):
    create = Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl-create")
    api.create(cluster, _cm({"a": "1", "b": "2"}), create)
    api.patch(
        cluster,
        "ConfigMap",
        "default",
        "cfg",
        {"data": {"c": "3"}},
        "application/merge-patch+json",
        Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl-edit"),
    )
    me = Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl")
    with pytest.raises(ApiError) as err:
        api.patch(cluster, "ConfigMap", "default", "cfg", _cm({"a": "x", "b": "y", "c": "z"}), APPLY, me)
    assert err.value.message == (
        "Apply failed with 3 conflicts: "
        'conflicts with "kubectl-create" using v1:\n- .data.a\n- .data.b\n'
        'conflicts with "kubectl-edit" using v1:\n- .data.c'
    )
    assert [c["field"] for c in err.value.details["causes"]] == [".data.a", ".data.b", ".data.c"]


def test_patch_options_are_checked_as_validate_patch_options():
    with pytest.raises(ApiError) as err:
        api.check_patch_options(APPLY, "", False)
    assert err.value.code == 422
    assert err.value.message == (
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch'
    )
    with pytest.raises(ApiError) as err:
        api.check_patch_options("application/merge-patch+json", "x", True)
    assert err.value.message == (
        'PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch'
    )
    api.check_patch_options(APPLY, "kubectl", True)


def test_manager_names_come_from_the_user_agent_as_upstream():
    from cluster.apiserver.managedfields import prefix_from_user_agent

    assert prefix_from_user_agent("kubectl/v1.33.1 (linux/amd64) kubernetes/8adc0f0") == "kubectl"
    assert prefix_from_user_agent("curl/8.5.0") == "curl"
    assert prefix_from_user_agent("a\tb/1") == "ab"
    assert prefix_from_user_agent("x" * 200) == "x" * 128


def test_a_body_that_carries_managed_fields_starts_from_them(cluster):
    carried = _cm({"a": "1"})
    carried["metadata"]["managedFields"] = [
        {
            "manager": "gitops",
            "operation": "Apply",
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {"f:data": {"f:a": {}}},
        }
    ]
    created = api.create(
        cluster, carried, Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl-create")
    )
    assert [(e["manager"], e["operation"]) for e in created["metadata"]["managedFields"]] == [
        ("kubectl-create", "Update")
    ]  # kubectl-create set data.a, so it took the field
    carried["metadata"]["managedFields"][0]["fieldsV1"] = {"f:metadata": {"f:labels": {"f:x": {}}}}
    carried["metadata"]["name"] = "cfg2"
    created = api.create(
        cluster, carried, Actor("kubectl", "kubectl/v1.33.1", field_manager="kubectl-create")
    )
    assert [(e["manager"], e["operation"]) for e in created["metadata"]["managedFields"]] == [
        ("gitops", "Apply"),
        ("kubectl-create", "Update"),
    ]
