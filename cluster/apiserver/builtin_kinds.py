"""The kinds KubeSim serves, registered once with everything each needs (docs/adding-a-kind.md).

Names, short names, categories, verbs and subresources are the real v1.33 API server's, so that
kubectl's RESTMapper resolves `po`, `rc`, `deploy`, ... exactly as it does against a real cluster.
The order is discovery's: groups in first-seen order, the core group first.
"""

from __future__ import annotations

from cluster.apiserver import defaults, validators
from cluster.apiserver.kinds import (
    YAML_ONLY,
    KindInfo,
    Subresource,
    register,
    scale_subresource,
    status_subresource,
)
from cluster.kubeapi import tables
from cluster.kubeapi.describe import describe_node_of, describe_pod_of

BUILTIN = (
    KindInfo(
        "Pod",
        "pods",
        "pod",
        "",
        "v1",
        True,
        short_names=("po",),
        categories=("all",),
        subresources=(
            Subresource("binding", "Binding", ("create",)),
            Subresource("log", "Pod", ("get",)),
            status_subresource("Pod"),
        ),
        reset_rank=40,
        defaults=defaults.POD,
        validate=validators.POD,
        table=tables.POD,
        describe=describe_pod_of,
    ),
    KindInfo(
        "Node",
        "nodes",
        "node",
        "",
        "v1",
        False,
        short_names=("no",),
        subresources=(status_subresource("Node"),),
        reset_rank=60,
        defaults=defaults.NODE,
        validate=validators.NODE,
        table=tables.NODE,
        describe=describe_node_of,
    ),
    KindInfo(
        "ReplicationController",
        "replicationcontrollers",
        "replicationcontroller",
        "",
        "v1",
        True,
        short_names=("rc",),
        categories=("all",),
        subresources=(scale_subresource(), status_subresource("ReplicationController")),
        workload=True,
        reset_rank=30,
        defaults=defaults.REPLICATION_CONTROLLER,
        validate=validators.REPLICATION_CONTROLLER,
        table=tables.REPLICATION_CONTROLLER,
        describe=YAML_ONLY,
    ),
    KindInfo(
        "ReplicaSet",
        "replicasets",
        "replicaset",
        "apps",
        "v1",
        True,
        short_names=("rs",),
        categories=("all",),
        subresources=(scale_subresource(), status_subresource("ReplicaSet", "apps")),
        workload=True,
        reset_rank=20,  # before ReplicationControllers and Pods: it owns pods
        defaults=defaults.REPLICA_SET,
        validate=validators.APPS_WORKLOAD,
        table=tables.REPLICA_SET,
        describe=YAML_ONLY,
    ),
    KindInfo(
        "Deployment",
        "deployments",
        "deployment",
        "apps",
        "v1",
        True,
        short_names=("deploy",),
        categories=("all",),
        subresources=(scale_subresource(), status_subresource("Deployment", "apps")),
        workload=True,
        reset_rank=10,  # first: it owns ReplicaSets
        defaults=defaults.DEPLOYMENT,
        validate=validators.APPS_WORKLOAD,
        table=tables.DEPLOYMENT,
        describe=YAML_ONLY,
    ),
    KindInfo(
        "Event",
        "events",
        "event",
        "",
        "v1",
        True,
        short_names=("ev",),
        lab_manifest=False,
        reset_rank=50,
        defaults=defaults.no_defaults,
        validate=validators.metadata_only,
        table=tables.EVENT,
        describe=YAML_ONLY,
    ),
    KindInfo(
        "Namespace",
        "namespaces",
        "namespace",
        "",
        "v1",
        False,
        short_names=("ns",),
        subresources=(status_subresource("Namespace"),),
        reset_rank=70,
        defaults=defaults.NAMESPACE,
        validate=validators.metadata_only,
        table=tables.NAMESPACE,
        describe=YAML_ONLY,
    ),
    KindInfo(
        "Lease",
        "leases",
        "lease",
        "coordination.k8s.io",
        "v1",
        True,
        # Node heartbeats: the console, labs and resets leave them to the kubelets.
        console=False,
        lab_manifest=False,
        lab_check=False,
        reset_rank=None,
        defaults=defaults.no_defaults,
        validate=validators.metadata_only,
        table=tables.LEASE,
        describe=YAML_ONLY,
    ),
)

for _info in BUILTIN:
    register(_info)
