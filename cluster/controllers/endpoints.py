"""The endpoints and endpointslice controllers of kube-controller-manager: for every Service with a
selector, the addresses of the pods it selects, kept in an Endpoints object of the Service's name
and in EndpointSlices labelled `kubernetes.io/service-name` (upstream `pkg/controller/endpoint`,
`pkg/controller/endpointslice`).

Ready pods are `addresses` (slices: `conditions.ready: true`); pods not ready yet are
`notReadyAddresses` (`ready: false`). A pod without an IP is not an endpoint yet. A Service
without a selector is left alone: its Endpoints are the user's to write. Each change the
controller makes reaches the page as an Endpoints event; the flow lists those that concern the
followed trace's pods beside the course's 13 numbered steps (static/kubesim/flow_view.js).
"""

from __future__ import annotations

import contextlib

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError
from cluster.client.informer import Delta, Informer, db
from cluster.controllers.pods import is_ready, random_suffix
from cluster.flow.steps import CONTROLLER_MANAGER_PORT
from cluster.flow.writers import COMPONENT
from cluster.models import Cluster

SERVICE_NAME = "kubernetes.io/service-name"
MANAGED_BY = "endpointslice.kubernetes.io/managed-by"
SLICE_MANAGER = "endpointslice-controller.k8s.io"
HEADLESS = "service.kubernetes.io/headless"
Key = tuple[str, str]


def selects(service: dict, labels: dict) -> bool:
    selector = (service.get("spec") or {}).get("selector") or {}
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def _container_port(pod: dict, name: str) -> int | None:
    for container in (pod.get("spec") or {}).get("containers") or []:
        for port in container.get("ports") or []:
            if port.get("name") == name:
                return port.get("containerPort")
    return None


def resolved_ports(service: dict, pod: dict) -> tuple[tuple[str, int, str], ...] | None:
    """The pod's (name, port, protocol) for each Service port; None when a named targetPort is not
    one of its container ports (upstream skips such a pod)."""
    ports = []
    for port in (service.get("spec") or {}).get("ports") or []:
        target = port.get("targetPort", port.get("port"))
        number = _container_port(pod, target) if isinstance(target, str) else target
        if number is None:
            return None
        ports.append((port.get("name") or "", int(number), port.get("protocol", "TCP")))
    return tuple(ports)


def _address(pod: dict, service: dict) -> dict:
    meta = pod["metadata"]
    address = {"ip": pod["status"]["podIP"]}
    # ShouldSetHostname: a pod whose subdomain names this Service (a StatefulSet's) is known by
    # its hostname: CoreDNS answers <hostname>.<service>.<namespace>.svc.cluster.local.
    spec, service_meta = pod.get("spec") or {}, service["metadata"]
    if (
        spec.get("hostname")
        and spec.get("subdomain") == service_meta["name"]
        and meta.get("namespace", "") == service_meta.get("namespace", "")
    ):
        address["hostname"] = spec["hostname"]
    if (pod.get("spec") or {}).get("nodeName"):
        address["nodeName"] = pod["spec"]["nodeName"]
    address["targetRef"] = {
        "kind": "Pod",
        "namespace": meta.get("namespace", ""),
        "name": meta["name"],
        "uid": meta.get("uid", ""),
    }
    return address


def _ip_key(address: dict) -> tuple:
    return tuple(int(part) for part in address["ip"].split(".")) if "." in address["ip"] else (address["ip"],)


