from django.apps import AppConfig


class SchedulerConfig(AppConfig):
    name = "scheduler"
    verbose_name = "Scheduler"

    def ready(self) -> None:
        # What the cluster's code needs of the scheduler, provided here so that the cluster never
        # imports the scheduler's service, queue or models (cluster/schedulerport.py). Imported
        # here: the app registry must be ready before models are imported.
        from cluster.schedulerport import SchedulerApp, provide
        from scheduler import explanations, queue_view, retention
        from scheduler.service import Scheduler

        provide(
            SchedulerApp(
                component=Scheduler,
                pending=queue_view.pending,
                decision=explanations.decision_of,
                prune=retention.prune_attempts,
            )
        )
