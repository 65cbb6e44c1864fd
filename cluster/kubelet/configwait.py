"""The kubelet's part for ConfigMaps and Secrets: before it creates the containers it resolves
their env and volumes (cluster/kubelet/configsources.py). When something referenced is missing the
pod waits: CreateContainerConfigError for env, ContainerCreating with FailedMount for a volume,
and the kubelet tries again every CONFIG_RETRY_SECONDS (its pod worker's back-off period), so the
pod starts soon after the ConfigMap or Secret is created."""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.client.informer import db
from cluster.kubelet import configsources, runtime

CONFIG_RETRY_SECONDS = 10.0


class _LookupNeeded(Exception):
    pass


def _needs_lookup(kind: str, namespace: str, name: str) -> dict | None:
    raise _LookupNeeded


class ConfigDuties:
    """Mixed into KubeletManager: needs `cluster`, `_event` and `_write_status`."""

    def _lookup(self, kind: str, namespace: str, name: str) -> dict | None:
        try:
            return api.get(self.cluster, kind, namespace, name)
        except ApiError:
            return None

    def _config_problem(self, pod: dict) -> configsources.ConfigError | None:
        return configsources.pod_problem(pod, self._lookup)

    async def config_problem(self, pod: dict) -> configsources.ConfigError | None:
        """The pod's config problem; read in the database thread only when the pod names a
        ConfigMap or Secret (a scale-up's thousand plain pods made a thousand trips there)."""
        try:
            return configsources.pod_problem(pod, _needs_lookup)
        except _LookupNeeded:
            return await db(self._config_problem)(pod)

    def _config_failed(
        self,
        pod: dict,
        node: str,
        host_ip: str,
        pod_ip: str,
        problem: configsources.ConfigError,
        trace_id: str | None,
    ) -> None:
        """Report the wait: the Warning event, then the waiting status (the trace's step 13)."""
        containers = pod["spec"].get("containers") or []
        if problem.volume:
            message = f'MountVolume.SetUp failed for volume "{problem.volume}" : {problem.message}'
            self._event(pod, node, "FailedMount", message, containers[0], "Warning", field_path="")
            status = runtime.waiting_status(pod, host_ip, "ContainerCreating")
        else:
            self._event(pod, node, "Failed", f"Error: {problem.message}", containers[0], "Warning")
            status = runtime.waiting_status(
                pod, host_ip, "CreateContainerConfigError", problem.message, pod_ip
            )
        self._write_status(pod, status, trace_id, node)
