"""The kinds KubeSim serves, each from its own module (docs/adding-a-kind.md), in discovery's order:
groups in first-seen order, the core group first, kinds in the order listed.

Names, short names, categories, verbs and subresources are the real v1.33 API server's, so that
kubectl's RESTMapper resolves `po`, `rc`, `deploy`, ... exactly as it does against a real cluster.
`cluster/apps.py` registers them when Django is ready.
"""

from __future__ import annotations

from cluster.apiserver.kinds import KindInfo, kind_info, register
from cluster.kinds.apps import controllerrevision, daemonset, deployment, replicaset, statefulset
from cluster.kinds.autoscaling import horizontalpodautoscaler
from cluster.kinds.batch import cronjob, job
from cluster.kinds.coordination import lease
from cluster.kinds.core import (
    configmap,
    endpoints,
    event,
    limitrange,
    namespace,
    node,
    persistentvolume,
    persistentvolumeclaim,
    pod,
    podtemplate,
    replicationcontroller,
    resourcequota,
    secret,
    service,
    serviceaccount,
)
from cluster.kinds.discovery import endpointslice
from cluster.kinds.policy import poddisruptionbudget
from cluster.kinds.rbac import clusterrole, clusterrolebinding, role, rolebinding
from cluster.kinds.scheduling import priorityclass
from cluster.kinds.storage import csidriver, csinode, storageclass

BUILTIN_KINDS: tuple[KindInfo, ...] = (
    pod.KIND,
    node.KIND,
    replicationcontroller.KIND,
    replicaset.KIND,
    deployment.KIND,
    daemonset.KIND,
    statefulset.KIND,
    controllerrevision.KIND,
    horizontalpodautoscaler.KIND,
    event.KIND,
    namespace.KIND,
    job.KIND,
    cronjob.KIND,
    priorityclass.KIND,
    lease.KIND,
    configmap.KIND,
    secret.KIND,
    podtemplate.KIND,
    serviceaccount.KIND,
    resourcequota.KIND,
    limitrange.KIND,
    service.KIND,
    endpoints.KIND,
    persistentvolumeclaim.KIND,
    persistentvolume.KIND,
    endpointslice.KIND,
    poddisruptionbudget.KIND,
    storageclass.KIND,
    csinode.KIND,
    csidriver.KIND,
    clusterrolebinding.KIND,
    clusterrole.KIND,
    rolebinding.KIND,
    role.KIND,
)


def register_builtin_kinds() -> None:
    """Serve every built-in kind (`cluster/apps.py` calls it when Django is ready; again, it
    changes nothing)."""
    for info in BUILTIN_KINDS:
        if kind_info(info.kind) is not info:
            register(info)
