"""Only the REST API's routes, so these tests do not depend on the dashboard's or kubectl's."""

from __future__ import annotations

from django.urls import include, path

urlpatterns = [path("", include("cluster.api.urls"))]
