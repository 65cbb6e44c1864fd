"""The flow's endpoints under /clusters/<cluster>/ (included by cluster/api/urls.py)."""

from __future__ import annotations

from django.urls import path

from cluster.flow import clockview, kubeletview, predictionview, views

urlpatterns = [
    path("snapshot", views.snapshot_view, name="cluster-snapshot"),
    path("flow/steps", views.steps_view, name="flow-steps"),
    path("flow/next", views.next_view, name="flow-next"),
    path("flow/continue", views.continue_view, name="flow-continue"),
    path("flow/pace", views.pace_view, name="flow-pace"),
    path("flow/step_mode", views.step_mode_view, name="flow-step-mode"),
    path("clock", clockview.clock_view, name="cluster-clock"),
    path("kubelets", kubeletview.kubelets_view, name="cluster-kubelets"),
    path("kubelets/<str:node>", kubeletview.kubelet_view, name="cluster-kubelet"),
    path("prediction", predictionview.prediction_view, name="flow-prediction"),
    path("prediction/guess", predictionview.guess_view, name="flow-prediction-guess"),
    path("traces/<str:trace>", views.trace_view, name="flow-trace"),
]
