"""Namespace deletion as upstream: Terminating, emptied by the namespace controller (pods
gracefully), upstream's conditions, a stuck finalizer keeping it, then gone."""

from __future__ import annotations

import json

import pytest

from cluster.apiserver import service as api
from cluster.kinds.core.namespace import describe_namespace
from cluster.models import ApiObject
from tests.support.demo import KUBECTL, drive

pytestmark = pytest.mark.django_db(transaction=True)
MERGE = "application/merge-patch+json"


def namespace(name: str = "dev") -> dict:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}}


def pod(name: str, ns: str = "dev") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"nodeName": "node1", "containers": [{"name": "c", "image": "nginx:1.27"}]},
    }


def held_config_map(ns: str = "dev") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {"name": "held", "namespace": ns, "finalizers": ["example.com/hold"]},
    }


def conditions(demo, name: str = "dev") -> dict[str, tuple[str, str, str]]:
    ns = api.get(demo, "Namespace", None, name)
    return {c["type"]: (c["status"], c["reason"], c["message"]) for c in ns["status"].get("conditions") or []}


def gone(demo, kind: str, ns: str | None, name: str) -> bool:
    try:
        api.get(demo, kind, ns, name)
    except api.ApiError as err:
        return err.code == 404
    return False


def test_a_deleted_namespace_is_terminating_emptied_and_then_gone(demo, fake_clock):
    api.create(demo, namespace(), KUBECTL)
    api.create(demo, pod("web"), KUBECTL)
    api.create(
        demo,
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "dev"}},
        KUBECTL,
    )
    drive()
    marked = api.delete(demo, "Namespace", None, "dev", KUBECTL)
    assert marked["status"]["phase"] == "Terminating" and marked["metadata"]["deletionTimestamp"]
    assert marked["spec"]["finalizers"] == ["kubernetes"]
    with pytest.raises(api.ApiError) as caught:  # a second delete, as upstream answers it
        api.delete(demo, "Namespace", None, "dev", KUBECTL)
    assert caught.value.code == 409
    assert caught.value.message == (
        'Operation cannot be fulfilled on namespaces "dev": The system is ensuring all content is removed '
        "from this namespace.  Upon completion, this namespace will automatically be purged by the system."
    )
    with pytest.raises(api.ApiError) as caught:
        api.create(demo, pod("late"), KUBECTL)
    assert (caught.value.code, caught.value.message) == (
        403,
        'pods "late" is forbidden: unable to create new content in namespace dev because it is being '
        "terminated",
    )
    assert caught.value.details["causes"] == [
        {
            "reason": "NamespaceTerminating",
            "message": "namespace dev is being terminated",
            "field": "metadata.namespace",
        }
    ]
    drive()
    assert gone(demo, "ConfigMap", "dev", "c")
    assert api.get(demo, "Pod", "dev", "web")["metadata"]["deletionTimestamp"]  # graceful
    found = conditions(demo)
    assert list(found) == [
        "NamespaceDeletionDiscoveryFailure",
        "NamespaceDeletionGroupVersionParsingFailure",
        "NamespaceDeletionContentFailure",
        "NamespaceContentRemaining",
        "NamespaceFinalizersRemaining",
    ]
    assert found["NamespaceDeletionDiscoveryFailure"] == (
        "False",
        "ResourcesDiscovered",
        "All resources successfully discovered",
    )
    assert found["NamespaceContentRemaining"] == (
        "True",
        "SomeResourcesRemain",
        "Some resources are remaining: pods. has 1 resource instances",
    )
    assert found["NamespaceFinalizersRemaining"] == (
        "False",
        "ContentRemoved",
        "All content successfully removed",
    )
    fake_clock.advance(2)  # nginx stops in 1 s; its kubelet deletes it
    drive()
    assert gone(demo, "Pod", "dev", "web")
    assert gone(demo, "Namespace", None, "dev")


def test_a_stuck_finalizer_keeps_the_namespace_terminating_until_it_is_removed(demo, fake_clock):
    api.create(demo, namespace(), KUBECTL)
    api.create(demo, held_config_map(), KUBECTL)
    api.delete(demo, "Namespace", None, "dev", KUBECTL)
    drive()
    fake_clock.advance(20)
    drive()
    assert api.get(demo, "ConfigMap", "dev", "held")["metadata"]["deletionTimestamp"]
    found = conditions(demo)
    assert found["NamespaceFinalizersRemaining"] == (
        "True",
        "SomeFinalizerRemain",
        "Some finalizers are remaining: example.com/hold in 1 resource instances",
    )
    assert (
        found["NamespaceContentRemaining"][2]
        == "Some resources are remaining: configmaps. has 1 resource instances"
    )
    assert api.get(demo, "Namespace", None, "dev")["status"]["phase"] == "Terminating"
    described = describe_namespace(api.get(demo, "Namespace", None, "dev"), [], []).splitlines()
    assert described[4] == "Conditions:"  # the layout is kubectl's own (tests/kubectl/test_finalizers.py)
    assert described[5].split() == ["Type", "Status", "LastTransitionTime", "Reason", "Message"]
    assert described[11].split()[:2] == ["NamespaceFinalizersRemaining", "True"]
    api.patch(demo, "ConfigMap", "dev", "held", {"metadata": {"finalizers": None}}, MERGE, KUBECTL)
    fake_clock.advance(10)  # the controller's next look (nothing it watches changed)
    drive()
    assert gone(demo, "Namespace", None, "dev")
    assert not ApiObject.objects.filter(namespace="dev").exists()


def test_the_system_namespaces_cannot_be_deleted(demo):
    for name in ("default", "kube-system", "kube-public", "kube-node-lease"):
        with pytest.raises(api.ApiError) as caught:
            api.delete(demo, "Namespace", None, name, KUBECTL)
        assert (caught.value.code, caught.value.message) == (
            403,
            f'namespaces "{name}" is forbidden: this namespace may not be deleted',
        )


def test_the_finalize_subresource_forces_a_stuck_namespace_out_and_a_plain_update_cannot(
    demo, teacher_client
):
    api.create(demo, namespace(), KUBECTL)
    api.create(demo, held_config_map(), KUBECTL)
    api.delete(demo, "Namespace", None, "dev", KUBECTL)
    ns = api.get(demo, "Namespace", None, "dev")
    ns["spec"]["finalizers"] = []
    api.update(demo, ns, KUBECTL)  # kubectl edit: spec.finalizers are kept
    assert api.get(demo, "Namespace", None, "dev")["spec"]["finalizers"] == ["kubernetes"]
    ns = api.get(demo, "Namespace", None, "dev")
    ns["spec"]["finalizers"] = []
    answer = teacher_client.put(
        "/clusters/demo/api/v1/namespaces/dev/finalize", json.dumps(ns), content_type="application/json"
    )
    assert answer.status_code == 200, answer.content
    assert gone(demo, "Namespace", None, "dev")
