"""RoleBindings (rbac.authorization.k8s.io/v1, `rolebindings`): upstream
`pkg/registry/rbac/rolebinding` (namespaced), SetDefaults_RoleBinding, ValidateRoleBinding,
printRoleBinding and kubectl's RoleBindingDescriber (cluster/kinds/rbac/bindings.py)."""

from __future__ import annotations

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kinds.rbac import bindings


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    bindings.validate(errors, obj, old, namespaced=True)


def describe(read, namespace: str, name: str) -> str:
    return bindings.describe_binding(read.get("RoleBinding", namespace, name))


KIND = KindInfo(
    kind="RoleBinding",
    plural="rolebindings",
    singular="rolebinding",
    group="rbac.authorization.k8s.io",
    version="v1",
    namespaced=True,
    name_rule="path",
    reset_rank=35,
    defaults=bindings.defaults,
    validate=validate,
    table=bindings.TABLE,
    describe=describe,
)
