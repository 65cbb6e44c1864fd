"""The scheduler's endpoints under /clusters/<cluster>/scheduling/ (included by kubesim/urls.py)."""

from __future__ import annotations

from django.urls import path

from scheduler import configview, views

urlpatterns = [
    path("scheduling/config", configview.config_view, name="scheduling-config"),
    path("scheduling/config/preview", configview.preview_view, name="scheduling-config-preview"),
    path("scheduling/what-if", views.what_if_view, name="scheduling-what-if"),
    path("scheduling/<str:namespace>/<str:pod>", views.scheduling_view, name="scheduling-attempts"),
]
