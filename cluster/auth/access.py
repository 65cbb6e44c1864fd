"""Who may see and change a cluster: authentication and authorization, in ONE place.

Every view, consumer, flow endpoint, kubeapi endpoint and page asks `get_cluster`; the websocket
routes (and anything else that has only an ASGI scope) ask `caller_of(scope)` and `authorize`.

Authentication, as kube-apiserver's: a bearer token (`Authorization: Bearer …`, on both
listeners), else the browser's Django session, else the caller is `system:anonymous`. Tokens:
- the presenter token (state directory, printed by `make run` as a link): the teacher;
- a teacher's cluster token (`<cluster>.<hmac>`, derived from the presenter token, so rotating
  that revokes them all): the teacher, naming the cluster a kubeconfig's context drives;
- a sandbox token (`<sandbox>.<hmac>`, derived from SECRET_KEY): the student who owns it.
An unknown token is 401 Unauthorized, as upstream answers. A token of the form `<cluster>.<hmac>`
names the cluster that requests at the API port's root address (cluster/auth/addressing.py).

Authorization: a cluster the caller may not see is 404 on every path (its name is not
confirmed). Public clusters (the demo) are seen by everyone; a sandbox by its owner and staff.
get, list and watch need only that. Every other verb (writes, flow controls, policy) needs the
teacher (staff, or the presenter token), the sandbox's owner, or a public cluster whose teacher
lets the class write; otherwise 403 in kube-apiserver's words. Writes not made with a token must
pass Django's CSRF check, and callers other than the teacher are rate-limited (429, Retry-After).
All of this happens before a request's body is read.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings

from cluster.apiserver import reads
from cluster.apiserver.admission.quota import policy
from cluster.apiserver.errors import ApiError
from cluster.auth import impersonation, rbac, satokens, state
from cluster.auth.clientaddr import client_address
from cluster.auth.ratelimit import WRITES
from cluster.auth.rbac import SERVICE_ACCOUNT_PREFIX, Attributes
from cluster.auth.satokens import CLUSTER_CLAIM, TokenSubject, looks_like_jwt, unverified_claims
from cluster.controlplane import activity, simtime
from cluster.models import Cluster
from database.joined import JoinedLookup
from database.unique import unique_row

ANONYMOUS = "system:anonymous"
AUTHENTICATED = ("system:authenticated",)
MASTERS = ("system:masters", "system:authenticated")
READ_VERBS = frozenset({"get", "list", "watch"})
PRESENTER_USERNAME = "kubesim-presenter"


@dataclass(frozen=True)
class Caller:
    """The authenticated caller of one request or websocket."""

    user: object | None = None  # the Django user, None for system:anonymous
    name: str = ANONYMOUS  # the Kubernetes user name that 403 messages quote
    teacher: bool = False  # staff, or the presenter token
    by_token: bool = False  # authenticated by a bearer token: no CSRF check applies
    bad_token: bool = False  # a bearer token was sent but is not one of ours (401)
    client: str = field(default="", compare=False)  # the client address, for rate limits
    # The sandbox a sandbox token was checked against, as read then: the request that names it
    # needs no second read (a student's every kubectl call does).
    sandbox: Cluster | None = field(default=None, compare=False, repr=False)
    groups: tuple[str, ...] = ("system:unauthenticated",)  # as kube-apiserver's authenticators name them
    uid: str = ""
    extra: dict = field(default_factory=dict, compare=False)
    # A service account token's subject (cluster/auth/satokens.py): valid on its own cluster only.
    account: TokenSubject | None = field(default=None, compare=False)
    impersonated: bool = False  # the identity of Impersonate-* headers, not the credential's

    @property
    def anonymous(self) -> bool:
        return self.user is None and self.name == ANONYMOUS

    @property
    def service_account(self) -> bool:
        """A ServiceAccount (by its token, or impersonated): RBAC alone decides what it may do."""
        return self.name.startswith(SERVICE_ACCOUNT_PREFIX)

    def rate_key(self) -> object:
        if self.user is not None:
            return ("user", getattr(self.user, "pk", None))
        return ("addr", self.client) if self.anonymous else ("name", self.name)


# -- tokens ---------------------------------------------------------------------------------------
_presenter_cache: tuple[tuple[str, float], str] = (("", 0.0), "")
# The token file's path for each KUBESIM_STATE_DIR: every bearer-token request checks the token,
# and state_dir() resolves the path and creates the folder (a handful of system calls, each giving
# up the GIL for a request that then waits to get it back). One stat per request remains.
_presenter_paths: dict[str, Path] = {}


def _presenter_path() -> Path:
    configured = str(settings.KUBESIM_STATE_DIR)
    path = _presenter_paths.get(configured)
    if path is None:
        path = _presenter_paths[configured] = state.state_dir() / state.PRESENTER_TOKEN_FILE
    return path


def presenter_token() -> str:
    """The presenter token from the state directory, re-read when the file changes (rotation)."""
    global _presenter_cache
    path = _presenter_path()
    try:
        mtime = os.stat(path).st_mtime
    except FileNotFoundError:
        mtime = -1.0
    if (str(path), mtime) != _presenter_cache[0] or not _presenter_cache[1]:
        token = state.presenter_token()
        _presenter_cache = ((str(path), os.stat(path).st_mtime), token)
    return _presenter_cache[1]


def presenter_user():
    """The staff user the presenter token signs in as (created on first use)."""
    from django.contrib.auth import get_user_model

    user, created = get_user_model().objects.get_or_create(
        username=PRESENTER_USERNAME, defaults={"is_staff": True, "first_name": "Presenter"}
    )
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def sandbox_token(cluster: Cluster) -> str:
    """The bearer token of a sandbox's owner for that sandbox (derived, so nothing is stored)."""
    message = f"sandbox-token:{cluster.name}:{cluster.owner_id}".encode()
    digest = hmac.new(settings.SECRET_KEY.encode(), message, hashlib.sha256).hexdigest()[:40]
    return f"{cluster.name}.{digest}"


