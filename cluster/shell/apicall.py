"""A request from inside a container to https://kubernetes.default.svc with a bearer token (the
pod's own, `$(cat /var/run/secrets/kubernetes.io/serviceaccount/token)`): answered by the
cluster's API server itself, in-process, through the same views, authentication and RBAC as
kubectl's requests. The answer is pretty-printed, as kube-apiserver answers curl and wget."""

from __future__ import annotations

import json

from django.contrib.auth.models import AnonymousUser
from django.test import RequestFactory
from django.urls import Resolver404, resolve

from cluster.apiserver.errors import NO_SUCH_RESOURCE_STATUS
from cluster.shell.web import Response, api_response


def _pretty(body: bytes, content_type: str) -> str:
    text = body.decode("utf-8", "replace")
    if content_type.startswith("application/json"):
        try:
            return json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"
        except ValueError:
            return text
    return text


def call(cluster: str, path: str, method: str, authorization: str, agent: str) -> Response:
    """Serve `path` (with its query) of the cluster's API, as that token's caller."""
    route, _, query = path.partition("?")
    url = f"/clusters/{cluster}{route}"
    request = RequestFactory().generic(
        "GET" if method == "HEAD" else method,
        url + (f"?{query}" if query else ""),
        HTTP_AUTHORIZATION=authorization,
        HTTP_USER_AGENT=agent,
        HTTP_ACCEPT="application/json, */*",
    )
    request.user = AnonymousUser()
    try:
        match = resolve(url)
    except Resolver404:
        status, body, kind = 404, json.dumps(NO_SUCH_RESOURCE_STATUS, indent=2) + "\n", "application/json"
    else:
        answer = match.func(request, *match.args, **match.kwargs)
        kind = answer.get("Content-Type", "application/json")
        status = answer.status_code
        if answer.streaming:  # a watch or `logs -f`: not streamed into a container's shell
            answer.close()
            body = ""
        else:
            body = _pretty(answer.content, kind)
    return api_response(method, status, body, kind)