def endpoint_pods(service: dict, pods: list[dict]) -> list[dict]:
    """The selected pods that can be endpoints: an IP, not finished."""
    return [
        pod
        for pod in pods
        if selects(service, (pod.get("metadata") or {}).get("labels") or {})
        and (pod.get("status") or {}).get("podIP")
        and (pod.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    ]


def desired_subsets(service: dict, pods: list[dict]) -> list[dict]:
    """Endpoints.subsets: one subset per distinct port set, addresses sorted by IP (RepackSubsets)."""
    groups: dict[tuple, dict[str, list[dict]]] = {}
    for pod in endpoint_pods(service, pods):
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            continue
        ports = resolved_ports(service, pod)
        if ports is None:
            continue
        group = groups.setdefault(ports, {"addresses": [], "notReadyAddresses": []})
        group["addresses" if is_ready(pod) else "notReadyAddresses"].append(_address(pod, service))
    subsets = []
    for ports, group in groups.items():
        subset: dict = {}
        for field in ("addresses", "notReadyAddresses"):
            if group[field]:
                subset[field] = sorted(group[field], key=_ip_key)
        if ports:
            subset["ports"] = [
                {**({"name": name} if name else {}), "port": port, "protocol": protocol}
                for name, port, protocol in ports
            ]
        subsets.append(subset)
    return subsets


def desired_slices(service: dict, pods: list[dict]) -> list[tuple[list[dict], list[dict]]]:
    """(ports, endpoints) of each EndpointSlice: one per port set; one empty slice when no pod is."""
    groups: dict[tuple, list[dict]] = {}
    for pod in endpoint_pods(service, pods):
        ports = resolved_ports(service, pod)
        if ports is None:
            continue
        ready = is_ready(pod)
        terminating = bool((pod.get("metadata") or {}).get("deletionTimestamp"))
        address = _address(pod, service)
        endpoint = {
            "addresses": [address["ip"]],
            "conditions": {"ready": ready and not terminating, "serving": ready, "terminating": terminating},
        }
        if "hostname" in address:
            endpoint["hostname"] = address["hostname"]
        endpoint["targetRef"] = address["targetRef"]
        if "nodeName" in address:
            endpoint["nodeName"] = address["nodeName"]
        groups.setdefault(ports, []).append(endpoint)
    if not groups:
        ports = resolved_ports(service, {}) or ()
        return [(_slice_ports(ports), [])]
    return [
        (_slice_ports(ports), sorted(endpoints, key=lambda e: _ip_key({"ip": e["addresses"][0]})))
        for ports, endpoints in groups.items()
    ]


def _slice_ports(ports: tuple) -> list[dict]:
    return [{"name": name, "port": port, "protocol": protocol} for name, port, protocol in ports]


class _Informers:
    """The controller's informers as the control plane handles one (`stale`, `close`)."""

    def __init__(self, controller: EndpointsController) -> None:
        self.controller = controller

    @property
    def stale(self) -> bool:
        return self.controller.services.stale

    @stale.setter
    def stale(self, value: bool) -> None:
        for informer in (self.controller.services, self.controller.pods):
            if informer is not None:
                informer.stale = value

    def close(self) -> None:
        self.controller.services.close()
        if self.controller.pods is not None:
            self.controller.pods.close()


class EndpointsController:
    """Both controllers over one informer of Services and what they write, and one of Pods that
    runs only while some Service has a selector: a cluster without Services reads no pod twice."""

    component = "endpoints-controller"

    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.services = Informer(
            cluster_name,
            self.component,
            ("Service", "Endpoints", "EndpointSlice"),
            "Services, Endpoints and EndpointSlices",
            CONTROLLER_MANAGER_PORT,
        )
        self.pods: Informer | None = None
        self.informer = _Informers(self)
        self.cluster: Cluster | None = None
        self.dirty: set[Key] = set()  # Services to sync on this pass

    def actor(self, detail: str) -> Actor:
        return Actor("controller-manager", detail, flow=COMPONENT)

    def _sync(self, informer: Informer) -> list[Delta]:
        if self.cluster is None:
            self.cluster = Cluster.objects.get(name=self.cluster_name)
        return informer.sync()

    def _follow_pods(self) -> None:
        """Watch Pods while a Service selects some; stop when none does."""
        wanted = any((s.get("spec") or {}).get("selector") for s in self.services.store["Service"].values())
        if wanted and self.pods is None:
            self.pods = Informer(
                self.cluster_name, f"{self.component}/pods", ("Pod",), "Pods", CONTROLLER_MANAGER_PORT
            )
        elif not wanted and self.pods is not None:
            self.pods.close()
            self.pods = None

    async def step(self) -> bool:
        deltas = [] if self.services.up_to_date() else await db(self._sync)(self.services)
        self._follow_pods()
        if self.pods is not None and not self.pods.up_to_date():
            deltas += await db(self._sync)(self.pods)
        for delta in deltas:
            self._observe(delta)
        if not self.dirty:
            return bool(deltas) or self.services.behind or bool(self.pods and self.pods.behind)
        dirty, self.dirty = self.dirty, set()
        for key in sorted(dirty):
            await db(self.sync_service)(key)
        return True

    def _mark(self, key: Key) -> None:
        self.dirty.add(key)

    def _observe(self, delta: Delta) -> None:
        namespace = delta.key[0]
        if delta.kind in ("Service", "Endpoints"):  # an Endpoints edited by hand is put right
            self._mark(delta.key)
        elif delta.kind == "EndpointSlice":
            service = ((delta.obj.get("metadata") or {}).get("labels") or {}).get(SERVICE_NAME)
            if service:
                self._mark((namespace, service))
        elif delta.kind == "Pod":
            labels = [(o.get("metadata") or {}).get("labels") or {} for o in (delta.obj, delta.old) if o]
            for (svc_namespace, svc_name), service in self.services.store["Service"].items():
                if svc_namespace == namespace and any(selects(service, lab) for lab in labels):
                    self._mark((svc_namespace, svc_name))

    def _pods(self, namespace: str) -> list[dict]:
        if self.pods is None:
            return []
        return [pod for (ns, _), pod in self.pods.store["Pod"].items() if ns == namespace]

    # -- database thread ---------------------------------------------------------------------
    def sync_service(self, key: Key) -> None:
        service = self.services.get("Service", *key)
        if service is None:
            self._forget(key)
            return
        if not (service.get("spec") or {}).get("selector"):
            return  # no selector: its Endpoints are written by hand
        pods = self._pods(key[0])
        self._sync_endpoints(service, pods)
        self._sync_slices(service, pods)

    def _forget(self, key: Key) -> None:
        actor = self.actor("endpoints-controller")
        if self.services.get("Endpoints", *key) is not None:
            self._delete("Endpoints", key[0], key[1], actor)
        for (namespace, name), eps in list(self.services.store["EndpointSlice"].items()):
            labels = (eps.get("metadata") or {}).get("labels") or {}
            if namespace == key[0] and labels.get(SERVICE_NAME) == key[1] and labels.get(MANAGED_BY):
                self._delete("EndpointSlice", namespace, name, actor)

    def _delete(self, kind: str, namespace: str, name: str, actor: Actor) -> None:
        with contextlib.suppress(ApiError):  # already gone
            api.delete(self.cluster, kind, namespace, name, actor)

    def _sync_endpoints(self, service: dict, pods: list[dict]) -> list[dict] | None:
        """Write the Endpoints when they differ; the subsets written, or None."""
        meta = service["metadata"]
        namespace, name = meta.get("namespace", "default"), meta["name"]
        subsets = desired_subsets(service, pods)
        labels = dict(meta.get("labels") or {})
        if (service.get("spec") or {}).get("clusterIP") == "None":
            labels[HEADLESS] = ""
        current = self.services.get("Endpoints", namespace, name)
        actor = self.actor("endpoints-controller")
        body = {
            "apiVersion": "v1",
            "kind": "Endpoints",
            "metadata": {"name": name, "namespace": namespace, **({"labels": labels} if labels else {})},
        }
        if subsets:
            body["subsets"] = subsets
        try:
            if current is None:
                stored = api.create(self.cluster, body, actor)
            else:
                if (current.get("subsets") or []) == subsets and (
                    (current.get("metadata") or {}).get("labels") or {}
                ) == labels:
                    return None
                body["metadata"] = {**current["metadata"], "labels": labels}
                body["metadata"].pop("resourceVersion", None)
                stored = api.update(self.cluster, body, actor)
        except ApiError:
            return None
        self.services.store["Endpoints"][(namespace, name)] = stored
        return subsets

    def _sync_slices(self, service: dict, pods: list[dict]) -> None:
        meta = service["metadata"]
        namespace, name = meta.get("namespace", "default"), meta["name"]
        mine = [
            eps
            for (ns, _), eps in sorted(self.services.store["EndpointSlice"].items())
            if ns == namespace
            and ((eps.get("metadata") or {}).get("labels") or {}).get(SERVICE_NAME) == name
            and ((eps.get("metadata") or {}).get("labels") or {}).get(MANAGED_BY) == SLICE_MANAGER
        ]
        labels = {**(meta.get("labels") or {}), SERVICE_NAME: name, MANAGED_BY: SLICE_MANAGER}
        if (service.get("spec") or {}).get("clusterIP") == "None":
            labels[HEADLESS] = ""
        owner = {
            "apiVersion": "v1",
            "kind": "Service",
            "name": name,
            "uid": meta.get("uid", ""),
            "controller": True,
            "blockOwnerDeletion": True,
        }
        actor = self.actor("endpointslice-controller")
        for index, (ports, endpoints) in enumerate(desired_slices(service, pods)):
            current = mine[index] if index < len(mine) else None
            body = {
                "apiVersion": "discovery.k8s.io/v1",
                "kind": "EndpointSlice",
                "metadata": {
                    "generateName": f"{name}-",
                    "name": f"{name}-{random_suffix()}",
                    "namespace": namespace,
                    "labels": labels,
                    "ownerReferences": [owner],
                },
                "addressType": "IPv4",
                "endpoints": endpoints or None,  # Go's nil slice: `endpoints: null`
                "ports": ports,
            }
            try:
                if current is None:
                    stored = api.create(self.cluster, body, actor)
                elif (
                    (current.get("endpoints") or []) == endpoints
                    and (current.get("ports") or []) == ports
                    and (current["metadata"].get("labels") or {}) == labels
                ):
                    continue
                else:
                    body["metadata"] = {**current["metadata"], "labels": labels}
                    body["metadata"].pop("resourceVersion", None)
                    stored = api.update(self.cluster, body, actor)
            except ApiError:
                continue
            key = (namespace, stored["metadata"]["name"])
            self.services.store["EndpointSlice"][key] = stored
        for extra in mine[len(desired_slices(service, pods)) :]:
            self._delete("EndpointSlice", namespace, extra["metadata"]["name"], actor)
