"""Kubeconfigs that point the real kubectl at a KubeSim cluster over TLS, with a token.

client-go sends credentials only to an https:// server, so the kubeconfig names the API port
(API_PORT, default 6443, served by `manage.py serve --api-port`) and carries the CA that signed
its certificate (`certificate-authority-data`) and the caller's bearer token.
"""

from __future__ import annotations

import base64

import yaml
from django.conf import settings

from cluster.auth import tls
from cluster.auth.access import Caller, presenter_token, sandbox_token
from cluster.models import Cluster


def api_server(host: str, cluster: str, port: int | None = None) -> str:
    host = host.strip("[]")
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    return f"https://{host}:{port or settings.KUBESIM_API_PORT}/clusters/{cluster}"


def token_for(caller: Caller, cluster: Cluster) -> str:
    """The caller's token for this cluster: the presenter's for the teacher, a sandbox's for its owner."""
    if caller.teacher:
        return presenter_token()
    if cluster.owner_id is not None and cluster.owner_id == getattr(caller.user, "pk", None):
        return sandbox_token(cluster)
    return ""


def build(cluster: Cluster, server: str, token: str) -> dict:
    ca = tls.ensure(settings.ALLOWED_HOSTS).ca_pem()
    name = f"kubesim-{cluster.name}"
    user: dict = {"token": token} if token else {}
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": name,
                "cluster": {"server": server, "certificate-authority-data": base64.b64encode(ca).decode()},
            }
        ],
        "users": [{"name": name, "user": user}],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name, "namespace": "default"}}],
        "current-context": name,
        "preferences": {},
    }


def render(cluster: Cluster, server: str, token: str) -> str:
    return yaml.safe_dump(build(cluster, server, token), sort_keys=False)
