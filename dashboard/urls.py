"""Dashboard routes: the page at /clusters/<cluster>/ and its helpers under /clusters/<cluster>/ui/."""

from __future__ import annotations

from django.urls import path

from dashboard import views

app_name = "dashboard"

urlpatterns = [
    path("", views.index, name="index"),
    path("presenter/", views.presenter, name="presenter"),
    path("clusters/<slug:cluster>/", views.cluster_page, name="cluster"),
    path("clusters/<slug:cluster>/ui/console", views.console, name="console"),
    path("clusters/<slug:cluster>/ui/files", views.save_file, name="save_file"),
    path(
        "clusters/<slug:cluster>/ui/describe/<str:kind>/<str:namespace>/<str:name>",
        views.describe,
        name="describe",
    ),
    path(
        "clusters/<slug:cluster>/ui/events/<str:kind>/<str:namespace>/<str:name>",
        views.events,
        name="events",
    ),
]
