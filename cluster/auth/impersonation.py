"""Impersonation (`kubectl --as`, `--as-group`, `--as-uid`), as kube-apiserver's filter does it
(upstream `staging/src/k8s.io/apiserver/pkg/endpoints/filters/impersonation.go`): the caller must
be allowed the `impersonate` verb on each user (or ServiceAccount), group and uid named, else 403
in kube-apiserver's words; then the request is judged, and acts, as the impersonated user.

The teacher and a sandbox's owner (their clusters' cluster-admins) may impersonate; anyone else
only what RBAC grants (the `edit` role grants impersonating ServiceAccounts).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from cluster.apiserver.errors import ApiError

SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:"
ANONYMOUS = "system:anonymous"
AUTHENTICATION = "authentication.k8s.io"


def _headers(who) -> dict[str, list[str]]:
    """The Impersonate-* headers of a request or an ASGI scope, lower-cased, every value kept."""
    found: dict[str, list[str]] = {}
    if hasattr(who, "META"):
        pairs = [(k.lower(), v) for k, v in who.headers.items()]
        # Django joins a repeated header's values with commas (one Impersonate-Group per group).
        pairs = [
            (k, part.strip())
            for k, v in pairs
            for part in (v.split(",") if k == "impersonate-group" else [v])
        ]
    elif isinstance(who, dict):
        pairs = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in who.get("headers", [])]
    else:
        pairs = []
    for key, value in pairs:
        if key.startswith("impersonate-"):
            found.setdefault(key, []).append(value)
    return found


def acting_as(who, caller, check: Callable[[str, str, str, str], None]):
    """The identity the request acts as: the caller, or the user it may impersonate.
    `check(resource, name, group, namespace)` raises the 403 when the caller may not impersonate it."""
    headers = _headers(who)
    if not headers:
        return caller
    users = headers.get("impersonate-user", [])
    groups = [g for g in headers.get("impersonate-group", []) if g]
    uids = headers.get("impersonate-uid", [])
    extras = {
        k[len("impersonate-extra-") :]: v for k, v in headers.items() if k.startswith("impersonate-extra-")
    }
    username = users[0] if users else ""
    if not username:
        # kube-apiserver answers this with an internal error; kubectl never sends it (it refuses
        # --as-group without --as). A 400 in the same words: bad input is never a 500 here.
        asked = " ".join([*(f"{{Group {g}}}" for g in groups), *(f"{{UID {u}}}" for u in uids)])
        raise ApiError(400, "BadRequest", f"requested [{asked}] without impersonating a user")

    if username.startswith(SERVICE_ACCOUNT_PREFIX) and username.count(":") == 3:
        namespace, name = username[len(SERVICE_ACCOUNT_PREFIX) :].split(":")
        check("serviceaccounts", name, "", namespace)
        if not groups:
            groups = ["system:serviceaccounts", f"system:serviceaccounts:{namespace}"]
    else:
        check("users", username, "", "")
    for group in headers.get("impersonate-group", []):
        if group:
            check("groups", group, "", "")
    for key, values in extras.items():
        for value in values:
            check(f"userextras/{key}", value, AUTHENTICATION, "")
    for uid in uids:
        check("uids", uid, AUTHENTICATION, "")
    if username == ANONYMOUS:
        if "system:unauthenticated" not in groups:
            groups.append("system:unauthenticated")
    elif not {"system:authenticated", "system:unauthenticated"} & set(groups):
        groups.append("system:authenticated")
    return dataclasses.replace(
        caller,
        user=None,
        name=username,
        teacher=False,
        sandbox=None,
        groups=tuple(groups),
        uid=uids[0] if uids else "",
        extra=extras,
        account=None,
        impersonated=True,
    )
