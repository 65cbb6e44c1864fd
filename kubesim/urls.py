"""Top-level URL configuration: each part of KubeSim owns its own urls module."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # Kubernetes discovery, /version and OpenAPI for real kubectl (cluster.kubeapi).
    path("", include("cluster.kubeapi.urls")),
    # The simulated API server's REST paths under /clusters/<cluster>/ (cluster.api).
    path("", include("cluster.api.urls")),
    # The classroom dashboard pages (dashboard).
    path("", include("dashboard.urls")),
    # Lab exercises: students' join and lab pages, instructors' editor and progress board (labs).
    path("", include("labs.urls")),
]
