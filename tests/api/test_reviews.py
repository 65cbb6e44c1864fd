"""SelfSubjectAccessReview, SelfSubjectRulesReview, SelfSubjectReview: answered by cluster.auth.access."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client

from cluster.models import ApiObject, Cluster
from tests.protobuf.wirebytes import envelope, msg, text

pytestmark = [pytest.mark.urls("tests.api.urls"), pytest.mark.django_db]

PROTOBUF = "application/vnd.kubernetes.protobuf"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "protobuf"
SSAR = "/clusters/demo/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
SSRR = "/clusters/demo/apis/authorization.k8s.io/v1/selfsubjectrulesreviews"
SSR = "/clusters/demo/apis/authentication.k8s.io/v1/selfsubjectreviews"


def ask(client, url: str, body: bytes, content_type: str = PROTOBUF, **headers):
    return client.generic("POST", url, body, content_type=content_type, headers=headers)


def can_i(client, verb: str, resource: str, group: str = "", namespace: str = "default") -> dict:
    """A SelfSubjectAccessReview in protobuf, as kubectl sends it; returns the answered status."""
    attributes = text(1, namespace) + text(2, verb) + (text(3, group) if group else b"") + text(5, resource)
    body = envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", msg(2, msg(1, attributes)))
    response = ask(client, SSAR, body)
    assert response.status_code == 201, response.content
    answer = response.json()
    assert answer["kind"] == "SelfSubjectAccessReview"
    assert answer["spec"]["resourceAttributes"]["verb"] == verb
    return answer["status"]


def test_kubectls_can_i_create_pods_is_yes_for_the_teacher(client, cluster):
    response = ask(client, SSAR, (FIXTURES / "selfsubjectaccessreview-create-pods.bin").read_bytes())
    assert response.status_code == 201
    assert response["Content-Type"] == "application/json"
    body = response.json()
    assert body["apiVersion"] == "authorization.k8s.io/v1"
    assert body["spec"] == {
        "resourceAttributes": {"namespace": "default", "verb": "create", "resource": "pods"}
    }
    assert body["status"] == {"allowed": True, "reason": "KubeSim: the teacher may do everything"}
    assert not ApiObject.objects.exists()  # a review stores nothing


def test_anonymous_may_read_but_not_write(cluster):
    anonymous = Client()
    assert can_i(anonymous, "create", "pods") == {"allowed": False}
    assert can_i(anonymous, "delete", "deployments", "apps") == {"allowed": False}
    assert can_i(anonymous, "list", "pods")["allowed"] is True
    assert can_i(anonymous, "watch", "nodes", namespace="")["allowed"] is True
    # Asking is itself allowed, as every user may create self-subject reviews.
    assert can_i(anonymous, "create", "selfsubjectaccessreviews", "authorization.k8s.io")["allowed"] is True


def test_the_class_may_write_switch_changes_the_answer(cluster):
    cluster.class_may_write = True
    cluster.save()
    assert can_i(Client(), "create", "pods")["allowed"] is True


def test_the_class_may_write_but_not_grant_rights_that_would_outlive_the_switch(cluster):
    cluster.class_may_write = True
    cluster.save()
    anonymous = Client()
    assert can_i(anonymous, "create", "rolebindings", "rbac.authorization.k8s.io") == {"allowed": False}
    assert can_i(anonymous, "create", "serviceaccounts/token") == {"allowed": False}
    assert can_i(anonymous, "list", "rolebindings", "rbac.authorization.k8s.io")["allowed"] is True


def test_a_sandbox_owner_may_write_their_sandbox_and_others_do_not_see_it(db):
    owner = User.objects.create_user("ana", password="pw")
    Cluster.objects.create(name="demo", public=False, owner=owner)
    mine = Client()
    mine.force_login(owner)
    status = can_i(mine, "create", "pods")
    assert status == {"allowed": True, "reason": 'KubeSim: "ana" owns cluster "demo"'}
    body = envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", b"")
    assert ask(Client(), SSAR, body).status_code == 404


def test_non_resource_review(client, cluster):
    body = json.dumps(
        {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SelfSubjectAccessReview",
            "spec": {"nonResourceAttributes": {"path": "/version", "verb": "get"}},
        }
    )
    response = ask(Client(), SSAR, body.encode(), "application/json")
    assert response.status_code == 201
    assert response.json()["status"]["allowed"] is True


@pytest.mark.parametrize(
    ("spec", "field", "why"),
    [
        (
            b"",
            "spec.resourceAttributes",
            "exactly one of nonResourceAttributes or resourceAttributes must be specified",
        ),
        (
            msg(1, text(2, "get")) + msg(2, text(1, "/x")),
            "spec.nonResourceAttributes",
            "cannot be specified in combination with resourceAttributes",
        ),
    ],
)
def test_a_review_without_exactly_one_attribute_set_is_invalid(client, cluster, spec, field, why):
    body = envelope("authorization.k8s.io/v1", "SelfSubjectAccessReview", msg(2, spec))
    response = ask(client, SSAR, body)
    assert response.status_code == 422
    assert response.json()["message"] == (
        f'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: {field}: Invalid value: "null": {why}'
    )


def test_malformed_review_is_400(client, cluster):
    response = ask(client, SSAR, b"k8s\x00\x0a\x05")
    assert response.status_code == 400
    assert response.json()["message"].startswith(
        "the object provided is unrecognized (must be of type SelfSubjectAccessReview): unexpected EOF"
    )


def test_whoami(client, cluster):
    fixture = (FIXTURES / "selfsubjectreview.bin").read_bytes()
    teacher = ask(client, SSR, fixture)
    assert teacher.status_code == 201
    body = teacher.json()
    assert body["kind"] == "SelfSubjectReview" and body["apiVersion"] == "authentication.k8s.io/v1"
    assert body["metadata"]["creationTimestamp"].endswith("Z")
    assert body["status"] == {
        "userInfo": {"username": "kubesim-presenter", "groups": ["system:masters", "system:authenticated"]}
    }
    anonymous = ask(Client(), SSR, fixture).json()["status"]
    assert anonymous == {"userInfo": {"username": "system:anonymous", "groups": ["system:unauthenticated"]}}


def test_rules_review(client, cluster):
    fixture = (FIXTURES / "selfsubjectrulesreview.bin").read_bytes()
    teacher = ask(client, SSRR, fixture).json()["status"]
    # Every binding's rules, as upstream lists them: cluster-admin's, then system:basic-user's.
    assert teacher["resourceRules"][0] == {"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}
    assert {
        "verbs": ["create"],
        "apiGroups": ["authentication.k8s.io"],
        "resources": ["selfsubjectreviews"],
    } in teacher["resourceRules"]
    anonymous = ask(Client(), SSRR, fixture).json()
    assert anonymous["spec"] == {"namespace": "default"}
    assert {"verbs": ["get", "list", "watch"], "apiGroups": ["*"], "resources": ["*"]} in anonymous["status"][
        "resourceRules"
    ]
    assert anonymous["status"]["incomplete"] is False


def test_a_bad_token_is_401_and_impersonation_is_the_cluster_admins(client, cluster):
    body = (FIXTURES / "selfsubjectreview.bin").read_bytes()
    assert ask(Client(), SSR, body, Authorization="Bearer nope").status_code == 401
    # The teacher (cluster-admin) may act as bob, who may only read.
    as_bob = ask(client, SSR, body, **{"Impersonate-User": "bob"})
    assert as_bob.status_code == 201
    assert as_bob.json()["status"]["userInfo"] == {"username": "bob", "groups": ["system:authenticated"]}
    # A student without the impersonate verb is refused in kube-apiserver's words.
    student = Client()
    student.force_login(User.objects.create_user("ana", password="pw"))
    refused = ask(student, SSAR, body, **{"Impersonate-User": "bob"})
    assert refused.status_code == 403
    assert refused.json()["message"] == (
        'users "bob" is forbidden: User "ana" cannot impersonate resource "users" '
        'in API group "" at the cluster scope'
    )


def test_reviews_are_create_only(client, cluster):
    assert client.get(SSAR).status_code == 405


def test_a_group_without_a_user_to_impersonate_is_400(client, cluster):
    body = (FIXTURES / "selfsubjectreview.bin").read_bytes()
    refused = ask(client, SSR, body, **{"Impersonate-Group": "system:masters"})
    assert refused.status_code == 400
    assert refused.json()["message"] == "requested [{Group system:masters}] without impersonating a user"
