"""ServiceAccounts, tokens and RBAC with the real kubectl: a ServiceAccount's token is refused in
kube-apiserver's words, then allowed once a Role and a RoleBinding grant it; `auth can-i --as`,
impersonation for writes, `auth whoami`, the objects every namespace has (docs/access.md)."""

from __future__ import annotations

import base64
import json
import time

import pytest

from cluster.kinds.core.pod import describe_pod
from tests.kubectl.conftest import Kubectl
from tests.support.waiting import without_ages

pytestmark = pytest.mark.kubectl

ROBOT = "system:serviceaccount:default:robot"


def _claims(token: str) -> dict:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def _as_token(kubectl: Kubectl, token: str, *args: str):
    return kubectl.run("--token", token, *args)


@pytest.fixture(scope="module")
def robot(kubectl) -> str:
    """The ServiceAccount `robot` in default, and a token for it."""
    assert kubectl.ok("create", "serviceaccount", "robot").strip() == "serviceaccount/robot created"
    return kubectl.ok("create", "token", "robot").strip()


def test_every_namespace_has_a_default_service_account_and_the_root_ca(kubectl):
    names = kubectl.ok("get", "serviceaccounts", "-A", "-o", "jsonpath={.items[*].metadata.name}").split()
    assert names.count("default") >= 4  # default, kube-node-lease, kube-public, kube-system
    ca = json.loads(kubectl.ok("get", "configmap", "kube-root-ca.crt", "-n", "kube-system", "-o", "json"))
    assert ca["data"]["ca.crt"].startswith("-----BEGIN CERTIFICATE-----")
    kubectl.ok("create", "namespace", "rbac-fresh")
    assert kubectl.ok("get", "sa", "-n", "rbac-fresh", "-o", "name").split() == ["serviceaccount/default"]
    assert kubectl.ok("get", "cm", "-n", "rbac-fresh", "-o", "name").split() == ["configmap/kube-root-ca.crt"]
    missing = kubectl.run("get", "sa", "default", "-n", "rbac-nowhere")
    assert missing.returncode != 0 and "(NotFound)" in missing.stderr


def test_create_token_is_a_jwt_for_the_service_account(kubectl, robot):
    claims = _claims(robot)
    assert claims["sub"] == ROBOT
    assert claims["aud"] == ["https://kubernetes.default.svc.cluster.local"]
    assert claims["kubernetes.io"]["serviceaccount"]["name"] == "robot"
    assert claims["exp"] - claims["iat"] == 3600
    longer = _claims(kubectl.ok("create", "token", "robot", "--duration=2h", "--audience=vault").strip())
    assert longer["exp"] - longer["iat"] == 7200 and longer["aud"] == ["vault"]
    short = kubectl.run("create", "token", "robot", "--duration=5m")
    assert "may not specify a duration less than 10 minutes" in short.stderr
    nobody = kubectl.run("create", "token", "nobody")
    assert nobody.stderr.strip() == 'error: failed to create token: serviceaccounts "nobody" not found'


def test_a_token_with_another_audience_or_forged_is_unauthorized(kubectl, robot):
    vault = kubectl.ok("create", "token", "robot", "--audience=vault").strip()
    for token in (vault, robot[:-4] + ("AAAA" if not robot.endswith("AAAA") else "BBBB")):
        refused = _as_token(kubectl, token, "get", "pods")
        assert refused.returncode != 0
        assert "Unauthorized" in refused.stderr or "provide credentials" in refused.stderr


def test_the_service_account_is_refused_then_allowed_by_a_role_binding(kubectl, robot):
    refused = _as_token(kubectl, robot, "get", "pods")
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): pods is forbidden: User "system:serviceaccount:default:robot" '
        'cannot list resource "pods" in API group "" in the namespace "default"'
    )
    assert kubectl.run("auth", "can-i", "list", "pods", f"--as={ROBOT}").stdout.strip() == "no"
    created = kubectl.ok("create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods")
    assert created.strip() == "role.rbac.authorization.k8s.io/pod-reader created"
    bound = kubectl.ok(
        "create", "rolebinding", "robot-reads", "--role=pod-reader", "--serviceaccount=default:robot"
    )
    assert bound.strip() == "rolebinding.rbac.authorization.k8s.io/robot-reads created"
    allowed = _as_token(kubectl, robot, "get", "pods")
    assert allowed.returncode == 0, allowed.stderr
    assert kubectl.run("auth", "can-i", "list", "pods", f"--as={ROBOT}").stdout.strip() == "yes"
    assert kubectl.run("auth", "can-i", "delete", "pods", f"--as={ROBOT}").stdout.strip() == "no"
    assert (
        kubectl.run("auth", "can-i", "list", "pods", "-n", "kube-system", f"--as={ROBOT}").stdout.strip()
        == "no"
    )
    writes = _as_token(kubectl, robot, "delete", "pod", "nothing-here")
    assert (
        'pods "nothing-here" is forbidden: User "system:serviceaccount:default:robot" cannot delete'
        in writes.stderr
    )
    listing = kubectl.ok("auth", "can-i", "--list", f"--as={ROBOT}")
    assert "pods " in listing and "[get list watch]" in listing
    assert "selfsubjectaccessreviews.authorization.k8s.io" in listing


