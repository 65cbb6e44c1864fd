"""The Django admin's view of clusters: the teacher's policy (who may write, the quota)."""

from __future__ import annotations

from django.contrib import admin

from cluster.models import Cluster


@admin.register(Cluster)
class ClusterAdmin(admin.ModelAdmin):
    list_display = ("name", "public", "owner", "class_may_write", "quota", "revision")
    list_editable = ("class_may_write",)
    fields = ("name", "public", "owner", "class_may_write", "quota", "pace_ms")
    readonly_fields = ("name", "public", "owner")
