"""What a kubelet does for its node: registration and status reports, the Lease heartbeat, pod IPs."""

from __future__ import annotations

import copy

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.kubelet import power, runtime
from k8s import clock

LEASE_SECONDS = 40


class NodeDuties:
    """Mixed into KubeletManager: needs `informer`, `cluster`, `cluster_name`, `node_index`, `ips`
    and `_actor`."""

    def _node(self, name: str) -> dict | None:
        return self.informer.get("Node", "", name)

    def _host_ip(self, node: str) -> str:
        for address in ((self._node(node) or {}).get("status") or {}).get("addresses") or []:
            if address.get("type") == "InternalIP":
                return address["address"]
        return f"192.168.56.{10 + self.node_index.get(node, 0)}"

    def _register(self, name: str) -> None:
        node = self._node(name)
        if node is None or power.is_stopped(self.cluster_name, name):
            return
        body = copy.deepcopy(node)
        body["status"] = runtime.node_status(node, self.node_index.get(name, 0))
        body["metadata"].pop("resourceVersion", None)
        try:
            api.update(self.cluster, body, self._actor(None, name), subresource="status")
        except ApiError:
            return

    def _allocate_ip(self, node: str) -> str:
        cidr = ((self._node(node) or {}).get("spec") or {}).get("podCIDR") or ""
        prefix = cidr.rsplit(".", 1)[0] if cidr else f"10.244.{self.node_index.get(node, 0)}"
        used = self.ips.setdefault(node, set())
        for host in range(2, 255):
            ip = f"{prefix}.{host}"
            if ip not in used:
                used.add(ip)
                return ip
        raise RuntimeError(f"node {node} has no free pod IP")

    def _free_ip(self, node: str | None, pod: dict) -> None:
        ip = (pod.get("status") or {}).get("podIP")
        if node and ip:
            self.ips.get(node, set()).discard(ip)

    def node_names(self) -> list[str]:
        return [name for _, name in self.informer.store["Node"]]

    def report_node_status(self, node: str) -> None:
        """nodeStatusReportFrequency: the full status with fresh heartbeats, every 5 minutes."""
        self._register(node)

    def renew_lease(self, node: str) -> None:
        if power.is_stopped(self.cluster_name, node):
            return  # a stopped kubelet posts nothing
        actor = self._actor(None, node)
        now = clock.now().strftime("%Y-%m-%dT%H:%M:%S.%fZ")  # a MicroTime
        try:
            lease = api.get(self.cluster, "Lease", "kube-node-lease", node)
        except ApiError:
            lease = None
        if lease is None:
            body = {
                "apiVersion": "coordination.k8s.io/v1",
                "kind": "Lease",
                "metadata": {"name": node, "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": node, "leaseDurationSeconds": LEASE_SECONDS, "renewTime": now},
            }
            try:
                api.create(self.cluster, body, actor)
            except ApiError:
                return
            return
        lease["spec"]["renewTime"] = now
        lease["metadata"].pop("resourceVersion", None)
        try:
            api.update(self.cluster, lease, actor)
        except ApiError:
            return