def test_whoami_of_the_service_account_and_of_the_teacher(kubectl, robot):
    mine = _as_token(kubectl, robot, "auth", "whoami", "-o", "json")
    info = json.loads(mine.stdout)["status"]["userInfo"]
    assert info["username"] == ROBOT
    assert info["groups"] == [
        "system:serviceaccounts",
        "system:serviceaccounts:default",
        "system:authenticated",
    ]
    assert info["extra"]["authentication.kubernetes.io/credential-id"][0].startswith("JTI=")
    teacher = kubectl.ok("auth", "whoami")
    assert "kubesim-presenter" in teacher and "system:masters" in teacher
    as_robot = json.loads(kubectl.ok("auth", "whoami", f"--as={ROBOT}", "-o", "json"))["status"]["userInfo"]
    assert as_robot["username"] == ROBOT
    assert as_robot["groups"] == [
        "system:serviceaccounts",
        "system:serviceaccounts:default",
        "system:authenticated",
    ]


def test_impersonation_is_honoured_for_writes(kubectl):
    refused = kubectl.run("run", "asx", "--image=nginx", "--as=system:anonymous")
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): pods is forbidden: User "system:anonymous" cannot create resource '
        '"pods" in API group "" in the namespace "default"'
    )
    assert "asx" not in kubectl.ok("get", "pods", "-o", "name")
    masters = kubectl.run("auth", "can-i", "create", "pods", "--as=bob", "--as-group=system:masters")
    assert masters.stdout.strip() == "yes"
    assert kubectl.run("auth", "can-i", "create", "pods", "--as=bob").stdout.strip() == "no"


def test_without_the_impersonate_verb_impersonation_is_forbidden(kubectl, robot):
    refused = _as_token(kubectl, robot, "get", "pods", "--as=system:admin")
    assert refused.stderr.strip() == (
        'Error from server (Forbidden): users "system:admin" is forbidden: User '
        '"system:serviceaccount:default:robot" cannot impersonate resource "users" in API group "" at the '
        "cluster scope"
    )


def test_the_bootstrap_roles(kubectl):
    roles = kubectl.ok("get", "clusterroles", "-o", "name").split()
    for name in ("admin", "cluster-admin", "edit", "view", "system:basic-user", "system:discovery"):
        assert f"clusterrole.rbac.authorization.k8s.io/{name}" in roles
    view = json.loads(kubectl.ok("get", "clusterrole", "view", "-o", "json"))
    assert view["aggregationRule"]["clusterRoleSelectors"] == [
        {"matchLabels": {"rbac.authorization.k8s.io/aggregate-to-view": "true"}}
    ]
    assert any("pods" in rule.get("resources", []) for rule in view["rules"])
    binding = json.loads(kubectl.ok("get", "clusterrolebinding", "cluster-admin", "-o", "json"))
    assert binding["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "system:masters"}
    ]
    wide = kubectl.ok("get", "rolebinding", "robot-reads", "-o", "wide")
    assert wide.split("\n")[0].split() == ["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"]
    assert "Role/pod-reader" in wide and "default/robot" in wide


POD = """apiVersion: v1
kind: Pod
metadata: {name: token-client}
spec:
  serviceAccountName: robot
  containers:
  - name: main
    image: nginx:1.25
"""
MOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"


def test_a_pod_has_the_token_file_and_describe_shows_its_volume_as_kubectl(kubectl, robot):
    kubectl.ok("apply", "-f", "-", stdin=POD)
    for _ in range(150):
        pod = json.loads(kubectl.ok("get", "pod", "token-client", "-o", "json"))
        statuses = pod.get("status", {}).get("containerStatuses") or []
        if statuses and "running" in (statuses[0].get("state") or {}):
            break
        time.sleep(0.2)
    assert kubectl.ok("exec", "token-client", "--", "ls", MOUNT).split() == ["ca.crt", "namespace", "token"]
    token = kubectl.ok("exec", "token-client", "--", "cat", f"{MOUNT}/token")
    claims = _claims(token)
    assert claims["sub"] == ROBOT and claims["kubernetes.io"]["pod"]["name"] == "token-client"
    described = kubectl.ok("describe", "pod", "token-client")
    assert "Projected (a volume that contains injected data from multiple sources)" in described
    volumes = described[described.index("Volumes:") : described.index("QoS Class:")]
    ours = describe_pod(pod, [])
    assert without_ages(volumes) == without_ages(ours[ours.index("Volumes:") : ours.index("QoS Class:")])
