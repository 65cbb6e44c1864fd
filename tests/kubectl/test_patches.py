"""Strategic merge patch and JSON patch, with the patches kubectl really sends."""

from __future__ import annotations

import pytest

from cluster.apiserver.errors import ApiError
from cluster.kubeapi import json_patch, strategic_merge


def pod(**spec) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25"}], **spec},
    }


def test_set_image_merges_containers_by_name():
    original = pod()
    original["spec"]["containers"].append({"name": "side", "image": "busybox"})
    patch = {"spec": {"containers": [{"name": "nginx", "image": "nginx:1.16"}]}}
    result = strategic_merge.apply(original, patch, "Pod")
    assert result["spec"]["containers"] == [
        {"name": "nginx", "image": "nginx:1.16"},
        {"name": "side", "image": "busybox"},
    ]


def test_deployment_template_containers_merge_through_the_template():
    deploy = {
        "spec": {
            "template": {
                "spec": {"containers": [{"name": "a", "image": "x", "ports": [{"containerPort": 80}]}]}
            }
        }
    }
    patch = {
        "spec": {"template": {"spec": {"containers": [{"name": "a", "ports": [{"containerPort": 443}]}]}}}
    }
    result = strategic_merge.apply(deploy, patch, "Deployment")
    ports = result["spec"]["template"]["spec"]["containers"][0]["ports"]
    assert ports == [{"containerPort": 80}, {"containerPort": 443}]


def test_taints_are_replaced_whole_as_kubectl_taint_sends_them():
    node = {
        "kind": "Node",
        "metadata": {"name": "node1"},
        "spec": {"taints": [{"key": "a", "effect": "NoSchedule"}]},
    }
    patch = {"spec": {"taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}}
    assert strategic_merge.apply(node, patch, "Node")["spec"]["taints"] == [
        {"key": "k", "value": "v", "effect": "NoSchedule"}
    ]


def test_null_deletes_a_label_and_uncordon():
    node = {"metadata": {"name": "n", "labels": {"zz": "cxk", "a": "b"}}, "spec": {"unschedulable": True}}
    patch = {"metadata": {"labels": {"zz": None}}, "spec": {"unschedulable": None}}
    result = strategic_merge.apply(node, patch, "Node")
    assert result["metadata"]["labels"] == {"a": "b"}
    assert "unschedulable" not in result["spec"]


def test_patch_delete_directive_removes_a_list_element():
    original = pod()
    original["spec"]["containers"].append({"name": "side", "image": "busybox"})
    patch = {"spec": {"containers": [{"name": "side", "$patch": "delete"}]}}
    assert [c["name"] for c in strategic_merge.apply(original, patch, "Pod")["spec"]["containers"]] == [
        "nginx"
    ]


def test_patch_replace_directive_replaces_the_list():
    original = pod()
    patch = {"spec": {"containers": [{"name": "only", "image": "redis"}, {"$patch": "replace"}]}}
    assert strategic_merge.apply(original, patch, "Pod")["spec"]["containers"] == [
        {"name": "only", "image": "redis"}
    ]


def test_set_element_order_orders_the_merged_list():
    original = pod()
    original["spec"]["containers"].append({"name": "b", "image": "busybox"})
    patch = {
        "spec": {
            "$setElementOrder/containers": [{"name": "b"}, {"name": "nginx"}],
            "containers": [{"name": "b", "image": "b2"}],
        }
    }
    result = strategic_merge.apply(original, patch, "Pod")
    assert [c["name"] for c in result["spec"]["containers"]] == ["b", "nginx"]
    assert result["spec"]["containers"][0]["image"] == "b2"


def test_retain_keys_drops_the_other_strategy_fields():
    deploy = {"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}
    assert strategic_merge.apply(deploy, patch, "Deployment")["spec"]["strategy"] == {"type": "Recreate"}


def test_delete_from_primitive_list():
    obj = {"metadata": {"name": "x", "finalizers": ["a", "b", "c"]}}
    patch = {"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]}}
    assert strategic_merge.apply(obj, patch, "Pod")["metadata"]["finalizers"] == ["a", "c"]


def test_merge_list_element_without_its_key_is_rejected():
    with pytest.raises(ApiError) as err:
        strategic_merge.apply(pod(), {"spec": {"containers": [{"image": "x"}]}}, "Pod")
    assert err.value.code == 422


def test_env_merges_by_name_and_tolerations_replace():
    original = pod(tolerations=[{"key": "a", "operator": "Exists"}])
    original["spec"]["containers"][0]["env"] = [{"name": "A", "value": "1"}]
    patch = {
        "spec": {
            "tolerations": [{"key": "b", "operator": "Exists"}],
            "containers": [{"name": "nginx", "env": [{"name": "B", "value": "2"}]}],
        }
    }
    result = strategic_merge.apply(original, patch, "Pod")
    assert result["spec"]["tolerations"] == [{"key": "b", "operator": "Exists"}]
    assert result["spec"]["containers"][0]["env"] == [
        {"name": "A", "value": "1"},
        {"name": "B", "value": "2"},
    ]


def test_json_patch_operations():
    ops = [
        {"op": "replace", "path": "/spec/containers/0/image", "value": "nginx:1.16"},
        {"op": "add", "path": "/metadata/labels/tier", "value": "front"},
        {"op": "add", "path": "/spec/containers/-", "value": {"name": "b", "image": "busybox"}},
        {"op": "copy", "from": "/metadata/labels/app", "path": "/metadata/labels/copy"},
        {"op": "move", "from": "/metadata/labels/copy", "path": "/metadata/labels/moved"},
        {"op": "remove", "path": "/metadata/labels/app"},
        {"op": "test", "path": "/spec/containers/1/name", "value": "b"},
    ]
    result = json_patch.apply(pod(), ops)
    assert result["spec"]["containers"][0]["image"] == "nginx:1.16"
    assert result["metadata"]["labels"] == {"tier": "front", "moved": "web"}
    assert len(result["spec"]["containers"]) == 2


@pytest.mark.parametrize(
    "op",
    [
        {"op": "remove", "path": "/spec/nope"},
        {"op": "test", "path": "/metadata/name", "value": "other"},
        {"op": "replace", "path": "/spec/containers/5/image", "value": "x"},
        {"op": "frobnicate", "path": "/spec"},
    ],
)
def test_json_patch_failures_are_422_and_change_nothing(op):
    original = pod()
    with pytest.raises(ApiError) as err:
        json_patch.apply(original, [op])
    assert err.value.code == 422
    assert original == pod()
