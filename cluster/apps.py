from django.apps import AppConfig


class ClusterConfig(AppConfig):
    name = "cluster"
    verbose_name = "Simulated cluster"

    def ready(self) -> None:
        # Late registration (docs/architecture.md rule 10), each idempotent: the kinds the API
        # server serves; every cluster's quota, a Service's addresses, Priority, LimitRanger and
        # ResourceQuota as admission functions (upstream's order: ResourceQuota last). Imported
        # here: the app registry must be ready before models are imported.
        from cluster.apiserver.admission import (
            limitranger,
            namespacelifecycle,
            priority,
            quota,
            resourcequota,
            serviceaccount,
            storageclass,
            storageprotection,
        )
        from cluster.kinds import builtin
        from cluster.kinds.core import serviceips

        builtin.register_builtin_kinds()
        namespacelifecycle.install()  # first, as upstream: nothing new in a Terminating namespace
        quota.install()
        serviceips.install()  # a Service's clusterIP and node ports, chosen inside its write
        priority.install()
        serviceaccount.install()  # the pod's ServiceAccount, its token volume
        storageclass.install()  # DefaultStorageClass: a claim without a class gets the default
        storageprotection.install()  # the pvc/pv-protection finalizers
        limitranger.install()
        resourcequota.install()
