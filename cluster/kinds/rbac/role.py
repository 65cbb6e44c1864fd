"""Roles (rbac.authorization.k8s.io/v1, `roles`): upstream `pkg/registry/rbac/role` (namespaced),
ValidateRole, the default table (NAME, CREATED AT) and kubectl's RoleDescriber."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.defaults import no_defaults
from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.kinds import KindInfo
from cluster.kinds.rbac.rules import describe_role, validate_rules
from cluster.kubeapi.tables import NAME_COLUMN, TableSpec


def validate(errors: FieldErrors, obj: dict, old: dict | None) -> None:
    validate_rules(errors, obj.get("rules"), namespaced=True)


def _row(obj: dict, now: datetime) -> list:
    return [obj["metadata"]["name"], obj["metadata"].get("creationTimestamp")]


TABLE = TableSpec((NAME_COLUMN, ("Created At", "date", "", 0)), _row)


def describe(read, namespace: str, name: str) -> str:
    return describe_role(read.get("Role", namespace, name))


KIND = KindInfo(
    kind="Role",
    plural="roles",
    singular="role",
    group="rbac.authorization.k8s.io",
    version="v1",
    namespaced=True,
    name_rule="path",
    reset_rank=40,
    defaults=no_defaults,
    validate=validate,
    table=TABLE,
    describe=describe,
)
