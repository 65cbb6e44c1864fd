"""The simulated API server's REST paths under /clusters/<cluster>/ (Kubernetes' own layout)."""

from __future__ import annotations

from django.urls import include, path, re_path

from cluster.api import health, metrics, resource_metrics, reviews, views

CLUSTER = r"^clusters/(?P<cluster>[-a-z0-9]+)/"

urlpatterns = [
    re_path(
        CLUSTER + r"apis/(?P<group>authorization\.k8s\.io)/v1/"
        r"(?P<resource>selfsubjectaccessreviews|selfsubjectrulesreviews)/?$",
        reviews.review,
    ),
    re_path(
        CLUSTER + r"apis/(?P<group>authentication\.k8s\.io)/v1/(?P<resource>selfsubjectreviews)/?$",
        reviews.review,
    ),
    re_path(CLUSTER + r"(?P<endpoint>healthz|livez|readyz)(?:/(?P<check>[^/]+))?/?$", health.health),
    path("clusters/<slug:cluster>/metrics", metrics.metrics_view),
    re_path(CLUSTER + r"apis/metrics\.k8s\.io/v1beta1/(?P<rest>.+)$", resource_metrics.resource_metrics),
    re_path(CLUSTER + r"api/v1/(?P<rest>.+)$", views.core),
    re_path(CLUSTER + r"apis/(?P<group>[^/]+)/(?P<version>v[^/]+)/(?P<rest>.+)$", views.grouped),
    path("clusters/<slug:cluster>/apply", views.apply),
    # The flow's endpoints (snapshot, flow/next, traces, scheduling) live beside the API.
    path("clusters/<slug:cluster>/", include("cluster.flow.urls")),
    # Who may write, the quota, and the caller's kubeconfig (cluster.auth).
    path("clusters/<slug:cluster>/", include("cluster.auth.urls")),
]
