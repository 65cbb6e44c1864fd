"""The resource quota controller of kube-controller-manager (pkg/controller/resourcequota): each
ResourceQuota's `status.hard` (its spec's) and `status.used`, recalculated from the objects of its
namespace whenever one of them changes, by the arithmetic admission uses
(cluster/apiserver/admission/resourcequota.py `usage_of`, k8s/quota.py).

One informer of ResourceQuotas, and one of the kinds they count that runs only while some quota
exists: a cluster without quotas reads nothing twice.
"""

from __future__ import annotations

import contextlib

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.admission.resourcequota import counted_kinds, usage_of
from cluster.apiserver.errors import ApiError
from cluster.client.informer import Delta, Informer, db
from cluster.flow.steps import CONTROLLER_MANAGER_PORT
from cluster.flow.writers import COMPONENT
from cluster.models import Cluster


class _Informers:
    """The controller's informers as the control plane handles one (`stale`, `close`)."""

    def __init__(self, controller: ResourceQuotaController) -> None:
        self.controller = controller

    @property
    def stale(self) -> bool:
        return self.controller.quotas.stale

    @stale.setter
    def stale(self, value: bool) -> None:
        for informer in (self.controller.quotas, self.controller.objects):
            if informer is not None:
                informer.stale = value

    def close(self) -> None:
        self.controller.quotas.close()
        if self.controller.objects is not None:
            self.controller.objects.close()


class ResourceQuotaController:
    component = "resourcequota-controller"

    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.quotas = Informer(
            cluster_name, self.component, ("ResourceQuota",), "ResourceQuotas", CONTROLLER_MANAGER_PORT
        )
        self.objects: Informer | None = None
        self.informer = _Informers(self)
        self.cluster: Cluster | None = None
        self.dirty: set[str] = set()  # namespaces whose quotas to recalculate

    def _sync(self, informer: Informer) -> list[Delta]:
        if self.cluster is None:
            self.cluster = Cluster.objects.get(name=self.cluster_name)
        return informer.sync()

    def _follow_objects(self) -> None:
        """Watch the kinds the quotas count; a new set of kinds is listed afresh."""
        hard = {name for quota in self.quotas.items("ResourceQuota") for name in _hard(quota)}
        kinds = tuple(counted_kinds(hard))
        if self.objects is not None and self.objects.kinds != kinds:
            self.objects.close()
            self.objects = None
        if self.objects is None and kinds:
            self.objects = Informer(
                self.cluster_name,
                f"{self.component}/objects",
                kinds,
                "what ResourceQuotas count",
                CONTROLLER_MANAGER_PORT,
            )

    async def step(self) -> bool:
        deltas = [] if self.quotas.up_to_date() else await db(self._sync)(self.quotas)
        self._follow_objects()
        if self.objects is not None and not self.objects.up_to_date():
            deltas += await db(self._sync)(self.objects)
        for delta in deltas:
            self.dirty.add(delta.key[0])
        if not self.dirty:
            return bool(deltas) or self.quotas.behind or bool(self.objects and self.objects.behind)
        dirty, self.dirty = self.dirty, set()
        for namespace in sorted(dirty):
            await db(self.sync_namespace)(namespace)
        return True

    # -- database thread ---------------------------------------------------------------------
    def sync_namespace(self, namespace: str) -> None:
        quotas = [q for (ns, _), q in sorted(self.quotas.store["ResourceQuota"].items()) if ns == namespace]
        if not quotas:
            return
        objects: dict[str, list[dict]] = {}
        if self.objects is not None:
            for kind in self.objects.kinds:
                objects[kind] = [obj for (ns, _), obj in self.objects.store[kind].items() if ns == namespace]
        for quota in quotas:
            hard = _hard(quota)
            used = usage_of(quota, objects)
            status = {"hard": dict(hard), "used": {name: str(total) for name, total in sorted(used.items())}}
            if quota.get("status") == status:
                continue
            body = {**quota, "status": status}
            with contextlib.suppress(ApiError):  # gone, or changed meanwhile: its event brings us back
                actor = Actor("controller-manager", self.component, flow=COMPONENT)
                stored = api.update(self.cluster, body, actor, "status")
                self.quotas.store["ResourceQuota"][(namespace, quota["metadata"]["name"])] = stored


def _hard(quota: dict) -> dict:
    hard = (quota.get("spec") or {}).get("hard")
    return hard if isinstance(hard, dict) else {}
