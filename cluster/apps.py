from django.apps import AppConfig


class ClusterConfig(AppConfig):
    name = "cluster"
    verbose_name = "Simulated cluster"

    def ready(self) -> None:
        # Every cluster's quota is an admission function of the API server (idempotent).
        from cluster import quota

        quota.install()