def teacher_token(cluster_name: str) -> str:
    """The teacher's bearer token for one cluster: a kubeconfig context per cluster, one address."""
    message = f"teacher-token:{cluster_name}".encode()
    digest = hmac.new(presenter_token().encode(), message, hashlib.sha256).hexdigest()[:40]
    return f"{cluster_name}.{digest}"


# A private cluster by name, with its owner (select_related's rows, one plain statement).
_SANDBOX = JoinedLookup(Cluster, "owner", where=("name", "public"))


def _user_of_token(token: str) -> tuple[object | None, bool, Cluster | None]:
    """(user, teacher, sandbox) for a token we issued (sandbox: the one a sandbox token is for),
    (None, False, None) for any other."""
    if hmac.compare_digest(token.encode(), presenter_token().encode()):
        return presenter_user(), True, None
    name, _, _digest = token.partition(".")
    if name and hmac.compare_digest(token.encode(), teacher_token(name).encode()):
        return presenter_user(), True, None
    cluster = _SANDBOX.get(name, False)
    owned = cluster is not None and cluster.owner is not None
    if owned and hmac.compare_digest(token.encode(), sandbox_token(cluster).encode()):
        return cluster.owner, bool(cluster.owner.is_staff), cluster
    return None, False, None


def _bearer(authorization: str) -> str | None:
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip()


def _from_service_account_token(token: str, client: str) -> Caller:
    named = unverified_claims(token).get(CLUSTER_CLAIM)
    cluster = unique_row(Cluster.objects.filter(name=named)) if isinstance(named, str) and named else None
    subject = satokens.verify(cluster, token, _lookup(cluster)) if cluster is not None else None
    if subject is None:
        return Caller(bad_token=True, client=client)
    return Caller(
        name=subject.username,
        by_token=True,
        client=client,
        groups=subject.groups,
        uid=subject.uid,
        extra=subject.extra,
        account=subject,
    )


def _lookup(cluster: Cluster):
    def lookup(kind: str, namespace: str, name: str) -> dict | None:
        try:
            return reads.get(cluster, kind, namespace, name)
        except ApiError:
            return None

    return lookup


