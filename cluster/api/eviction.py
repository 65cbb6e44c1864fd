"""POST …/pods/NAME/eviction (policy/v1 Eviction; a policy/v1beta1 body has the same shape): the
REST side of `cluster.apiserver.eviction`, plus the Event that tells the class the pod was
evicted (reason and message are the DisruptionTarget condition's, upstream's words)."""

from __future__ import annotations

import time

from django.http import HttpRequest, HttpResponse

from cluster.api.http import actor_for, dry_run, json_response, parse_object
from cluster.api.paths import Target
from cluster.apiserver import defaults, eviction
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import KindInfo
from cluster.apiserver.typecheck import check_body
from cluster.client import event_recorder
from cluster.models import Cluster

EVICTION = KindInfo(kind="Eviction", plural="", singular="", group="policy", version="v1", namespaced=True)
REASON, MESSAGE = "EvictionByEvictionAPI", "Eviction API: evicting"


def evict(request: HttpRequest, cluster: Cluster, target: Target) -> HttpResponse:
    body = parse_object(request, ("policy/v1", "Eviction"))
    check_body(EVICTION, body)
    status = evict_pod(cluster, target.namespace, target.name, body, actor_for(request), dry_run(request))
    return json_response(status, status["code"])


def evict_pod(cluster: Cluster, namespace: str, name: str, body: dict, actor, dry: bool = False) -> dict:
    """Evict the pod (`cluster.apiserver.eviction`) and record the Event that says so; the Status
    it answers. Both the REST path and the web console's drain come here."""
    pod = api.get(cluster, "Pod", namespace, name)
    status = eviction.evict(cluster, namespace, name, body, actor, dry)
    if status["status"] == "Success" and not dry:
        _record(cluster, pod, actor)
    return status


def _record(cluster: Cluster, pod: dict, actor) -> None:
    now = defaults.now_rfc3339()
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{pod['metadata']['name']}.{time.time_ns():x}", "namespace": target_ns(pod)},
        "involvedObject": event_recorder.involved(pod),
        "reason": REASON,
        "message": MESSAGE,
        "source": {"component": "kube-apiserver"},
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
        "type": "Normal",
        "eventTime": None,
        "reportingComponent": "kube-apiserver",
        "reportingInstance": "",
    }
    try:
        api.create(cluster, event, actor)
    except ApiError:
        return  # the namespace went meanwhile: the eviction stands


def target_ns(pod: dict) -> str:
    return pod["metadata"].get("namespace") or "default"
