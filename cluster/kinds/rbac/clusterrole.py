"""ClusterRoles (rbac.authorization.k8s.io/v1, `clusterroles`, cluster-scoped): upstream
`pkg/registry/rbac/clusterrole`, ValidateClusterRole, the default table (NAME, CREATED AT),
kubectl's RoleDescriber, and the bootstrap roles (cluster/kinds/rbac/bootstrap.py)."""

from __future__ import annotations

from cluster.apiserver.defaults import no_defaults
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import BuiltinObjects, KindInfo
from cluster.kinds.rbac import bootstrap
from cluster.kinds.rbac.role import TABLE
from cluster.kinds.rbac.rules import describe_role, validate_rules


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    validate_rules(errors, obj.get("rules"), namespaced=False)
    aggregation = obj.get("aggregationRule")
    if isinstance(aggregation, dict) and not aggregation.get("clusterRoleSelectors"):
        errors.required("aggregationRule.clusterRoleSelectors")


def describe(read, namespace: str, name: str) -> str:
    return describe_role(read.get("ClusterRole", None, name))


KIND = KindInfo(
    kind="ClusterRole",
    plural="clusterroles",
    singular="clusterrole",
    group="rbac.authorization.k8s.io",
    version="v1",
    namespaced=False,
    name_rule="path",
    reset_rank=90,
    defaults=no_defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
    builtins=BuiltinObjects(
        keys=tuple(("", name) for name in bootstrap.ROLE_NAMES),
        build=bootstrap.cluster_role,
        stored_on_write=True,
    ),
)
