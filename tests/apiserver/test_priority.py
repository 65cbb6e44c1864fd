"""PriorityClass validation and Priority admission, ported from upstream's
pkg/apis/scheduling/validation TestValidatePriorityClass(/Update) and
plugin/pkg/admission/priority TestPriorityClassAdmission / TestPodAdmission (v1.33)."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from tests.apiserver.conftest import pod


def pc(name: str, value: int, **extra) -> dict:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        **extra,
    }


def refused(cluster, actor, obj) -> api.ApiError:
    with pytest.raises(api.ApiError) as caught:
        api.create(cluster, obj, actor)
    return caught.value


def test_every_cluster_serves_the_system_classes(cluster):
    items, _ = api.list_objects(cluster, "PriorityClass")
    assert [(i["metadata"]["name"], i["value"], i["preemptionPolicy"]) for i in items] == [
        ("system-cluster-critical", 2000000000, "PreemptLowerPriority"),
        ("system-node-critical", 2000001000, "PreemptLowerPriority"),
    ]
    assert api.get(cluster, "PriorityClass", None, "system-node-critical")["description"] == (
        "Used for system critical pods that must not be moved from their current node."
    )


def test_validate_priority_class(cluster, actor):
    created = api.create(cluster, pc("tier1", 100, description="Used for some set of pods."), actor)
    assert created["preemptionPolicy"] == "PreemptLowerPriority"  # SetDefaults_PriorityClass
    err = refused(cluster, actor, pc("tier2", 1000000001))
    assert err.code == 422
    assert err.message == (
        'PriorityClass.scheduling.k8s.io "tier2" is invalid: value: Forbidden: maximum allowed value of a '
        "user defined priority is 1000000000"
    )
    err = refused(cluster, actor, pc("system-new", 100))
    assert (
        "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use "
        "only. error: system-new is not a known system priority class" in err.message
    )
    err = refused(cluster, actor, pc("system-node-critical", 100))
    assert "error: value of system-node-critical PriorityClass must be 2000001000" in err.message
    err = refused(cluster, actor, pc("system-node-critical", 2000001000))
    assert err.code == 409  # the very system class: it exists already
    err = refused(cluster, actor, pc("tier3", 1, preemptionPolicy="Sometimes"))
    assert (
        'preemptionPolicy: Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"'
        in err.message
    )


def test_validate_priority_class_update(cluster, actor):
    api.create(cluster, pc("tier1", 100), actor)
    with pytest.raises(api.ApiError) as caught:
        api.update(cluster, pc("tier1", 200), actor)
    assert "value: Forbidden: may not be changed in an update." in caught.value.message
    api.update(cluster, pc("tier1", 100, description="changed"), actor)


def test_priority_class_admission_allows_one_global_default(cluster, actor):
    api.create(cluster, pc("default1", 1000, globalDefault=True), actor)
    err = refused(cluster, actor, pc("default2", 2000, globalDefault=True))
    assert (err.code, err.reason) == (403, "Forbidden")
    assert err.message == (
        'priorityclasses.scheduling.k8s.io "default2" is forbidden: PriorityClass default1 is already marked '
        "as default. Only one default can exist"
    )
    api.update(cluster, pc("default1", 1000, globalDefault=True, description="same default"), actor)


def test_system_classes_cannot_be_deleted(cluster, actor):
    with pytest.raises(api.ApiError) as caught:
        api.delete(cluster, "PriorityClass", None, "system-cluster-critical", actor)
    assert caught.value.code == 403
    assert caught.value.message.endswith("this is a system priority class and cannot be deleted")


def test_pod_admission_resolves_the_class(cluster, actor):
    api.create(cluster, pc("high", 1000, preemptionPolicy="Never"), actor)
    created = api.create(cluster, pod("p", spec={"priorityClassName": "high"}), actor)
    assert (created["spec"]["priority"], created["spec"]["preemptionPolicy"]) == (1000, "Never")
    system = api.create(cluster, pod("s", spec={"priorityClassName": "system-cluster-critical"}), actor)
    assert system["spec"]["priority"] == 2000000000


def test_pod_admission_without_a_class_takes_the_global_default_or_zero(cluster, actor):
    plain = api.create(cluster, pod("before"), actor)
    assert (plain["spec"]["priority"], plain["spec"]["preemptionPolicy"]) == (0, "PreemptLowerPriority")
    assert "priorityClassName" not in plain["spec"]
    api.create(cluster, pc("everyone", 7, globalDefault=True), actor)
    defaulted = api.create(cluster, pod("after"), actor)
    assert (defaulted["spec"]["priorityClassName"], defaulted["spec"]["priority"]) == ("everyone", 7)


def test_pod_admission_errors(cluster, actor):
    err = refused(cluster, actor, pod("x", spec={"priorityClassName": "high"}))
    assert (err.code, err.message) == (
        403,
        'pods "x" is forbidden: no PriorityClass with name high was found',
    )
    err = refused(cluster, actor, pod("y", spec={"priority": 1000}))
    assert err.message == (
        'pods "y" is forbidden: the integer value of priority (1000) must not be provided in pod spec; '
        "priority admission controller computed 0 from the given PriorityClass name"
    )
    api.create(cluster, pc("never", 5, preemptionPolicy="Never"), actor)
    err = refused(
        cluster,
        actor,
        pod("z", spec={"priorityClassName": "never", "preemptionPolicy": "PreemptLowerPriority"}),
    )
    assert err.message == (
        'pods "z" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be '
        "provided in pod spec; priority admission controller computed Never from the given PriorityClass name"
    )
    generated = {"generateName": "web-"}
    err = refused(
        cluster,
        actor,
        {**pod(""), "metadata": generated, "spec": {**pod()["spec"], "priorityClassName": "nope"}},
    )
    assert err.message == 'pods "web-" is forbidden: no PriorityClass with name nope was found'
    same = api.create(cluster, pod("w", spec={"priorityClassName": "never", "priority": 5}), actor)
    assert same["spec"]["priority"] == 5  # a matching value is accepted


def test_a_pod_of_a_class_applied_again_is_unchanged(cluster, actor):
    api.create(cluster, pc("high", 1000), actor)
    manifest = (
        "apiVersion: v1\nkind: Pod\nmetadata: {name: again}\n"
        "spec:\n  priorityClassName: high\n  containers: [{name: c, image: nginx:1.15}]\n"
    )
    assert api.apply_manifests(cluster, manifest, actor)["objects"][0]["action"] == "created"
    again = api.apply_manifests(cluster, manifest, actor)
    assert again["objects"][0]["action"] == "unchanged"
    assert api.get(cluster, "Pod", "default", "again")["spec"]["priority"] == 1000