def _from_token(token: str, client: str) -> Caller:
    if looks_like_jwt(token):
        return _from_service_account_token(token, client)
    user, teacher, sandbox = _user_of_token(token) if token else (None, False, None)
    if user is None:
        return Caller(bad_token=True, client=client)
    name = user.get_username()
    groups = MASTERS if teacher else AUTHENTICATED
    return Caller(
        user=user, name=name, teacher=teacher, by_token=True, client=client, sandbox=sandbox, groups=groups
    )


def _from_user(user, client: str) -> Caller:
    if user is None or not getattr(user, "is_authenticated", False):
        return Caller(client=client)
    teacher = bool(user.is_staff)
    return Caller(
        user=user,
        name=user.get_username(),
        teacher=teacher,
        client=client,
        groups=MASTERS if teacher else AUTHENTICATED,
    )


def caller_of(who) -> Caller:
    """The Caller of an HttpRequest, an ASGI scope (dict), a Django user, or a Caller itself.

    A request is authenticated once (cached on it). A websocket scope with no Origin header is not
    a browser's: its session cookie is ignored and only a bearer token counts (kubectl's own
    websockets send none, a page at another origin cannot set one).
    """
    if isinstance(who, Caller):
        return who
    if isinstance(who, dict):
        return _scope_caller(who)
    if hasattr(who, "META"):
        cached = getattr(who, "_kubesim_caller", None)
        if cached is None:
            client = client_address(who)
            token = _bearer(who.headers.get("Authorization", ""))
            cached = _from_token(token, client) if token is not None else _from_user(who.user, client)
            who._kubesim_caller = cached
        return cached
    return _from_user(who, "")


def acting_caller(who) -> Caller:
    """The identity an authorized request acts as (its impersonated user, if any)."""
    return getattr(who, "_kubesim_acting", None) or caller_of(who)


def _scope_caller(scope: dict) -> Caller:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    client = client_address(scope)
    token = _bearer(headers.get("authorization", ""))
    if token is not None:
        return _from_token(token, client)
    if "origin" not in headers:
        return Caller(client=client)
    return _from_user(scope.get("user"), client)


# -- authorization --------------------------------------------------------------------------------
def may_see(caller: Caller, cluster: Cluster) -> bool:
    """Whether the cluster exists for the caller (404 otherwise): a token of a ServiceAccount sees
    its own cluster only, whatever RBAC then lets it do there."""
    if caller.account is not None:
        return caller.account.cluster == cluster.name
    if cluster.public or caller.teacher:
        return True
    return caller.user is not None and cluster.owner_id == getattr(caller.user, "pk", None)


def writes_always(caller: Caller, cluster: Cluster) -> bool:
    """The teacher, or the cluster's owner: may write whatever the class's switch says."""
    return caller.teacher or (
        caller.user is not None and cluster.owner_id == getattr(caller.user, "pk", None)
    )


def may_write(caller: Caller, cluster: Cluster) -> bool:
    if not may_see(caller, cluster):
        return False
    if writes_always(caller, cluster):
        return True
    return cluster.public and cluster.class_may_write


# Resources anyone who may see a cluster may create, because they only ask about the caller
# (kube-apiserver grants them to every user through the system:basic-user role).
SELF_REVIEWS = frozenset(
    {
        ("authorization.k8s.io", "selfsubjectaccessreviews"),
        ("authorization.k8s.io", "selfsubjectrulesreviews"),
        ("authentication.k8s.io", "selfsubjectreviews"),
    }
)


# What only a cluster's admins hold through KubeSim's policy (the class's switch grants none of
# it): acting as someone else, and granting rights, which would outlive the switch (a binding of
# `edit` to system:unauthenticated, a token of a ServiceAccount the teacher bound to a role).
ADMIN_VERBS = frozenset({"impersonate", "escalate", "bind"})
RBAC_GROUP = "rbac.authorization.k8s.io"
TOKEN_RESOURCE = "serviceaccounts/token"


