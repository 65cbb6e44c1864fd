"""Routes kubectl needs besides the objects themselves: /version, discovery and OpenAPI v2 and v3.

Included before cluster.api's routes, so these exact paths win over cluster.api's object paths.
"""

from __future__ import annotations

from django.urls import path, re_path

from cluster.kubeapi import views

urlpatterns = [
    path("clusters/<slug:cluster>/version", views.version),
    path("clusters/<slug:cluster>/api", views.core_api),
    path("clusters/<slug:cluster>/apis", views.named_apis),
    path("clusters/<slug:cluster>/api/<str:version>", views.resource_list),
    path("clusters/<slug:cluster>/apis/<str:group>", views.api_group),
    path("clusters/<slug:cluster>/apis/<str:group>/<str:version>", views.resource_list),
    path("clusters/<slug:cluster>/openapi/v2", views.openapi_v2),
    path("clusters/<slug:cluster>/openapi/v3", views.openapi_root),
    re_path(r"^clusters/(?P<cluster>[-\w]+)/openapi/v3/(?P<gv_path>apis?/[-.\w/]+)$", views.openapi_document),
]
