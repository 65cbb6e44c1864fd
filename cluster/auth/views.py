"""The teacher's controls of a cluster: who may write (the presenter switch), its quota; and
the caller's own kubeconfig for it."""

from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from cluster.api.http import actor_for, error_response, json_response
from cluster.apiserver.admission.quota import clean_overrides, policy
from cluster.apiserver.errors import ApiError, bad_request, method_not_allowed
from cluster.auth import kubeconfig
from cluster.auth.access import caller_of, check_csrf, forbidden, get_cluster, may_write
from cluster.auth.classwrite import set_class_may_write
from cluster.controlplane.demo import reset_demo
from cluster.models import Cluster


def policy_json(cluster: Cluster, request: HttpRequest) -> dict:
    caller = caller_of(request)
    return {
        "cluster": cluster.name,
        "class_may_write": cluster.class_may_write,
        "quota": policy(cluster).to_json(),
        "overrides": cluster.quota,
        "you": {"user": caller.name, "teacher": caller.teacher, "may_write": may_write(caller, cluster)},
    }


@csrf_exempt  # checked below, for callers without a token
def policy_view(request: HttpRequest, cluster: str) -> HttpResponse:
    """GET: who may write and the quota. POST {class_may_write, quota}: the teacher only."""
    try:
        found = get_cluster(request, cluster)
        if request.method == "GET":
            return json_response(policy_json(found, request))
        if request.method != "POST":
            raise method_not_allowed(request.method or "")
        caller = caller_of(request)
        if not caller.teacher:
            raise forbidden(caller, "post", "", path=request.path)
        if not caller.by_token:
            check_csrf(request)
        try:
            data = json.loads(request.body or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise bad_request("the request body is not JSON") from None
        if not isinstance(data, dict):
            raise bad_request("the request body must be a JSON object")
        if "class_may_write" in data:
            if not isinstance(data["class_may_write"], bool):  # "no" must not open the class's writes
                raise bad_request("class_may_write must be true or false")
            set_class_may_write(found, data["class_may_write"])
        fields = []
        if "quota" in data:
            try:
                found.quota = clean_overrides(data["quota"])
            except ValueError as err:
                raise bad_request(str(err)) from None
            fields.append("quota")
        if fields:
            found.save(update_fields=fields)
        return json_response(policy_json(found, request))
    except ApiError as err:
        return error_response(err)


@csrf_exempt  # checked below, for callers without a token
def reset_view(request: HttpRequest, cluster: str) -> HttpResponse:
    """POST: the teacher puts the class demo back to the course's starting state (every change a
    write through the API server); answers the policy, as it then stands."""
    try:
        found = get_cluster(request, cluster)
        if request.method != "POST":
            raise method_not_allowed(request.method or "")
        caller = caller_of(request)
        if not caller.teacher:
            raise forbidden(caller, "post", "", path=request.path)
        if not caller.by_token:
            check_csrf(request)
        if not found.public:
            raise bad_request(
                "only a class demo (a public cluster) is reset here: a sandbox is reset by its lab"
            )
        reset_demo(found, actor_for(request))
        found.refresh_from_db()
        return json_response(policy_json(found, request))
    except ApiError as err:
        return error_response(err)


def kubeconfig_view(request: HttpRequest, cluster: str) -> HttpResponse:
    """The caller's kubeconfig: the API port on this host, the CA, the caller's token (if any)."""
    try:
        found = get_cluster(request, cluster)
    except ApiError as err:
        return error_response(err)
    host = request.get_host()
    host = host.rsplit(":", 1)[0] if not host.endswith("]") else host  # drop the port, keep [v6]
    text = kubeconfig.render_for(caller_of(request), found, kubeconfig.api_server(host))
    response = HttpResponse(text, content_type="application/yaml")
    response["Content-Disposition"] = f'attachment; filename="{found.name}.kubeconfig"'
    response["Cache-Control"] = "no-store"
    return response
