"""A pod's ServiceAccount inside its containers: the projected kube-api-access volume the
ServiceAccount admission adds, its files (token, ca.crt, namespace), and the token used from the
exec shell against https://kubernetes.default.svc, refused or allowed by RBAC (docs/access.md)."""

from __future__ import annotations

import json

import pytest

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError
from cluster.auth.tls import root_ca_pem
from cluster.shell.pods import context_for
from tests.shell.support import run

pytestmark = pytest.mark.django_db
ACTOR = Actor(client="kubectl", detail="test")
MOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
CURL = f'curl -s --cacert {MOUNT}/ca.crt -H "Authorization: Bearer $(cat {MOUNT}/token)" '
API = "https://kubernetes.default.svc/api/v1/namespaces/default/pods"


def _pod(cluster, name: str, **spec) -> dict:
    body = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name},
        "spec": {"containers": [{"name": "main", "image": "nginx:1.25"}], **spec},
    }
    return api.create(cluster, body, ACTOR)


def test_every_pod_gets_the_kube_api_access_volume_mounted_read_only(demo_cluster):
    pod = _pod(demo_cluster, "web")
    volume = pod["spec"]["volumes"][0]
    assert (
        volume["name"].startswith("kube-api-access-") and len(volume["name"]) == len("kube-api-access-") + 5
    )
    assert volume["projected"] == {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {
                "downwardAPI": {
                    "items": [
                        {
                            "path": "namespace",
                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                        }
                    ]
                }
            },
        ],
        "defaultMode": 420,
    }
    mount = pod["spec"]["containers"][0]["volumeMounts"]
    assert mount == [{"name": volume["name"], "readOnly": True, "mountPath": MOUNT}]
    assert "volumes" not in _pod(demo_cluster, "quiet", automountServiceAccountToken=False)["spec"]


def test_a_pod_of_a_service_account_that_does_not_exist_is_refused(demo_cluster):
    with pytest.raises(ApiError) as refused:
        _pod(demo_cluster, "lost", serviceAccountName="robot")
    assert refused.value.code == 403
    assert refused.value.message == (
        'pods "lost" is forbidden: error looking up service account default/robot: '
        'serviceaccount "robot" not found'
    )


def test_the_token_files_and_the_api_from_inside_the_container(demo_cluster):
    api.create(
        demo_cluster, {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": "robot"}}, ACTOR
    )
    pod = _pod(demo_cluster, "client", serviceAccountName="robot")
    ctx = context_for(demo_cluster, pod, "main", tty=False, with_services=False)
    assert run(["ls", MOUNT], ctx=ctx)[1].split() == ["ca.crt", "namespace", "token"]
    assert run(["cat", f"{MOUNT}/namespace"], ctx=ctx)[1] == "default"
    assert run(["cat", f"{MOUNT}/ca.crt"], ctx=ctx)[1] == root_ca_pem()
    refused = json.loads(run(["sh", "-c", CURL + API], ctx=ctx)[1])
    assert refused["code"] == 403
    assert refused["message"] == (
        'pods is forbidden: User "system:serviceaccount:default:robot" cannot list resource "pods" '
        'in API group "" in the namespace "default"'
    )
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "Role",
        "metadata": {"name": "reader"},
        "rules": [{"verbs": ["list"], "apiGroups": [""], "resources": ["pods"]}],
    }
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": "robot-reads"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"},
        "subjects": [{"kind": "ServiceAccount", "name": "robot"}],
    }
    api.create(demo_cluster, role, ACTOR)
    api.create(demo_cluster, binding, ACTOR)
    allowed = json.loads(run(["sh", "-c", CURL + API], ctx=ctx)[1])
    assert allowed["kind"] == "PodList"
    assert [p["metadata"]["name"] for p in allowed["items"]] == ["client"]
    # Without the token the caller is anonymous, refused as before.
    anonymous = json.loads(run(["curl", "-sk", API], ctx=ctx)[1])
    assert anonymous["message"].startswith('forbidden: User "system:anonymous" cannot get path')
