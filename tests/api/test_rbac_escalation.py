"""RBAC's escalation check: a Role grants, and a binding binds, no more than its writer holds,
unless the writer may `escalate` or `bind` (kube-apiserver's RBAC storage)."""

from __future__ import annotations

import json

import pytest

from cluster.models import ApiObject

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]

RBAC = "/clusters/demo/apis/rbac.authorization.k8s.io/v1"
ROBOT = "system:serviceaccount:default:robot"


def post(client, path: str, body: dict, as_robot: bool = False):
    headers = {"Impersonate-User": ROBOT} if as_robot else {}
    return client.post(f"{RBAC}/{path}", json.dumps(body), content_type="application/json", headers=headers)


def role(name: str, *rules: dict, kind: str = "Role") -> dict:
    meta = {"name": name} if kind == "ClusterRole" else {"name": name, "namespace": "default"}
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": kind,
        "metadata": meta,
        "rules": list(rules),
    }


def binding(name: str, role_kind: str, role_name: str) -> dict:
    return {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "RoleBinding",
        "metadata": {"name": name, "namespace": "default"},
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": role_kind, "name": role_name},
        "subjects": [{"kind": "ServiceAccount", "name": "robot", "namespace": "default"}],
    }


@pytest.fixture
def robot(client, cluster):
    """A ServiceAccount that may read pods and write Roles and RoleBindings in default."""
    writer = role(
        "rbac-writer",
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]},
        {
            "apiGroups": ["rbac.authorization.k8s.io"],
            "resources": ["roles", "rolebindings"],
            "verbs": ["create"],
        },
    )
    assert post(client, "namespaces/default/roles", writer).status_code == 201
    assert (
        post(
            client, "namespaces/default/rolebindings", binding("robot-writes", "Role", "rbac-writer")
        ).status_code
        == 201
    )


def test_a_role_may_grant_what_its_writer_holds(client, robot):
    reader = role("pod-reader", {"apiGroups": [""], "resources": ["pods"], "verbs": ["get"]})
    assert post(client, "namespaces/default/roles", reader, as_robot=True).status_code == 201


def test_a_role_granting_more_is_refused_in_upstreams_words(client, robot):
    more = role(
        "pod-admin",
        {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "delete", "create"]},
        {"apiGroups": ["apps"], "resources": ["deployments", "deployments/scale"], "verbs": ["update"]},
    )
    response = post(client, "namespaces/default/roles", more, as_robot=True)
    assert response.status_code == 403
    body = response.json()
    assert body["message"] == (
        'roles.rbac.authorization.k8s.io "pod-admin" is forbidden: '
        'user "system:serviceaccount:default:robot" '
        '(groups=["system:serviceaccounts" "system:serviceaccounts:default" "system:authenticated"]) '
        "is attempting to grant RBAC permissions not currently held:\n"
        '{APIGroups:[""], Resources:["pods"], Verbs:["delete" "create"]}\n'
        '{APIGroups:["apps"], Resources:["deployments"], Verbs:["update"]}\n'
        '{APIGroups:["apps"], Resources:["deployments/scale"], Verbs:["update"]}'
    )
    assert body["details"] == {"name": "pod-admin", "group": "rbac.authorization.k8s.io", "kind": "roles"}
    assert not ApiObject.objects.filter(kind="Role", name="pod-admin").exists()


def test_a_binding_to_a_role_its_writer_does_not_hold_is_refused_until_it_may_bind(client, robot):
    response = post(
        client, "namespaces/default/rolebindings", binding("robot-edit", "ClusterRole", "edit"), True
    )
    assert response.status_code == 403
    assert response.json()["message"].startswith(
        'rolebindings.rbac.authorization.k8s.io "robot-edit" is forbidden: '
        'user "system:serviceaccount:default:robot" '
        '(groups=["system:serviceaccounts" "system:serviceaccounts:default" "system:authenticated"]) '
        "is attempting to grant RBAC permissions not currently held:\n{APIGroups:["
    )
    may_bind = role(
        "may-bind-edit",
        {
            "apiGroups": ["rbac.authorization.k8s.io"],
            "resources": ["clusterroles"],
            "verbs": ["bind"],
            "resourceNames": ["edit"],
        },
    )
    assert post(client, "namespaces/default/roles", may_bind).status_code == 201
    assert (
        post(
            client, "namespaces/default/rolebindings", binding("robot-binds", "Role", "may-bind-edit")
        ).status_code
        == 201
    )
    response = post(
        client, "namespaces/default/rolebindings", binding("robot-edit", "ClusterRole", "edit"), True
    )
    assert response.status_code == 201, response.content


def test_a_binding_to_a_missing_role_is_refused_with_the_lookups_words(client, robot):
    response = post(client, "namespaces/default/rolebindings", binding("ghost", "Role", "ghost"), True)
    assert response.status_code == 403
    assert response.json()["message"] == (
        'rolebindings.rbac.authorization.k8s.io "ghost" is forbidden: '
        'roles.rbac.authorization.k8s.io "ghost" not found'
    )


def test_the_teacher_grants_anything(client, cluster):
    everything = role("all", {"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}, kind="ClusterRole")
    assert post(client, "clusterroles", everything).status_code == 201
