"""ClusterRoleBindings (rbac.authorization.k8s.io/v1, `clusterrolebindings`, cluster-scoped):
upstream `pkg/registry/rbac/clusterrolebinding`, SetDefaults_ClusterRoleBinding,
ValidateClusterRoleBinding, printClusterRoleBinding, kubectl's describer, and the bootstrap
bindings (cluster/kinds/rbac/bootstrap.py)."""

from __future__ import annotations

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import BuiltinObjects, KindInfo
from cluster.kinds.rbac import bindings, bootstrap


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    bindings.validate(errors, obj, old, namespaced=False)


def describe(read, namespace: str, name: str) -> str:
    return bindings.describe_binding(read.get("ClusterRoleBinding", None, name))


KIND = KindInfo(
    kind="ClusterRoleBinding",
    plural="clusterrolebindings",
    singular="clusterrolebinding",
    group="rbac.authorization.k8s.io",
    version="v1",
    namespaced=False,
    name_rule="path",
    reset_rank=85,
    defaults=bindings.defaults,
    validate=validate,
    table=bindings.TABLE,
    describe=describe,
    builtins=BuiltinObjects(
        keys=tuple(("", name) for name in bootstrap.BINDING_NAMES),
        build=bootstrap.cluster_role_binding,
        stored_on_write=True,
    ),
)
