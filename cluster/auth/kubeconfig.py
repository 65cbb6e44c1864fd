"""Kubeconfigs that point the real kubectl at KubeSim's API server over TLS, with a token.

client-go sends credentials only to an https:// server, so the kubeconfig names the API port
(API_PORT, default 6443, served by `manage.py serve --api-port`) and carries the CA that signed
its certificate (`certificate-authority-data`). Like a real cluster's, the server has no path:
the token says which cluster a request is for (cluster/auth/addressing.py). A student's kubeconfig
has one context, their sandbox's, with their sandbox token; the teacher's has a context (and a
token) for every cluster, the one asked for current. A kubeconfig with no token for a cluster
other than the class demo keeps the path form, `https://HOST:API_PORT/clusters/NAME`, which is
still served (and is what kubeconfigs written before held).
"""

from __future__ import annotations

import base64

import yaml
from django.conf import settings

from cluster.auth import tls
from cluster.auth.access import Caller, sandbox_token, teacher_token
from cluster.auth.addressing import DEFAULT_CLUSTER
from cluster.models import Cluster

SERVER_ENTRY = "kubesim"  # the one API server every context points at


def api_server(host: str, port: int | None = None) -> str:
    """`https://HOST:PORT`: the API server's one address."""
    host = host.strip("[]")
    if ":" in host:  # an IPv6 literal
        host = f"[{host}]"
    return f"https://{host}:{port or settings.KUBESIM_API_PORT}"


def token_for(caller: Caller, cluster: Cluster) -> str:
    """The caller's token for this cluster: the teacher's for it, a sandbox's for its owner."""
    if caller.teacher:
        return teacher_token(cluster.name)
    if cluster.owner_id is not None and cluster.owner_id == getattr(caller.user, "pk", None):
        return sandbox_token(cluster)
    return ""


def server_for(address: str, cluster_name: str, token: str) -> str:
    """The address itself when the token names the cluster (or none is needed to: the demo)."""
    named = token.startswith(f"{cluster_name}.") or (not token and cluster_name == DEFAULT_CLUSTER)
    return address if named else f"{address}/clusters/{cluster_name}"


def _ca_data() -> str:
    return base64.b64encode(tls.ensure(settings.ALLOWED_HOSTS).ca_pem()).decode()


def build(current: Cluster, address: str, tokens: dict[str, str]) -> dict:
    """A kubeconfig with a context per cluster named in `tokens` (name → token), `current` current.
    Contexts whose token names their cluster share one server entry, the API server's address."""
    ca = _ca_data()
    servers: dict[str, str] = {}  # server → its entry's name
    users, contexts = [], []
    for name, token in tokens.items():
        context = f"kubesim-{name}"
        server = server_for(address, name, token)
        entry = servers.setdefault(server, SERVER_ENTRY if server == address else context)
        users.append({"name": context, "user": {"token": token} if token else {}})
        contexts.append(
            {"name": context, "context": {"cluster": entry, "user": context, "namespace": "default"}}
        )
    clusters = [
        {"name": entry, "cluster": {"server": server, "certificate-authority-data": ca}}
        for server, entry in servers.items()
    ]
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": clusters,
        "users": users,
        "contexts": contexts,
        "current-context": f"kubesim-{current.name}",
        "preferences": {},
    }


def teacher_tokens(current: Cluster) -> dict[str, str]:
    """The teacher's contexts: `current` first, then every other cluster (public ones first)."""
    names = [current.name]
    names += [n for n in Cluster._default_manager.order_by("-public", "name").values_list("name", flat=True)]
    return {name: teacher_token(name) for name in dict.fromkeys(names)}


def render(current: Cluster, address: str, tokens: dict[str, str]) -> str:
    return yaml.safe_dump(build(current, address, tokens), sort_keys=False)


def render_teacher(current: Cluster, address: str) -> str:
    return render(current, address, teacher_tokens(current))


def render_for(caller: Caller, cluster: Cluster, address: str) -> str:
    """The caller's own kubeconfig for `cluster`: the teacher's (every cluster), or one context."""
    if caller.teacher:
        return render_teacher(cluster, address)
    return render(cluster, address, {cluster.name: token_for(caller, cluster)})
