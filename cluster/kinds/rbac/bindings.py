"""What RoleBindings and ClusterRoleBindings share: SetDefaults_Subject and the roleRef's group,
ValidateRoleBinding / ValidateClusterRoleBinding, printRoleBinding's columns and kubectl's
RoleBindingDescriber."""

from __future__ import annotations

from datetime import datetime

from cluster.apiserver.fielderrors import FieldErrors
from cluster.apiserver.validation import path_segment_errors
from cluster.kubeapi.describe_parts import annotations_multiline, labels_multiline
from cluster.kubeapi.tables import AGE_COLUMN, NAME_COLUMN, TableSpec, age
from cluster.kubeapi.tabwriter import tabwrite

GROUP = "rbac.authorization.k8s.io"
SUBJECT_KINDS = ("ServiceAccount", "User", "Group")


def defaults(obj: dict) -> None:
    role_ref = obj.get("roleRef")
    if isinstance(role_ref, dict) and not role_ref.get("apiGroup"):
        role_ref["apiGroup"] = GROUP
    for subject in obj.get("subjects") or []:
        if isinstance(subject, dict) and not subject.get("apiGroup"):
            if subject.get("kind") in ("User", "Group"):
                subject["apiGroup"] = GROUP
            elif subject.get("kind") == "ServiceAccount":
                subject["apiGroup"] = ""


def _go_role_ref(ref: dict) -> str:
    fields = (("APIGroup", "apiGroup"), ("Kind", "kind"), ("Name", "name"))
    return "rbac.RoleRef{" + ", ".join(f'{go}:"{ref.get(key, "")}"' for go, key in fields) + "}"


def validate(errors: FieldErrors, obj: dict, old: dict | None, namespaced: bool) -> None:
    ref = obj.get("roleRef") if isinstance(obj.get("roleRef"), dict) else {}
    if ref.get("apiGroup") != GROUP:
        errors.not_supported("roleRef.apiGroup", ref.get("apiGroup", ""), (GROUP,))
    kinds = ("Role", "ClusterRole") if namespaced else ("ClusterRole",)
    if ref.get("kind") not in kinds:
        errors.not_supported("roleRef.kind", ref.get("kind", ""), kinds)
    name = ref.get("name")
    if not name:
        errors.required("roleRef.name")
    else:
        for message in path_segment_errors(str(name)):
            errors.invalid("roleRef.name", name, message)
    subjects = obj.get("subjects")
    for index, subject in enumerate(subjects if isinstance(subjects, list) else []):
        _subject(errors, f"subjects[{index}]", subject if isinstance(subject, dict) else {}, namespaced)
    if old is not None and (old.get("roleRef") or {}) != ref:
        errors.invalid_shown("roleRef", _go_role_ref(ref), "cannot change roleRef")


def _subject(errors: FieldErrors, path: str, subject: dict, namespaced: bool) -> None:
    """ValidateRoleBindingSubject."""
    name, kind, group = subject.get("name") or "", subject.get("kind") or "", subject.get("apiGroup") or ""
    if not name:
        errors.required(f"{path}.name")
    if kind == "ServiceAccount":
        if name:
            errors.dns_subdomain(f"{path}.name", str(name))
        if group:
            errors.not_supported(f"{path}.apiGroup", group, ("",))
        if not namespaced and not subject.get("namespace"):
            errors.required(f"{path}.namespace")
    elif kind in ("User", "Group"):
        if group != GROUP:
            errors.not_supported(f"{path}.apiGroup", group, (GROUP,))
    else:
        errors.not_supported(f"{path}.kind", kind, SUBJECT_KINDS)


# -- kubectl get ----------------------------------------------------------------------------------
def _names(binding: dict, kind: str) -> str:
    found = []
    for subject in binding.get("subjects") or []:
        if isinstance(subject, dict) and subject.get("kind") == kind:
            name = subject.get("name", "")
            found.append(f"{subject.get('namespace', '')}/{name}" if kind == "ServiceAccount" else name)
    return ", ".join(found)


def _row(obj: dict, now: datetime) -> list:
    ref = obj.get("roleRef") or {}
    role = f"{ref.get('kind', '')}/{ref.get('name', '')}"
    subjects = [_names(obj, kind) for kind in ("User", "Group", "ServiceAccount")]
    return [obj["metadata"]["name"], role, age(obj, now), *subjects]


TABLE = TableSpec(
    (
        NAME_COLUMN,
        ("Role", "string", "", 0),
        AGE_COLUMN,
        ("Users", "string", "", 1),
        ("Groups", "string", "", 1),
        ("ServiceAccounts", "string", "", 1),
    ),
    _row,
)


# -- kubectl describe -----------------------------------------------------------------------------
def describe_binding(binding: dict) -> str:
    meta, ref = binding.get("metadata") or {}, binding.get("roleRef") or {}
    lines = [f"Name:\t{meta.get('name', '')}"]
    lines += labels_multiline("Labels", meta.get("labels"))
    lines += annotations_multiline("Annotations", meta.get("annotations"))
    lines += ["Role:", f"  Kind:\t{ref.get('kind', '')}", f"  Name:\t{ref.get('name', '')}", "Subjects:"]
    lines += ["  Kind\tName\tNamespace", "  ----\t----\t---------"]
    for subject in binding.get("subjects") or []:
        subject = subject if isinstance(subject, dict) else {}
        lines.append(
            f"  {subject.get('kind', '')}\t{subject.get('name', '')}\t{subject.get('namespace', '')}"
        )
    return tabwrite("\n".join(lines) + "\n")
