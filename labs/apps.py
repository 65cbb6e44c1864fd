from __future__ import annotations

from django.apps import AppConfig


class LabsConfig(AppConfig):
    name = "labs"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Sandbox limits are an admission function of the API server (idempotent registration).
        from labs import limits

        limits.install()
