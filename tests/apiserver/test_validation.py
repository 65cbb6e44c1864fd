"""Bad objects get a 422 Invalid Status that names the field, and nothing is written."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.models import ApiObject, WatchEvent
from tests.apiserver.conftest import pod

SUBDOMAIN = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
    r"validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
)


def refused(cluster, actor, obj) -> api.ApiError:
    with pytest.raises(api.ApiError) as caught:
        api.create(cluster, obj, actor)
    cluster.refresh_from_db()
    assert cluster.revision == 0
    assert not ApiObject.objects.filter(cluster=cluster).exists()
    assert not WatchEvent.objects.filter(cluster=cluster).exists()
    return caught.value


def test_invalid_name_gets_kubernetes_message(cluster, actor):
    err = refused(cluster, actor, pod("Bad_Name"))
    assert err.code == 422 and err.reason == "Invalid"
    assert err.message == f'Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": {SUBDOMAIN}'
    assert err.status()["details"]["causes"] == [
        {
            "reason": "FieldValueInvalid",
            "message": f'Invalid value: "Bad_Name": {SUBDOMAIN}',
            "field": "metadata.name",
        }
    ]


def test_missing_name_is_required(cluster, actor):
    err = refused(cluster, actor, pod(""))
    assert err.message == 'Pod "" is invalid: metadata.name: Required value: name or generateName is required'


def test_invalid_label_value_names_the_field(cluster, actor):
    err = refused(cluster, actor, pod(metadata={"labels": {"app": "not ok!"}}))
    assert err.message.startswith(
        'Pod "web" is invalid: metadata.labels: Invalid value: "not ok!": a valid label'
    )
    assert "regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'" in err.message


def test_invalid_label_key_names_the_field(cluster, actor):
    err = refused(cluster, actor, pod(metadata={"labels": {"bad key": "x"}}))
    assert 'metadata.labels: Invalid value: "bad key": name part must consist of' in err.message


def test_an_invalid_quantity_is_refused_by_the_decoder_as_kube_apiserver_refuses_it(cluster, actor):
    # resource.Quantity's UnmarshalJSON parses the string: a bad one fails the body's decoding (400).
    obj = pod()
    obj["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "lots"}}
    err = refused(cluster, actor, obj)
    assert (err.code, err.message) == (
        400,
        'Pod in version "v1" cannot be handled as a Pod: '
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    )
    obj["spec"]["containers"][0]["resources"] = {"requests": {"memory": "32MMi"}}
    assert refused(cluster, actor, obj).message.endswith(
        "cannot be handled as a Pod: unable to parse quantity's suffix"
    )


def test_request_above_limit_is_invalid(cluster, actor):
    obj = pod()
    obj["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}}
    err = refused(cluster, actor, obj)
    assert (
        'spec.containers[0].resources.requests: Invalid value: "2": '
        "must be less than or equal to cpu limit of 1" in err.message
    )


def test_several_errors_are_listed_in_brackets(cluster, actor):
    obj = pod(image="")
    obj["spec"]["containers"].append({"name": "web", "image": "nginx"})
    err = refused(cluster, actor, obj)
    assert err.message == (
        'Pod "web" is invalid: [spec.containers[0].image: Required value, '
        'spec.containers[1].name: Duplicate value: "web"]'
    )
    assert [c["field"] for c in err.details["causes"]] == [
        "spec.containers[0].image",
        "spec.containers[1].name",
    ]


def test_pod_without_containers_is_invalid(cluster, actor):
    err = refused(cluster, actor, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}, "spec": {}})
    assert err.message == 'Pod "x" is invalid: spec.containers: Required value'


def test_unsupported_restart_policy(cluster, actor):
    err = refused(cluster, actor, pod(spec={"restartPolicy": "Sometimes"}))
    assert (
        'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'
        in err.message
    )


def test_image_with_spaces_is_invalid(cluster, actor):
    err = refused(cluster, actor, pod(image=" nginx"))
    assert (
        'spec.containers[0].image: Invalid value: " nginx": must not have leading or trailing whitespace'
        in err.message
    )


def test_unknown_kind_is_a_bad_request(cluster, actor):
    err = refused(cluster, actor, {"apiVersion": "v1", "kind": "Gizmo", "metadata": {"name": "x"}})
    assert (err.code, err.reason) == (400, "BadRequest")
    assert err.message == 'no matches for kind "Gizmo" in version "v1"'


def test_wrong_api_version_for_kind_is_a_bad_request(cluster, actor):
    err = refused(cluster, actor, {**pod(), "apiVersion": "apps/v1"})
    assert err.message == 'no matches for kind "Pod" in version "apps/v1"'


def test_unknown_namespace_is_not_found(cluster, actor):
    err = refused(cluster, actor, pod(metadata={"namespace": "nowhere"}))
    assert (err.code, err.message) == (404, 'namespaces "nowhere" not found')


def test_rc_selector_must_match_template_labels(cluster, actor):
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc"},
        "spec": {
            "selector": {"app": "a"},
            "template": {
                "metadata": {"labels": {"app": "b"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }
    err = refused(cluster, actor, rc)
    assert err.message == (
        'ReplicationController "rc" is invalid: spec.template.metadata.labels: Invalid value: '
        'map[string]string{"app":"b"}: selector does not match template labels'
    )


def test_deployment_needs_a_selector(cluster, actor):
    deploy = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "template": {
                "metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            }
        },
    }
    err = refused(cluster, actor, deploy)
    assert err.message == 'Deployment.apps "d" is invalid: spec.selector: Required value'
    assert err.details["group"] == "apps"


def test_negative_replicas_are_invalid(cluster, actor):
    rc = {
        "apiVersion": "v1",
        "kind": "ReplicationController",
        "metadata": {"name": "rc"},
        "spec": {
            "replicas": -1,
            "template": {
                "metadata": {"labels": {"app": "a"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }
    err = refused(cluster, actor, rc)
    assert "spec.replicas: Invalid value: -1: must be greater than or equal to 0" in err.message


def test_node_taint_effect_must_be_known(cluster, actor):
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "spec": {"taints": [{"key": "k", "value": "v", "effect": "Sometimes"}]},
    }
    err = refused(cluster, actor, node)
    assert (
        'spec.taints[0].effect: Unsupported value: "Sometimes": '
        'supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"' in err.message
    )


def test_pod_spec_is_immutable_except_images(cluster, actor):
    api.create(cluster, pod(), actor)
    changed = api.get(cluster, "Pod", "default", "web")
    changed["spec"]["containers"][0]["image"] = "nginx:1.26"
    assert api.update(cluster, changed, actor)["spec"]["containers"][0]["image"] == "nginx:1.26"
    changed = api.get(cluster, "Pod", "default", "web")
    changed["spec"]["restartPolicy"] = "Never"
    with pytest.raises(api.ApiError) as caught:
        api.update(cluster, changed, actor)
    assert caught.value.message.startswith(
        'Pod "web" is invalid: spec: Forbidden: pod updates may not change fields'
    )
