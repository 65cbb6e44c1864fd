"""`kubectl auth can-i` and `kubectl auth whoami`: the self-subject reviews, answered by cluster.auth.access.

kubectl POSTs them in protobuf (JSON works too); each is answered 201 with the review and its
status, and nothing is stored. Anyone who may see the cluster may ask about themselves.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from cluster.api.http import error_response, json_response, parse_object
from cluster.apiserver.defaults import now_rfc3339
from cluster.apiserver.errors import ApiError, Cause, invalid, method_not_allowed
from cluster.apiserver.kinds import KindInfo
from cluster.auth import rbac
from cluster.auth.access import acting_caller, get_cluster, permission, user_info

AUTHORIZATION = "authorization.k8s.io"
AUTHENTICATION = "authentication.k8s.io"
READ_ONLY_RULES = [{"verbs": ["get", "list", "watch"], "apiGroups": ["*"], "resources": ["*"]}]
ALL_RULES = [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]
SELF_REVIEW_RULES = [
    {
        "verbs": ["create"],
        "apiGroups": [AUTHORIZATION],
        "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"],
    },
    {"verbs": ["create"], "apiGroups": [AUTHENTICATION], "resources": ["selfsubjectreviews"]},
]


def _access_review(request: HttpRequest, cluster, review: dict) -> dict:
    spec = review.get("spec") if isinstance(review.get("spec"), dict) else {}
    resource, non_resource = spec.get("resourceAttributes"), spec.get("nonResourceAttributes")
    info = KindInfo(
        kind="SelfSubjectAccessReview",
        plural="selfsubjectaccessreviews",
        singular="",
        group=AUTHORIZATION,
        version="v1",
        namespaced=False,
    )
    if resource and non_resource:
        message = 'Invalid value: "null": cannot be specified in combination with resourceAttributes'
        raise invalid(info, "", [Cause("FieldValueInvalid", "spec.nonResourceAttributes", message)])
    if not resource and not non_resource:
        message = 'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes '
        message += "must be specified"
        raise invalid(info, "", [Cause("FieldValueInvalid", "spec.resourceAttributes", message)])
    attributes = resource or non_resource
    if not isinstance(attributes, dict):
        raise ApiError(400, "BadRequest", "spec attributes must be an object")
    verb = str(attributes.get("verb") or "")
    plural = str(attributes.get("resource") or "") if resource else ""
    if resource and attributes.get("subresource"):
        plural += f"/{attributes['subresource']}"
    group = str(attributes.get("group") or "") if resource else ""
    allowed, reason = permission(
        acting_caller(request),
        cluster,
        verb,
        plural,
        group,
        namespace=str(attributes.get("namespace") or "") if resource else "",
        name=str(attributes.get("name") or "") if resource else "",
        path="" if resource else str(attributes.get("path") or ""),
    )
    status: dict = {"allowed": allowed}
    if reason:
        status["reason"] = reason
    return {"spec": spec, "status": status}


def _rules_review(request: HttpRequest, cluster, review: dict) -> dict:
    spec = review.get("spec") if isinstance(review.get("spec"), dict) else {}
    caller = acting_caller(request)
    namespace = str(spec.get("namespace") or "")
    granted, granted_urls = rbac.rules_for(cluster, caller.name, caller.groups, namespace)
    if caller.service_account:  # RBAC alone
        rules, non_resource = granted, granted_urls
    else:
        writes = permission(caller, cluster, "create", "pods", namespace=namespace)[0]
        reads = permission(caller, cluster, "list", "pods", namespace=namespace)[0]
        rules = ALL_RULES if writes else [*SELF_REVIEW_RULES, *(READ_ONLY_RULES if reads else [])]
        rules += [rule for rule in granted if rule not in rules]
        non_resource = [{"verbs": ["*"] if writes else ["get"], "nonResourceURLs": ["*"]}]
        non_resource += [rule for rule in granted_urls if rule not in non_resource]
    return {
        "spec": spec,
        "status": {"resourceRules": rules, "nonResourceRules": non_resource, "incomplete": False},
    }


def _self_review(request: HttpRequest, cluster, review: dict) -> dict:
    # kube-apiserver stamps this review (and only this one) with the time it answered.
    return {
        "metadata": {"creationTimestamp": now_rfc3339()},
        "status": {"userInfo": user_info(acting_caller(request))},
    }


REVIEWS = {
    (AUTHORIZATION, "selfsubjectaccessreviews"): ("SelfSubjectAccessReview", _access_review),
    (AUTHORIZATION, "selfsubjectrulesreviews"): ("SelfSubjectRulesReview", _rules_review),
    (AUTHENTICATION, "selfsubjectreviews"): ("SelfSubjectReview", _self_review),
}


def _answer(request: HttpRequest, cluster_name: str, group: str, resource: str) -> HttpResponse:
    try:
        if request.method != "POST":
            raise method_not_allowed(request.method or "")
        # Asking changes nothing: whoever may see the cluster may ask (no write check, no CSRF).
        cluster = get_cluster(
            request, cluster_name, verb="create", resource=resource, group=group, changes=False
        )
        kind, answer = REVIEWS[(group, resource)]
        api_version = f"{group}/v1"
        review = parse_object(request, (api_version, kind))
        body = {
            "kind": kind,
            "apiVersion": api_version,
            "metadata": {"creationTimestamp": None},
            **answer(request, cluster, review),
        }
        return json_response(body, 201)
    except ApiError as err:
        return error_response(err)


@csrf_exempt
def review(request: HttpRequest, cluster: str, group: str, resource: str) -> HttpResponse:
    """POST /clusters/<c>/apis/<authorization|authentication>.k8s.io/v1/<selfsubject…reviews>"""
    return _answer(request, cluster, group, resource)
