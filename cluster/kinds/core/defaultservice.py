"""The `kubernetes` Service every cluster has, with its Endpoints and EndpointSlice.

On a real cluster the API server keeps `default/kubernetes` (10.96.0.1:443 → the API servers'
address :6443) itself and recreates it when deleted. KubeSim serves these three objects from birth,
as it serves the built-in namespaces: they are read like stored objects until someone writes one
(the write stores it from then on); deleting a stored copy brings the built-in one back, as the
API server's reconciler would.
"""

from __future__ import annotations

import uuid

from cluster.apiserver.kinds import BuiltinObjects
from cluster.kinds.core import kubesystem
from cluster.kinds.core.serviceips import kubernetes_ip

NAMESPACE, NAME = "default", "kubernetes"
# The control plane node's address (the course's `master`, 192.168.56.10) and the API port.
API_SERVER_IP = "192.168.56.10"
API_SERVER_PORT = 6443


def _meta(cluster, kind: str, labels: dict) -> dict:
    return {
        "name": NAME,
        "namespace": NAMESPACE,
        "uid": str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesim:{cluster.pk}:{kind}:{NAME}")),
        "resourceVersion": "1",
        "creationTimestamp": cluster.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "labels": labels,
    }


def _service(cluster) -> dict:
    ip = kubernetes_ip()
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(cluster, "Service", {"component": "apiserver", "provider": "kubernetes"}),
        "spec": {
            "clusterIP": ip,
            "clusterIPs": [ip],
            "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "ports": [{"name": "https", "port": 443, "protocol": "TCP", "targetPort": API_SERVER_PORT}],
            "sessionAffinity": "None",
            "type": "ClusterIP",
        },
        "status": {"loadBalancer": {}},
    }


def _endpoints(cluster) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": _meta(cluster, "Endpoints", {"endpointslice.kubernetes.io/skip-mirror": "true"}),
        "subsets": [
            {
                "addresses": [{"ip": API_SERVER_IP}],
                "ports": [{"name": "https", "port": API_SERVER_PORT, "protocol": "TCP"}],
            }
        ],
    }


def _endpoint_slice(cluster) -> dict:
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": _meta(cluster, "EndpointSlice", {"kubernetes.io/service-name": NAME}),
        "addressType": "IPv4",
        "endpoints": [
            {
                "addresses": [API_SERVER_IP],
                "conditions": {"ready": True, "serving": True, "terminating": False},
            }
        ],
        "ports": [{"name": "https", "port": API_SERVER_PORT, "protocol": "TCP"}],
    }


_BUILDERS = {"Service": _service, "Endpoints": _endpoints, "EndpointSlice": _endpoint_slice}


def builtins(cluster, kind: str) -> list[dict]:
    """The built-in objects of a kind (none for most kinds)."""
    return [_BUILDERS[kind](cluster)] if kind in _BUILDERS else []


def builtin_objects(kind: str) -> BuiltinObjects:
    """The registry hook of Service, Endpoints and EndpointSlice: the `kubernetes` one and
    kube-system's `kube-dns` (cluster/kinds/core/kubesystem.py), each stored by its first write."""
    build = _BUILDERS[kind]
    dns_keys, build_dns = kubesystem.objects(kind)

    def builder(cluster, namespace: str, name: str) -> dict:
        if (namespace, name) == (NAMESPACE, NAME):
            return build(cluster)
        return build_dns(cluster, namespace, name)

    return BuiltinObjects(
        keys=((NAMESPACE, NAME), *dns_keys), build=builder, stored_on_write=True, clients_only=dns_keys
    )