def _classroom_policy(
    caller: Caller, cluster: Cluster, verb: str, resource: str, group: str
) -> tuple[bool, str]:
    """KubeSim's own authorizer, asked before RBAC (as kube-apiserver asks its authorizers in turn):
    the teacher and a sandbox's owner are its cluster-admins; everyone who may see a cluster may
    read it; the teacher may let the class write to a public one."""
    if caller.teacher:
        return True, "KubeSim: the teacher may do everything"
    if caller.user is not None and cluster.owner_id == getattr(caller.user, "pk", None):
        return True, f'KubeSim: "{caller.name}" owns cluster "{cluster.name}"'
    if not may_see(caller, cluster):
        return False, ""
    if verb in READ_VERBS:
        return True, f'KubeSim: everyone who may see cluster "{cluster.name}" may get, list and watch'
    if verb == "create" and (group, resource) in SELF_REVIEWS:
        return True, "KubeSim: everyone may ask what they may do"
    grants = group == RBAC_GROUP or (group == "" and resource == TOKEN_RESOURCE)
    if verb in ADMIN_VERBS or grants or not may_write(caller, cluster):
        return False, ""  # kube-apiserver's RBAC gives no reason for a denial; kubectl prints "no"
    return True, f'KubeSim: the teacher lets the class change cluster "{cluster.name}"'


def permission(
    caller: Caller,
    cluster: Cluster,
    verb: str,
    resource: str = "",
    group: str = "",
    *,
    namespace: str = "",
    name: str = "",
    path: str = "",
) -> tuple[bool, str]:
    """The rule `authorize` enforces, as (allowed, why): what `kubectl auth can-i` reports.
    KubeSim's classroom policy first (not for ServiceAccounts), then RBAC (cluster/auth/rbac.py)."""
    if caller.bad_token:
        return False, ""
    if not caller.service_account:
        allowed, why = _classroom_policy(caller, cluster, verb, resource, group)
        if allowed:
            return allowed, why
    attributes = Attributes.of(verb, resource, group, namespace, name, path)
    return rbac.authorize(cluster, caller.name, caller.groups, attributes)


DISPLAY_NAME = "kubesim.io/display-name"


def user_info(caller: Caller) -> dict:
    """The caller as kube-apiserver's authenticators name users (`kubectl auth whoami`)."""
    info: dict = {"username": caller.name}
    if caller.uid:
        info["uid"] = caller.uid
    info["groups"] = list(caller.groups)
    extra = dict(caller.extra)
    # A lab student's name is a stable throwaway username (RBAC, events, audit quote it); the
    # name they joined with goes beside it, as an authenticator's extra attribute.
    display = getattr(caller.user, "first_name", "") if caller.user is not None else ""
    if display and not caller.teacher and caller.account is None and not caller.impersonated:
        extra[DISPLAY_NAME] = [display]
    if extra:
        info["extra"] = extra
    return info


def not_found(name: str) -> ApiError:
    return ApiError(404, "NotFound", f'clusters "{name}" not found', {"name": name, "kind": "clusters"})


def unauthorized() -> ApiError:
    return ApiError(401, "Unauthorized", "Unauthorized")


def forbidden(
    caller: Caller,
    verb: str,
    resource: str,
    group: str = "",
    namespace: str = "",
    name: str = "",
    path: str = "",
) -> ApiError:
    """403 in kube-apiserver's words (RBAC's forbiddenMessage wrapped in NewForbidden)."""
    if path:
        return ApiError(403, "Forbidden", f'forbidden: User "{caller.name}" cannot {verb} path "{path}"', {})
    scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
    reason = f'User "{caller.name}" cannot {verb} resource "{resource}" in API group "{group}" {scope}'
    base = resource.split("/")[0]
    qualified = f"{base}.{group}" if group else base
    subject = f'{qualified} "{name}"' if name else qualified
    message = f"{subject} is forbidden: {reason}"
    details = {"name": name, "kind": base} if name else {"kind": base}
    if group:
        details["group"] = group
    return ApiError(403, "Forbidden", message, details)


def too_many_requests(seconds: int) -> ApiError:
    return ApiError(
        429,
        "TooManyRequests",
        "Too many requests, please try again later.",
        {"retryAfterSeconds": seconds},
    )


