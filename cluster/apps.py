from django.apps import AppConfig


class ClusterConfig(AppConfig):
    name = "cluster"
    verbose_name = "Simulated cluster"

    def ready(self) -> None:
        # Every cluster's quota is an admission function of the API server, and the flow records
        # each write's steps through the store's write hook (both idempotent). Imported here: the
        # app registry must be ready before models are imported.
        from cluster.apiserver import serviceips, store
        from cluster.apiserver.admission import priority, quota
        from cluster.flow import hooks

        quota.install()
        serviceips.install()  # a Service's clusterIP and node ports, chosen inside its write
        priority.install()
        store.set_write_hook(hooks.on_write)
