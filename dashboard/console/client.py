"""The console's calls to the API server, each authorized as the REST API authorizes the request
real kubectl sends for that command (`cluster.api.clusters.find_cluster`: the same rule and the
same code path), then made through `cluster.apiserver` as the web console.

So a refused write names what kubectl's would: `kubectl apply -f rc-nginx.yaml` by a viewer is a
`create` of `replicationcontrollers`, `kubectl label nodes node2 x=y` a `patch` of
`nodes "node2"`, `kubectl scale` a `patch` of `replicationcontrollers/scale`.
"""

from __future__ import annotations

import json

from cluster.api.clusters import find_cluster
from cluster.api.eviction import evict_pod
from cluster.api.handlers import write_or_try
from cluster.api.paths import Target
from cluster.apiserver import fieldvalidation
from cluster.apiserver import service as api
from cluster.apiserver.kinds import kind_info
from cluster.apiserver.typecheck import check_body
from cluster.auth import escalation
from cluster.models import Cluster

MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
JSON_PATCH = "application/json-patch+json"


# kubectl's --field-manager defaults, by command; a command without the flag (scale, cordon,
# drain) writes as its User-Agent's product, `kubectl`.
_FIELD_MANAGERS = {
    "annotate": "kubectl-annotate",
    "apply": "kubectl-client-side-apply",
    "autoscale": "kubectl-autoscale",
    "create": "kubectl-create",
    "edit": "kubectl-edit",
    "expose": "kubectl-expose",
    "label": "kubectl-label",
    "patch": "kubectl-patch",
    "replace": "kubectl-replace",
    "run": "kubectl-run",
    "set": "kubectl-set",
    "taint": "kubectl-taint",
}


def field_manager(command: tuple[str, ...]) -> str:
    """The manager of a console command's writes, as the real kubectl's would be named."""
    if not command:
        return ""
    if command[0] == "rollout":  # only pause, resume and restart take the flag
        return "kubectl-rollout" if command[1:2] in (("pause",), ("resume",), ("restart",)) else "kubectl"
    return _FIELD_MANAGERS.get(command[0], "kubectl")


class Client:
    """`who`: the request the command came in (None: the server itself, a lab's self-test)."""

    def __init__(self, cluster: Cluster, who=None, command: tuple[str, ...] = ()) -> None:
        self.cluster = cluster
        self.who = who
        self.actor = api.Actor(client="web", detail="web console", field_manager=field_manager(command))
        if who is not None:
            self.actor.grants = escalation.checker(who)

    def allow(self, verb: str, kind: str, namespace: str = "", name: str = "", subresource: str = "") -> None:
        """Raise the REST API's ApiError (403, 429, …) unless the caller may send this request."""
        if self.who is None:
            return
        info = kind_info(kind)
        target = Target(info, namespace if info.namespaced else "", name, subresource)
        find_cluster(self.who, self.cluster.name, verb, target)

    # -- reads: whoever sees the cluster may read it (the console's page already checked that) --
    def get(self, kind: str, namespace: str, name: str) -> dict:
        return api.get(self.cluster, kind, namespace, name)

    def list(self, kind: str, namespace: str | None = None, **selectors) -> list[dict]:
        return api.list_objects(self.cluster, kind, namespace=namespace, served=True, **selectors)[0]

    # -- writes ----------------------------------------------------------------------------------
    def create(self, body: dict, dry: bool = False, duplicates: list | None = None) -> dict:
        """POST with fieldValidation=Strict, as kubectl sends it: unknown fields and `duplicates`
        (the YAML's repeated keys, fieldvalidation.Problem) refuse it with upstream's text.
        `dry`: answered as kube-apiserver answers dryRun=All, nothing stored."""
        meta = body.get("metadata") or {}
        self.allow("create", body["kind"], meta.get("namespace") or "default")
        info = kind_info(body["kind"])
        if info is not None:
            check_body(info, body)  # a wrong type is a decoding error before strictness
            fieldvalidation.judge(info.kind, info.version, body, duplicates)
        return write_or_try(dry, api.create, self.cluster, body, self.actor, info is not None)

    def patch(
        self, kind: str, namespace: str, name: str, body: object, content_type: str = MERGE_PATCH
    ) -> dict:
        self.allow("patch", kind, namespace, name)
        text = body if isinstance(body, str) else json.dumps(body)
        return api.patch(self.cluster, kind, namespace, name, text.encode(), content_type, self.actor)

    def delete(self, kind: str, namespace: str, name: str, grace_period: int | None = None) -> dict:
        self.allow("delete", kind, namespace, name)
        return api.delete(self.cluster, kind, namespace, name, self.actor, grace_period=grace_period)

    def scale(self, kind: str, namespace: str, name: str, replicas: int, verb: str = "patch") -> dict:
        """The scale subresource: kubectl patches it, or updates it when it checks a precondition."""
        self.allow(verb, kind, namespace, name, "scale")
        return api.scale(self.cluster, kind, namespace, name, replicas, self.actor)

    def evict(self, namespace: str, name: str, body: dict) -> dict:
        """POST pods/NAME/eviction: the Status it answers (a refusal raises, 429 included)."""
        self.allow("create", "Pod", namespace, name, "eviction")
        return evict_pod(self.cluster, namespace, name, body, self.actor)
