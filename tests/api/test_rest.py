"""The REST API speaks Kubernetes: paths, status codes, Status errors, application/json."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client

from cluster.models import ApiObject, Cluster, WatchEvent
from tests.api.conftest import PODS, pod_json, post_pod

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]


def status_of(response) -> dict:
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["kind"] == "Status" and body["code"] == response.status_code
    return body


def test_create_is_201_with_server_fields(client, cluster):
    response = post_pod(client)
    assert response.status_code == 201
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["metadata"]["resourceVersion"] == "1"
    assert body["metadata"]["uid"]
    assert body["spec"]["schedulerName"] == "default-scheduler"


def test_kubectl_writes_with_a_token_need_no_csrf_token(cluster, teacher_headers):
    client = Client(enforce_csrf_checks=True, HTTP_USER_AGENT="kubectl/v1.33.1 (linux/amd64)")
    assert post_pod(client, headers=teacher_headers).status_code == 201


def test_get_missing_pod_is_not_found_status(client, cluster):
    body = status_of(client.get(f"{PODS}/nope"))
    assert body["message"] == 'pods "nope" not found'
    assert body["details"] == {"name": "nope", "kind": "pods"}


def test_delete_is_200_with_the_object(client, cluster):
    post_pod(client)
    response = client.delete(f"{PODS}/web")
    assert response.status_code == 200
    assert response.json()["metadata"]["name"] == "web"
    assert response.json()["metadata"]["resourceVersion"] == "2"
    assert not ApiObject.objects.exists()


def test_put_with_stale_resource_version_is_409(client, cluster):
    post_pod(client)
    stale = client.get(f"{PODS}/web").json()
    fresh = client.get(f"{PODS}/web").json()
    fresh["metadata"]["labels"] = {"a": "1"}
    assert client.put(f"{PODS}/web", json.dumps(fresh), content_type="application/json").status_code == 200
    stale["metadata"]["labels"] = {"a": "2"}
    body = status_of(client.put(f"{PODS}/web", json.dumps(stale), content_type="application/json"))
    assert body["reason"] == "Conflict"


def test_patch_labels_like_kubectl_label(client, cluster):
    post_pod(client)
    response = client.patch(
        f"{PODS}/web", '{"metadata":{"labels":{"zz":"cxk"}}}', content_type="application/merge-patch+json"
    )
    assert response.status_code == 200
    assert response.json()["metadata"]["labels"] == {"zz": "cxk"}


def test_malformed_json_is_400_and_changes_nothing(client, cluster):
    body = status_of(client.post(PODS, '{"apiVersion": "v1", "kind": ', content_type="application/json"))
    assert body["reason"] == "BadRequest"
    assert "line 1" in body["message"]
    assert not WatchEvent.objects.exists()


def test_malformed_yaml_body_is_400(client, cluster):
    body = status_of(client.post(PODS, "kind: Pod\nmetadata: [oops\n", content_type="application/yaml"))
    assert body["reason"] == "BadRequest"
    assert "line" in body["message"]


def test_yaml_body_is_accepted(client, cluster):
    text = "apiVersion: v1\nkind: Pod\nmetadata: {name: y}\nspec:\n  containers: [{name: c, image: nginx}]\n"
    assert client.post(PODS, text, content_type="application/yaml").status_code == 201


def test_twenty_megabyte_body_is_413_and_changes_nothing(client, cluster):
    pod = json.loads(pod_json())
    pod["metadata"]["annotations"] = {"padding": "x" * (20 * 1024 * 1024)}
    huge = json.dumps(pod)
    assert len(huge) > 20 * 1024 * 1024
    body = status_of(client.post(PODS, huge, content_type="application/json"))
    assert (body["code"], body["reason"]) == (413, "RequestEntityTooLarge")
    assert not ApiObject.objects.exists()


def test_invalid_object_is_422_with_causes(client, cluster):
    body = status_of(post_pod(client, "Bad_Name"))
    assert body["reason"] == "Invalid"
    assert body["details"]["causes"][0]["field"] == "metadata.name"
    assert body["message"].startswith('Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name"')


def test_an_invalid_label_is_422_and_an_invalid_quantity_400(client, cluster):
    assert post_pod(client, labels={"app": "no spaces"}).status_code == 422
    pod = json.loads(pod_json())
    pod["spec"]["containers"][0]["resources"] = {"limits": {"memory": "12XB"}}
    assert status_of(client.post(PODS, json.dumps(pod), content_type="application/json"))["code"] == 400
    assert not ApiObject.objects.exists()


def test_unknown_resource_is_404(client, cluster):
    body = status_of(client.get("/clusters/demo/api/v1/namespaces/default/gizmos"))
    assert body["message"] == "the server could not find the requested resource"


def test_body_kind_that_is_unknown_is_400(client, cluster):
    body = json.dumps({"apiVersion": "v1", "kind": "Gizmo", "metadata": {"name": "g"}})
    assert status_of(client.post(PODS, body, content_type="application/json"))["code"] == 400


def test_unknown_cluster_is_404(client, cluster):
    assert status_of(client.get("/clusters/nowhere/api/v1/nodes"))["code"] == 404


def test_cluster_wide_and_namespaced_lists(client, cluster):
    post_pod(client, "a", labels={"app": "web"})
    client.post(
        "/clusters/demo/api/v1/namespaces/kube-system/pods",
        pod_json("b", labels={"app": "web"}),
        content_type="application/json",
    )
    everywhere = client.get("/clusters/demo/api/v1/pods?labelSelector=app%3Dweb").json()
    assert everywhere["kind"] == "PodList"
    assert everywhere["metadata"]["resourceVersion"] == "2"
    assert [p["metadata"]["name"] for p in everywhere["items"]] == ["a", "b"]
    assert [p["metadata"]["name"] for p in client.get(PODS).json()["items"]] == ["a"]


def test_bad_selector_is_400(client, cluster):
    assert status_of(client.get(f"{PODS}?labelSelector=app%20in%20(")).get("code") == 400
    assert status_of(client.get(f"{PODS}?fieldSelector=spec.image%3Dx")).get("code") == 400


def test_namespace_mismatch_is_400(client, cluster):
    response = client.post(
        "/clusters/demo/api/v1/namespaces/kube-system/pods", pod_json(), content_type="application/json"
    )
    assert response.status_code == 201
    body = json.loads(pod_json("x"))
    body["metadata"]["namespace"] = "other"
    assert status_of(client.post(PODS, json.dumps(body), content_type="application/json"))["code"] == 400


def test_binding_subresource(client, cluster):
    post_pod(client)
    binding = json.dumps(
        {"apiVersion": "v1", "kind": "Binding", "metadata": {"name": "web"}, "target": {"name": "node1"}}
    )
    response = client.post(f"{PODS}/web/binding", binding, content_type="application/json")
    assert response.status_code == 201 and response.json()["status"] == "Success"
    assert client.get(f"{PODS}/web").json()["spec"]["nodeName"] == "node1"
    assert (
        status_of(client.post(f"{PODS}/web/binding", binding, content_type="application/json"))["code"] == 409
    )


def test_scale_subresource_for_deployments(client, cluster):
    deploy = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {
            "selector": {"matchLabels": {"app": "d"}},
            "template": {
                "metadata": {"labels": {"app": "d"}},
                "spec": {"containers": [{"name": "c", "image": "nginx"}]},
            },
        },
    }
    base = "/clusters/demo/apis/apps/v1/namespaces/default/deployments"
    assert client.post(base, json.dumps(deploy), content_type="application/json").status_code == 201
    scale = client.patch(
        f"{base}/d/scale", '{"spec":{"replicas":3}}', content_type="application/merge-patch+json"
    )
    assert scale.status_code == 200
    assert scale.json()["spec"]["replicas"] == 3
    assert client.get(f"{base}/d/scale").json()["status"]["selector"] == "app=d"
    assert client.get(f"{base}/d").json()["spec"]["replicas"] == 3


def test_nodes_and_namespaces_are_cluster_scoped(client, cluster):
    node = json.dumps({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}})
    assert (
        client.post("/clusters/demo/api/v1/nodes", node, content_type="application/json").status_code == 201
    )
    assert client.get("/clusters/demo/api/v1/nodes/node1").json()["metadata"]["name"] == "node1"
    names = [n["metadata"]["name"] for n in client.get("/clusters/demo/api/v1/namespaces").json()["items"]]
    assert names == ["default", "kube-node-lease", "kube-public", "kube-system"]


def test_leases_are_served(client, cluster):
    lease = json.dumps(
        {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {"name": "node1"},
            "spec": {"holderIdentity": "node1", "leaseDurationSeconds": 40},
        }
    )
    url = "/clusters/demo/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"
    assert client.post(url, lease, content_type="application/json").status_code == 201
    assert client.get(f"{url}/node1").json()["spec"]["holderIdentity"] == "node1"


def test_dry_run_changes_nothing(client, cluster):
    response = client.post(f"{PODS}?dryRun=All", pod_json(), content_type="application/json")
    assert response.status_code == 201
    assert response.json()["metadata"]["name"] == "web"
    assert not ApiObject.objects.exists() and not WatchEvent.objects.exists()


def test_private_cluster_is_hidden_from_others(db):
    client = Client()
    owner = User.objects.create_user("student_a")
    Cluster.objects.create(name="sandbox", public=False, owner=owner)
    assert client.get("/clusters/sandbox/api/v1/nodes").status_code == 404
    User.objects.create_user("student_b")
    client.force_login(User.objects.get(username="student_b"))
    assert client.get("/clusters/sandbox/api/v1/nodes").status_code == 404
    client.force_login(owner)
    assert client.get("/clusters/sandbox/api/v1/nodes").status_code == 200
    client.force_login(User.objects.create_user("teacher", is_staff=True))
    assert client.get("/clusters/sandbox/api/v1/nodes").status_code == 200


def test_dashboard_header_makes_a_web_actor(client, cluster):
    from cluster.api.http import actor_for

    request = client.post(
        PODS, pod_json(), content_type="application/json", HTTP_X_KUBESIM_CLIENT="web"
    ).wsgi_request
    assert actor_for(request).client == "web"


def test_table_output_for_kubectl_get(client, cluster):
    post_pod(client)
    accept = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"
    table = client.get(PODS, HTTP_ACCEPT=accept).json()
    assert table["kind"] == "Table" and table["apiVersion"] == "meta.k8s.io/v1"
    assert table["columnDefinitions"][0]["name"] == "Name"
    assert table["rows"][0]["cells"][0] == "web"
    single = client.get(f"{PODS}/web", HTTP_ACCEPT=accept).json()
    assert single["kind"] == "Table" and len(single["rows"]) == 1


def test_log_of_missing_pod_is_404_and_container_must_be_named(client, cluster):
    assert status_of(client.get(f"{PODS}/nope/log"))["code"] == 404
    pod = json.loads(pod_json("two"))
    pod["spec"]["containers"].append({"name": "side", "image": "busybox"})
    client.post(PODS, json.dumps(pod), content_type="application/json")
    body = status_of(client.get(f"{PODS}/two/log"))
    assert body["message"] == "a container name must be specified for pod two, choose one of: [web side]"
    body = status_of(client.get(f"{PODS}/two/log?container=nope"))
    assert body["message"] == "container nope is not valid for pod two"


def test_strict_field_validation_rejects_unknown_fields(client, cluster):
    pod = json.loads(pod_json())
    pod["spec"]["containers"][0]["imagee"] = "typo"
    body = status_of(
        client.post(f"{PODS}?fieldValidation=Strict", json.dumps(pod), content_type="application/json")
    )
    assert body["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
        'unknown field "spec.containers[0].imagee"'
    )
    warned = client.post(PODS, json.dumps(pod), content_type="application/json")
    assert warned.status_code == 201
    assert "spec.containers[0].imagee" in warned["Warning"]
    assert "imagee" not in warned.json()["spec"]["containers"][0]
