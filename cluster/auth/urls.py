"""The teacher's controls of a cluster and the caller's kubeconfig, under /clusters/<cluster>/
(included by cluster/api/urls.py)."""

from __future__ import annotations

from django.urls import path

from cluster.auth import views

urlpatterns = [
    path("policy", views.policy_view, name="cluster-policy"),
    path("reset", views.reset_view, name="cluster-reset"),
    path("kubeconfig", views.kubeconfig_view, name="cluster-kubeconfig"),
]
