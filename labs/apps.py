from __future__ import annotations

from django.apps import AppConfig


class LabsConfig(AppConfig):
    name = "labs"
    default_auto_field = "django.db.models.BigAutoField"
