"""POST …/serviceaccounts/NAME/token (authentication.k8s.io/v1 TokenRequest, `kubectl create
token`): upstream `pkg/registry/core/serviceaccount/storage/token.go`. The token is a JWT signed
with the cluster's key (cluster/auth/satokens.py); nothing is stored."""

from __future__ import annotations

from datetime import UTC, datetime

from django.http import HttpRequest, HttpResponse

from cluster.api.http import dry_run, json_response, parse_object
from cluster.api.paths import Target
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, Cause, bad_request, invalid
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.typecheck import check_body
from cluster.auth import satokens
from cluster.models import Cluster

TOKEN_REQUEST = KindInfo(
    kind="TokenRequest",
    plural="",
    singular="",
    group="authentication.k8s.io",
    version="v1",
    namespaced=True,
)
DEFAULT_SECONDS = 3600  # SetDefaults_TokenRequestSpec
MIN_SECONDS, MAX_SECONDS = 600, 1 << 32
BINDABLE = {"Pod": "Pod", "Secret": "Secret"}


def _seconds(spec: dict) -> int:
    """spec.expirationSeconds, defaulted and validated as ValidateTokenRequest does."""
    seconds = spec.get("expirationSeconds")
    if seconds is None:
        return DEFAULT_SECONDS
    if isinstance(seconds, bool) or not isinstance(seconds, int):
        raise bad_request("spec.expirationSeconds must be an integer")
    path = "spec.expirationSeconds"
    if seconds < MIN_SECONDS:
        why = f"Invalid value: {seconds}: may not specify a duration less than 10 minutes"
        raise invalid(TOKEN_REQUEST, "", [Cause("FieldValueInvalid", path, why)])
    if seconds > MAX_SECONDS:
        why = f"Invalid value: {seconds}: may not specify a duration larger than 2^32 seconds"
        raise invalid(TOKEN_REQUEST, "", [Cause("FieldValueInvalid", path, why)])
    return seconds


def _bound(cluster: Cluster, namespace: str, account: str, ref: object) -> dict | None:
    """The object a token is bound to (its kind, name, uid), which must exist: a Pod or a Secret."""
    if not isinstance(ref, dict):
        return None
    kind, group = str(ref.get("kind") or ""), str(ref.get("apiVersion") or "v1").rpartition("/")[0]
    if group or kind not in BINDABLE:
        shown = f"{group}/{ref.get('apiVersion', '').rpartition('/')[2]}, Kind={kind}"
        raise bad_request(f'cannot bind token for serviceaccount "{account}" to object of type {shown}')
    found = api.get(cluster, kind, namespace, str(ref.get("name") or ""))
    uid = found["metadata"].get("uid", "")
    if ref.get("uid") and ref["uid"] != uid:
        message = (
            f'Operation cannot be fulfilled on {kind}."{ref.get("name")}": the UID in the bound object '
            f"reference ({ref['uid']}) does not match the UID in record. The object might have been deleted "
            "and then recreated"
        )
        raise ApiError(409, "Conflict", message, {"name": ref.get("name"), "kind": kind})
    return {"kind": kind, "name": found["metadata"]["name"], "uid": uid}


def create_token(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    review = parse_object(request, ("authentication.k8s.io/v1", "TokenRequest"))
    check_body(TOKEN_REQUEST, review)
    spec = review.get("spec") if isinstance(review.get("spec"), dict) else {}
    account = api.get(cluster, "ServiceAccount", target.namespace, target.name)
    seconds = _seconds(spec)
    audiences = [str(a) for a in spec.get("audiences") or []] or list(satokens.API_AUDIENCES)
    bound = _bound(cluster, target.namespace, target.name, spec.get("boundObjectRef"))
    body = {
        "kind": "TokenRequest",
        "apiVersion": "authentication.k8s.io/v1",
        "metadata": {"name": target.name, "namespace": target.namespace, "creationTimestamp": None},
        "spec": {
            "audiences": audiences,
            "expirationSeconds": seconds,
            "boundObjectRef": spec.get("boundObjectRef"),
        },
        "status": {"token": "", "expirationTimestamp": None},
    }
    if dry_run(request):
        return json_response(body, 201)
    token, expires = satokens.issue(cluster, account, audiences, seconds, bound)
    stamp = datetime.fromtimestamp(expires, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    body["status"] = {"token": token, "expirationTimestamp": stamp}
    return json_response(body, 201)