def check_csrf(request) -> None:
    """Django's CSRF check (token cookie + X-CSRFToken header, Origin/Referer) for a browser write."""
    from django.http import HttpResponse
    from django.middleware.csrf import CsrfViewMiddleware

    if getattr(request, "_kubesim_csrf_ok", False):
        return
    rejection = CsrfViewMiddleware(lambda r: HttpResponse()).process_view(request, None, (), {})
    if rejection is not None:
        raise ApiError(403, "Forbidden", "CSRF verification failed: send the csrftoken in X-CSRFToken")
    request._kubesim_csrf_ok = True


def limit_rate(caller: Caller, cluster: Cluster) -> None:
    if caller.teacher:
        return
    quota = policy(cluster)
    seconds = WRITES.retry_after((cluster.pk, caller.rate_key()), quota.writes, quota.window)
    if seconds:
        raise too_many_requests(seconds)


def authorize(
    who,
    cluster: Cluster,
    verb: str,
    resource: str = "",
    *,
    group: str = "",
    namespace: str = "",
    name: str = "",
    path: str = "",
    changes: bool | None = None,
) -> Caller:
    """Raise ApiError unless the caller may `verb` on `cluster`; returns the Caller it acts as.
    `changes` (default: the verb is not a read) says whether the request writes: a write without a
    token is CSRF-checked, and writes are rate-limited.

    A non-read verb is also CSRF-checked (for a request without a token) and rate-limited.
    `path` names a non-resource endpoint (flow controls), worded as upstream words those.
    """
    caller = caller_of(who)
    if caller.bad_token:
        raise unauthorized()
    if not may_see(caller, cluster):
        raise not_found(cluster.name)

    def may_impersonate(resource: str, name: str, group: str, namespace: str) -> None:
        allowed, _ = permission(
            caller, cluster, "impersonate", resource, group, namespace=namespace, name=name
        )
        if not allowed:
            raise forbidden(caller, "impersonate", resource, group, namespace, name)

    acting = impersonation.acting_as(who, caller, may_impersonate)
    if hasattr(who, "META"):
        who._kubesim_acting = acting
    if not resource and not path:
        path = request_path(who, cluster.name)
    if not permission(acting, cluster, verb, resource, group, namespace=namespace, name=name, path=path)[0]:
        raise forbidden(acting, verb, resource, group, namespace, name, "" if resource else path)
    if not (verb not in READ_VERBS if changes is None else changes):
        return acting
    if hasattr(who, "META") and not caller.by_token:
        check_csrf(who)
    limit_rate(caller, cluster)
    return acting


def request_path(who, cluster_name: str) -> str:
    """The path a non-resource request asks for, as at the API server's root (`/version`, `/api`)."""
    path = who.path if hasattr(who, "META") else who.get("path", "") if isinstance(who, dict) else ""
    prefix = f"/clusters/{cluster_name}"
    return path[len(prefix) :] or "/" if path.startswith(prefix + "/") or path == prefix else path


def get_cluster(who, cluster_name: str, /, *, verb: str = "get", resource: str = "", **where) -> Cluster:
    """The cluster `cluster_name` if the caller may `verb` on it (see the module's rules); else
    ApiError: 401 for a bad token, 404 for a cluster the caller may not see (or none), 403, 429.
    `where` names the object (group, namespace, name) or the non-resource `path`, for 403's words."""
    caller = caller_of(who)
    if caller.bad_token:
        raise unauthorized()
    if caller.sandbox is not None and caller.sandbox.name == cluster_name:
        cluster = caller.sandbox
    else:
        cluster = unique_row(Cluster.objects.filter(name=cluster_name))
    if cluster is None:
        raise not_found(cluster_name)
    if hasattr(who, "META"):
        who.kubesim_cluster_found = cluster.name  # an existing cluster's request: /metrics counts it
    authorize(who, cluster, verb, resource, **where)
    activity.requested(cluster.name)  # a parked control plane starts again (cluster/controlplane/activity.py)
    simtime.enter(cluster)  # the rest of the request reads the cluster's own time
    changes = where.get("changes")
    if (verb not in READ_VERBS if changes is None else changes) and hasattr(who, "META"):
        # An HTTP write: its end is noted too (cluster/controlplane/middleware.py), once its writes committed.
        who.kubesim_writes_to = cluster.name
        activity.writing(cluster.name)
    return cluster
