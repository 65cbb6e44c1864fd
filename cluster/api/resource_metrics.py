"""`/apis/metrics.k8s.io/v1beta1/…`: the resource metrics API metrics-server serves (get and list
of NodeMetrics and PodMetrics), answered from the usage model (cluster/usage, docs/metrics.md).
The web console's `top` reads through `node_metrics` and `pod_metrics` too."""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from cluster.api.http import error_response, flag, json_response
from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, method_not_allowed, no_such_resource
from cluster.apiserver.fields import fields_match, parse_field_selector
from cluster.apiserver.selectors import labels_match, parse_label_selector
from cluster.auth.access import get_cluster
from cluster.auth.readlimit import limit_anonymous_read
from cluster.kubeapi.negotiation import table_version
from cluster.models import Cluster
from cluster.usage import metrics_api
from cluster.usage.model import Sample, sample
from k8s import clock

_PATH = re.compile(r"^(?:namespaces/(?P<namespace>[^/]+)/)?(?P<resource>nodes|pods)(?:/(?P<name>[^/]+))?/?$")


def cluster_sample(cluster: Cluster) -> Sample:
    """The scrape at the cluster's now, over every pod (a load generator may be anywhere)."""
    return sample(
        api.list_items(cluster, "Pod"),
        api.list_items(cluster, "Service"),
        api.list_items(cluster, "Endpoints"),
        api.list_items(cluster, "Node"),
        clock.now(),
    )


def _not_found(resource: str, name: str) -> ApiError:
    """metrics-server's NotFound for an object it knows but has no metrics of."""
    kind = resource.split(".", 1)[0]
    details = {"name": name, "group": metrics_api.GROUP, "kind": kind}
    return ApiError(404, "NotFound", f'{resource} "{name}" not found', details)


def _selected(items: list[dict], label_selector: str, field_selector: str) -> list[dict]:
    labels = parse_label_selector(label_selector)
    fields = parse_field_selector("PodMetrics", field_selector)  # metadata.name and .namespace only
    return [i for i in items if labels_match(labels, i) and fields_match(fields, i)]


def node_metrics(cluster: Cluster, name: str = "", label_selector: str = "") -> list[dict]:
    """The NodeMetrics of one node (404s as metrics-server's) or of every node the selector picks."""
    now, scrape = clock.now(), cluster_sample(cluster)
    if name:
        api.get(cluster, "Node", None, name)  # `nodes "x" not found`, as the node lister says
        if name not in scrape.nodes:
            raise _not_found(metrics_api.NODE_METRICS_RESOURCE, name)
        return [metrics_api.node_metrics(scrape.nodes[name], scrape, now)]
    items = [metrics_api.node_metrics(n, scrape, now) for _, n in sorted(scrape.nodes.items())]
    return _selected(items, label_selector, "")


def pod_metrics(
    cluster: Cluster, namespace: str, name: str = "", label_selector: str = "", field_selector: str = ""
) -> list[dict]:
    """The PodMetrics of one pod (404s as metrics-server's) or of the pods in `namespace` ("" for
    every namespace) the selectors pick, by namespace and name."""
    now, scrape = clock.now(), cluster_sample(cluster)
    if name:
        api.get(cluster, "Pod", namespace, name)  # `pods "x" not found`
        usage = scrape.pods.get((namespace, name))
        if usage is None:
            raise _not_found(metrics_api.POD_METRICS_RESOURCE, f"{namespace}/{name}")
        return [metrics_api.pod_metrics(usage, scrape, now)]
    items = [
        metrics_api.pod_metrics(p, scrape, now)
        for key, p in sorted(scrape.pods.items())
        if not namespace or key[0] == namespace
    ]
    return _selected(items, label_selector, field_selector)


def _answer(request: HttpRequest, cluster_name: str, rest: str) -> HttpResponse:
    match = _PATH.match(rest)
    if match is None or (match["namespace"] and match["resource"] == "nodes"):
        raise no_such_resource()
    resource, namespace, name = match["resource"], match["namespace"] or "", match["name"] or ""
    if request.method not in ("GET", "HEAD") or flag(request, "watch"):
        raise method_not_allowed("watch" if request.method == "GET" else request.method or "")
    cluster = get_cluster(
        request,
        cluster_name,
        verb="get" if name else "list",
        resource=resource,
        group=metrics_api.GROUP,
        namespace=namespace,
        name=name,
    )
    if not name:
        limit_anonymous_read(request)
    labels, fields = request.GET.get("labelSelector", ""), request.GET.get("fieldSelector", "")
    if resource == "nodes":
        parse_field_selector("PodMetrics", fields)
        items, kind = node_metrics(cluster, name, labels), "NodeMetrics"
    else:
        items, kind = pod_metrics(cluster, namespace, name, labels, fields), "PodMetrics"
    version = table_version(request.headers.get("Accept", ""))
    if version is not None:
        return json_response(metrics_api.table(items, version))
    return json_response(items[0] if name else metrics_api.metrics_list(kind, items))


@csrf_exempt
def resource_metrics(request: HttpRequest, cluster: str, rest: str) -> HttpResponse:
    try:
        return _answer(request, cluster, rest)
    except ApiError as err:
        return error_response(err)
