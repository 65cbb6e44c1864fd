"""Top-level URL configuration: each part of KubeSim owns its own urls module."""

from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from cluster.auth import logins

# Every staff page logs in through the admin's form: throttled (cluster/auth/logins.py).
admin.site.login_form = logins.ThrottledLoginForm

urlpatterns = [
    path("admin/login/", logins.throttled(admin.site.login), name="throttled-admin-login"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    # Kubernetes discovery, /version and OpenAPI for real kubectl (cluster.kubeapi).
    path("", include("cluster.kubeapi.urls")),
    # The simulated API server's REST paths under /clusters/<cluster>/ (cluster.api).
    path("", include("cluster.api.urls")),
    # The scheduler's endpoints: a pod's attempts, what-if, its configuration (scheduler).
    path("clusters/<slug:cluster>/", include("scheduler.urls")),
    # The classroom dashboard pages (dashboard).
    path("", include("dashboard.urls")),
    # Lab exercises: students' join and lab pages, instructors' editor and progress board (labs).
    path("", include("labs.urls")),
]
