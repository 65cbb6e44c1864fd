"""kube-system as kubeadm v1.33 leaves a cluster: the control plane's mirror pods on `master`
(etcd, kube-apiserver, kube-controller-manager, kube-scheduler), CoreDNS (a Deployment of 2, its
ReplicaSet and pods, the `kube-dns` Service at 10.96.0.10 with its Endpoints and EndpointSlice),
and the DaemonSets kube-proxy and the CNI's, kube-flannel-ds, with a pod on each course node.

They are served as the cluster's built-in objects (`BuiltinObjects`, as the `kubernetes` Service
and the system namespaces are): every read lists them, shaped as a real cluster's; they are not
stored, so the scheduler does not count their requests and the page does not draw them (the
course's arithmetic and pictures stay the course's). They are read-only: a write finds nothing
to change, and a deletion is refused in kube-apiserver's words, saying it is not simulated.
docs/workloads.md ("kube-system") says what this leaves out.
"""

from __future__ import annotations

import hashlib
import uuid

from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import BuiltinObjects
from cluster.kubelet import images
from cluster.models import ApiObject

NAMESPACE = "kube-system"
CONTROL_PLANE = "master"
NODES = ("master", "node1", "node2")  # the course's nodes (cluster/controlplane/demo.py)
NODE_IPS = {"master": "192.168.56.10", "node1": "192.168.56.11", "node2": "192.168.56.12"}
VERSION = "v1.33.1"
DNS_IP = "10.96.0.10"
COREDNS_IMAGE = "registry.k8s.io/coredns/coredns:v1.12.0"
PROXY_IMAGE = f"registry.k8s.io/kube-proxy:{VERSION}"
FLANNEL_IMAGE = "flannel/flannel:v0.26.7"
COREDNS_HASH = "674b8bbfcf"  # the ReplicaSet's pod-template-hash
NODE_CRITICAL, CLUSTER_CRITICAL = (
    ("system-node-critical", 2000001000),
    ("system-cluster-critical", 2000000000),
)


def _suffix(seed: str, length: int) -> str:
    """A generated name's suffix, stable per object (utilrand's alphabet)."""
    alphabet = "bcdfghjklmnpqrstvwxz2456789"
    digest = hashlib.sha256(seed.encode()).digest()
    return "".join(alphabet[b % len(alphabet)] for b in digest[:length])


COREDNS_PODS = tuple(f"coredns-{COREDNS_HASH}-{_suffix(f'coredns/{i}', 5)}" for i in range(2))
PROXY_PODS = {node: f"kube-proxy-{_suffix(f'kube-proxy/{node}', 5)}" for node in NODES}
FLANNEL_PODS = {node: f"kube-flannel-ds-{_suffix(f'flannel/{node}', 5)}" for node in NODES}
MIRROR_PODS = ("etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler")


def _born(cluster) -> str:
    return cluster.created_at.strftime("%Y-%m-%dT%H:%M:%SZ")


def _uid(cluster, kind: str, name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"kubesim:{cluster.pk}:{kind}:{NAMESPACE}/{name}"))


def _meta(cluster, kind: str, name: str, labels: dict, **extra) -> dict:
    return {
        "name": name,
        "namespace": NAMESPACE,
        "uid": _uid(cluster, kind, name),
        "resourceVersion": "1",
        "creationTimestamp": _born(cluster),
        "labels": labels,
        **extra,
    }


def _node_uid(cluster, node: str) -> str:
    found = ApiObject.objects.filter(cluster_id=cluster.pk, kind="Node", namespace="", name=node)
    return found.values_list("uid", flat=True).first() or ""


def _owner(api_version: str, kind: str, name: str, uid: str, block: bool = True) -> dict:
    ref = {"apiVersion": api_version, "kind": kind, "name": name, "uid": uid, "controller": True}
    if block:
        ref["blockOwnerDeletion"] = True
    return ref


# -- pods ------------------------------------------------------------------------------------------
def _container_status(cluster, name: str, image: str) -> dict:
    found = images.lookup(image)
    return {
        "name": name,
        "state": {"running": {"startedAt": _born(cluster)}},
        "lastState": {},
        "ready": True,
        "restartCount": 0,
        "image": image,
        "imageID": found.image_id if found is not None else "",
        "containerID": "docker://" + hashlib.sha256(f"{cluster.pk}/{name}/{image}".encode()).hexdigest(),
        "started": True,
    }


def _running_status(cluster, node: str, pod_ip: str, containers: list[dict], qos: str) -> dict:
    born = _born(cluster)
    conditions = [
        {"type": kind, "status": "True", "lastProbeTime": None, "lastTransitionTime": born}
        for kind in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
    ]
    return {
        "phase": "Running",
        "conditions": conditions,
        "hostIP": NODE_IPS.get(node, ""),
        "hostIPs": [{"ip": NODE_IPS.get(node, "")}],
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "startTime": born,
        "containerStatuses": [_container_status(cluster, c["name"], c["image"]) for c in containers],
        "qosClass": qos,
    }


def _pod_spec(node: str, containers: list[dict], priority: tuple[str, int], **extra) -> dict:
    return {
        "containers": containers,
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "nodeName": node,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": priority[1],
        "priorityClassName": priority[0],
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "terminationGracePeriodSeconds": 30,
        **extra,
    }


def _container(
    name: str, image: str, command: list[str] | None = None, requests: dict | None = None, **extra
):
    container = {"name": name, "image": image, "imagePullPolicy": "IfNotPresent"}
    if command:
        container["command"] = command
    container["resources"] = {"requests": requests} if requests else {}
    container.update(terminationMessagePath="/dev/termination-log", terminationMessagePolicy="File", **extra)
    return container


_ADVERTISE = NODE_IPS[CONTROL_PLANE]
# kubeadm's static pod manifests (their flags and requests), /etc/kubernetes/manifests/*.yaml.
_MIRROR = {
    "etcd": (
        "registry.k8s.io/etcd:3.5.21-0",
        {"cpu": "100m", "memory": "100Mi"},
        [
            "etcd",
            f"--advertise-client-urls=https://{_ADVERTISE}:2379",
            "--cert-file=/etc/kubernetes/pki/etcd/server.crt",
            "--client-cert-auth=true",
            "--data-dir=/var/lib/etcd",
            "--feature-gates=InitialCorruptCheck=true",
            f"--initial-advertise-peer-urls=https://{_ADVERTISE}:2380",
            f"--initial-cluster=master=https://{_ADVERTISE}:2380",
            "--key-file=/etc/kubernetes/pki/etcd/server.key",
            f"--listen-client-urls=https://127.0.0.1:2379,https://{_ADVERTISE}:2379",
            "--listen-metrics-urls=http://127.0.0.1:2381",
            f"--listen-peer-urls=https://{_ADVERTISE}:2380",
            "--name=master",
            "--peer-cert-file=/etc/kubernetes/pki/etcd/peer.crt",
            "--peer-client-cert-auth=true",
            "--peer-key-file=/etc/kubernetes/pki/etcd/peer.key",
            "--peer-trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt",
            "--snapshot-count=10000",
            "--trusted-ca-file=/etc/kubernetes/pki/etcd/ca.crt",
            "--watch-progress-notify-interval=5s",
        ],
    ),
    "kube-apiserver": (
        f"registry.k8s.io/kube-apiserver:{VERSION}",
        {"cpu": "250m"},
        [
            "kube-apiserver",
            f"--advertise-address={_ADVERTISE}",
            "--allow-privileged=true",
            "--authorization-mode=Node,RBAC",
            "--client-ca-file=/etc/kubernetes/pki/ca.crt",
            "--enable-admission-plugins=NodeRestriction",
            "--enable-bootstrap-token-auth=true",
            "--etcd-cafile=/etc/kubernetes/pki/etcd/ca.crt",
            "--etcd-certfile=/etc/kubernetes/pki/apiserver-etcd-client.crt",
            "--etcd-keyfile=/etc/kubernetes/pki/apiserver-etcd-client.key",
            "--etcd-servers=https://127.0.0.1:2379",
            "--kubelet-client-certificate=/etc/kubernetes/pki/apiserver-kubelet-client.crt",
            "--kubelet-client-key=/etc/kubernetes/pki/apiserver-kubelet-client.key",
            "--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
            "--secure-port=6443",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file=/etc/kubernetes/pki/sa.pub",
            "--service-account-signing-key-file=/etc/kubernetes/pki/sa.key",
            "--service-cluster-ip-range=10.96.0.0/12",
            "--tls-cert-file=/etc/kubernetes/pki/apiserver.crt",
            "--tls-private-key-file=/etc/kubernetes/pki/apiserver.key",
        ],
    ),
    "kube-controller-manager": (
        f"registry.k8s.io/kube-controller-manager:{VERSION}",
        {"cpu": "200m"},
        [
            "kube-controller-manager",
            "--allocate-node-cidrs=true",
            "--authentication-kubeconfig=/etc/kubernetes/controller-manager.conf",
            "--authorization-kubeconfig=/etc/kubernetes/controller-manager.conf",
            "--bind-address=127.0.0.1",
            "--client-ca-file=/etc/kubernetes/pki/ca.crt",
            "--cluster-cidr=10.244.0.0/16",
            "--cluster-name=kubernetes",
            "--cluster-signing-cert-file=/etc/kubernetes/pki/ca.crt",
            "--cluster-signing-key-file=/etc/kubernetes/pki/ca.key",
            "--controllers=*,bootstrapsigner,tokencleaner",
            "--kubeconfig=/etc/kubernetes/controller-manager.conf",
            "--leader-elect=true",
            "--requestheader-client-ca-file=/etc/kubernetes/pki/front-proxy-ca.crt",
            "--root-ca-file=/etc/kubernetes/pki/ca.crt",
            "--service-account-private-key-file=/etc/kubernetes/pki/sa.key",
            "--service-cluster-ip-range=10.96.0.0/12",
            "--use-service-account-credentials=true",
        ],
    ),
    "kube-scheduler": (
        f"registry.k8s.io/kube-scheduler:{VERSION}",
        {"cpu": "100m"},
        [
            "kube-scheduler",
            "--authentication-kubeconfig=/etc/kubernetes/scheduler.conf",
            "--authorization-kubeconfig=/etc/kubernetes/scheduler.conf",
            "--bind-address=127.0.0.1",
            "--kubeconfig=/etc/kubernetes/scheduler.conf",
            "--leader-elect=true",
        ],
    ),
}


def _mirror_pod(cluster, component: str) -> dict:
    image, requests, command = _MIRROR[component]
    name = f"{component}-{CONTROL_PLANE}"
    config_hash = hashlib.md5(f"{cluster.pk}/{component}".encode()).hexdigest()
    annotations = {
        "kubernetes.io/config.hash": config_hash,
        "kubernetes.io/config.mirror": config_hash,
        "kubernetes.io/config.seen": cluster.created_at.strftime("%Y-%m-%dT%H:%M:%S.%f000Z"),
        "kubernetes.io/config.source": "file",
    }
    if component == "etcd":
        annotations["kubeadm.kubernetes.io/etcd.advertise-client-urls"] = f"https://{_ADVERTISE}:2379"
    if component == "kube-apiserver":
        annotations["kubeadm.kubernetes.io/kube-apiserver.advertise-address.endpoint"] = f"{_ADVERTISE}:6443"
    containers = [_container(component, image, command, requests)]
    owner = _owner("v1", "Node", CONTROL_PLANE, _node_uid(cluster, CONTROL_PLANE), block=False)
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _meta(
            cluster,
            "Pod",
            name,
            {"component": component, "tier": "control-plane"},
            annotations=annotations,
            ownerReferences=[owner],
        ),
        "spec": _pod_spec(
            CONTROL_PLANE,
            containers,
            NODE_CRITICAL,
            hostNetwork=True,
            securityContext={"seccompProfile": {"type": "RuntimeDefault"}},
            tolerations=[{"effect": "NoExecute", "operator": "Exists"}],
        ),
        "status": _running_status(cluster, CONTROL_PLANE, _ADVERTISE, containers, "Burstable"),
    }


def _coredns_template() -> dict:
    container = _container(
        "coredns",
        COREDNS_IMAGE,
        requests={"cpu": "100m", "memory": "70Mi"},
        args=["-conf", "/etc/coredns/Corefile"],
        ports=[
            {"containerPort": 53, "name": "dns", "protocol": "UDP"},
            {"containerPort": 53, "name": "dns-tcp", "protocol": "TCP"},
            {"containerPort": 9153, "name": "metrics", "protocol": "TCP"},
        ],
    )
    container["resources"]["limits"] = {"memory": "170Mi"}
    return {
        "metadata": {"labels": {"k8s-app": "kube-dns"}},
        "spec": {
            "containers": [container],
            "dnsPolicy": "Default",
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "priorityClassName": CLUSTER_CRITICAL[0],
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "serviceAccountName": "coredns",
            "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {"key": "CriticalAddonsOnly", "operator": "Exists"},
                {"effect": "NoSchedule", "key": "node-role.kubernetes.io/control-plane"},
            ],
        },
    }


def _coredns_pod(cluster, name: str) -> dict:
    template = _coredns_template()
    spec = {**template["spec"], "priority": CLUSTER_CRITICAL[1], "nodeName": CONTROL_PLANE}
    spec["tolerations"] = [
        *spec["tolerations"],
        {
            "effect": "NoExecute",
            "key": "node.kubernetes.io/not-ready",
            "operator": "Exists",
            "tolerationSeconds": 300,
        },
        {
            "effect": "NoExecute",
            "key": "node.kubernetes.io/unreachable",
            "operator": "Exists",
            "tolerationSeconds": 300,
        },
    ]
    spec.update(enableServiceLinks=True, preemptionPolicy="PreemptLowerPriority", securityContext={})
    ip = f"10.244.0.{2 + COREDNS_PODS.index(name)}"
    rs = f"coredns-{COREDNS_HASH}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _meta(
            cluster,
            "Pod",
            name,
            {"k8s-app": "kube-dns", "pod-template-hash": COREDNS_HASH},
            generateName=f"{rs}-",
            ownerReferences=[_owner("apps/v1", "ReplicaSet", rs, _uid(cluster, "ReplicaSet", rs))],
        ),
        "spec": spec,
        "status": _running_status(cluster, CONTROL_PLANE, ip, spec["containers"], "Burstable"),
    }


def _daemon_template(component: str) -> dict:
    if component == "kube-proxy":
        container = _container(
            "kube-proxy",
            PROXY_IMAGE,
            [
                "/usr/local/bin/kube-proxy",
                "--config=/var/lib/kube-proxy/config.conf",
                "--hostname-override=$(NODE_NAME)",
            ],
            env=[
                {
                    "name": "NODE_NAME",
                    "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}},
                }
            ],
            securityContext={"privileged": True},
        )
        labels, service_account = {"k8s-app": "kube-proxy"}, "kube-proxy"
    else:
        container = _container(
            "kube-flannel",
            FLANNEL_IMAGE,
            ["/opt/bin/flanneld"],
            {"cpu": "100m", "memory": "50Mi"},
            args=["--ip-masq", "--kube-subnet-mgr"],
            securityContext={"capabilities": {"add": ["NET_ADMIN", "NET_RAW"]}, "privileged": False},
        )
        labels, service_account = {"app": "flannel", "k8s-app": "flannel", "tier": "node"}, "flannel"
    return {
        "metadata": {"labels": labels},
        "spec": {
            "containers": [container],
            "dnsPolicy": "ClusterFirst",
            "hostNetwork": True,
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "priorityClassName": NODE_CRITICAL[0],
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "serviceAccountName": service_account,
            "terminationGracePeriodSeconds": 30,
            "tolerations": [{"operator": "Exists"}],
        },
    }


def _daemon_pod(cluster, component: str, node: str) -> dict:
    ds = "kube-proxy" if component == "kube-proxy" else "kube-flannel-ds"
    name = (PROXY_PODS if component == "kube-proxy" else FLANNEL_PODS)[node]
    template = _daemon_template(component)
    revision_hash = hashlib.sha256(f"{ds}/template".encode()).hexdigest()[:10]
    tolerations = [{"operator": "Exists"}] + [
        {"effect": effect, "key": f"node.kubernetes.io/{key}", "operator": "Exists"}
        for key, effect in (
            ("not-ready", "NoExecute"),
            ("unreachable", "NoExecute"),
            ("disk-pressure", "NoSchedule"),
            ("memory-pressure", "NoSchedule"),
            ("pid-pressure", "NoSchedule"),
            ("unschedulable", "NoSchedule"),
            ("network-unavailable", "NoSchedule"),
        )
    ]
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                ]
            }
        }
    }
    spec = _pod_spec(
        node,
        template["spec"]["containers"],
        NODE_CRITICAL,
        affinity=affinity,
        hostNetwork=True,
        nodeSelector={"kubernetes.io/os": "linux"},
        serviceAccountName=template["spec"]["serviceAccountName"],
        tolerations=tolerations,
    )
    requests = template["spec"]["containers"][0]["resources"]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": _meta(
            cluster,
            "Pod",
            name,
            {
                **template["metadata"]["labels"],
                "controller-revision-hash": revision_hash,
                "pod-template-generation": "1",
            },
            generateName=f"{ds}-",
            ownerReferences=[_owner("apps/v1", "DaemonSet", ds, _uid(cluster, "DaemonSet", ds))],
        ),
        "spec": spec,
        "status": _running_status(
            cluster, node, NODE_IPS[node], spec["containers"], "Burstable" if requests else "BestEffort"
        ),
    }


def _pod(cluster, namespace: str, name: str) -> dict:
    for component in MIRROR_PODS:
        if name == f"{component}-{CONTROL_PLANE}":
            return _mirror_pod(cluster, component)
    if name in COREDNS_PODS:
        return _coredns_pod(cluster, name)
    for component, pods in (("kube-proxy", PROXY_PODS), ("flannel", FLANNEL_PODS)):
        for node, pod in pods.items():
            if pod == name:
                return _daemon_pod(cluster, component, node)
    raise KeyError(name)


POD_NAMES = (
    *(f"{c}-{CONTROL_PLANE}" for c in MIRROR_PODS),
    *COREDNS_PODS,
    *PROXY_PODS.values(),
    *FLANNEL_PODS.values(),
)


# -- workloads -------------------------------------------------------------------------------------
def _deployment(cluster) -> dict:
    template = _coredns_template()
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(
            cluster,
            "Deployment",
            "coredns",
            {"k8s-app": "kube-dns"},
            annotations={"deployment.kubernetes.io/revision": "1"},
            generation=1,
        ),
        "spec": {
            "progressDeadlineSeconds": 600,
            "replicas": 2,
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": {"k8s-app": "kube-dns"}},
            "strategy": {"rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 1}, "type": "RollingUpdate"},
            "template": template,
        },
        "status": {
            "availableReplicas": 2,
            "conditions": [
                {
                    "lastTransitionTime": _born(cluster),
                    "lastUpdateTime": _born(cluster),
                    "message": "Deployment has minimum availability.",
                    "reason": "MinimumReplicasAvailable",
                    "status": "True",
                    "type": "Available",
                },
                {
                    "lastTransitionTime": _born(cluster),
                    "lastUpdateTime": _born(cluster),
                    "message": f'ReplicaSet "coredns-{COREDNS_HASH}" has successfully progressed.',
                    "reason": "NewReplicaSetAvailable",
                    "status": "True",
                    "type": "Progressing",
                },
            ],
            "observedGeneration": 1,
            "readyReplicas": 2,
            "replicas": 2,
            "updatedReplicas": 2,
        },
    }


def _replica_set(cluster) -> dict:
    template = _coredns_template()
    template["metadata"]["labels"]["pod-template-hash"] = COREDNS_HASH
    labels = {"k8s-app": "kube-dns", "pod-template-hash": COREDNS_HASH}
    return {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": _meta(
            cluster,
            "ReplicaSet",
            f"coredns-{COREDNS_HASH}",
            labels,
            annotations={
                "deployment.kubernetes.io/desired-replicas": "2",
                "deployment.kubernetes.io/max-replicas": "3",
                "deployment.kubernetes.io/revision": "1",
            },
            generation=1,
            ownerReferences=[
                _owner("apps/v1", "Deployment", "coredns", _uid(cluster, "Deployment", "coredns"))
            ],
        ),
        "spec": {"replicas": 2, "selector": {"matchLabels": labels}, "template": template},
        "status": {
            "availableReplicas": 2,
            "fullyLabeledReplicas": 2,
            "observedGeneration": 1,
            "readyReplicas": 2,
            "replicas": 2,
        },
    }


def _daemon_set(cluster, namespace: str, name: str) -> dict:
    component = "kube-proxy" if name == "kube-proxy" else "flannel"
    template = _daemon_template(component)
    nodes = len(NODES)
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": _meta(
            cluster,
            "DaemonSet",
            name,
            dict(template["metadata"]["labels"]),
            annotations={"deprecated.daemonset.template.generation": "1"},
            generation=1,
        ),
        "spec": {
            "revisionHistoryLimit": 10,
            "selector": {"matchLabels": dict(template["metadata"]["labels"])},
            "template": template,
            "updateStrategy": {
                "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1},
                "type": "RollingUpdate",
            },
        },
        "status": {
            "currentNumberScheduled": nodes,
            "desiredNumberScheduled": nodes,
            "numberAvailable": nodes,
            "numberMisscheduled": 0,
            "numberReady": nodes,
            "observedGeneration": 1,
            "updatedNumberScheduled": nodes,
        },
    }


# -- the kube-dns Service --------------------------------------------------------------------------
_DNS_PORTS = (("dns", 53, "UDP"), ("dns-tcp", 53, "TCP"), ("metrics", 9153, "TCP"))
_DNS_LABELS = {
    "k8s-app": "kube-dns",
    "kubernetes.io/cluster-service": "true",
    "kubernetes.io/name": "CoreDNS",
}


def _dns_service(cluster) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(
            cluster,
            "Service",
            "kube-dns",
            dict(_DNS_LABELS),
            annotations={"prometheus.io/port": "9153", "prometheus.io/scrape": "true"},
        ),
        "spec": {
            "clusterIP": DNS_IP,
            "clusterIPs": [DNS_IP],
            "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "ports": [
                {"name": name, "port": port, "protocol": protocol, "targetPort": port}
                for name, port, protocol in _DNS_PORTS
            ],
            "selector": {"k8s-app": "kube-dns"},
            "sessionAffinity": "None",
            "type": "ClusterIP",
        },
        "status": {"loadBalancer": {}},
    }


def _dns_addresses(cluster) -> list[tuple[str, str]]:
    return [(f"10.244.0.{2 + i}", name) for i, name in enumerate(COREDNS_PODS)]


def _dns_endpoints(cluster) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Endpoints",
        "metadata": _meta(cluster, "Endpoints", "kube-dns", dict(_DNS_LABELS)),
        "subsets": [
            {
                "addresses": [
                    {
                        "ip": ip,
                        "nodeName": CONTROL_PLANE,
                        "targetRef": {
                            "kind": "Pod",
                            "name": name,
                            "namespace": NAMESPACE,
                            "uid": _uid(cluster, "Pod", name),
                        },
                    }
                    for ip, name in _dns_addresses(cluster)
                ],
                "ports": [{"name": n, "port": p, "protocol": proto} for n, p, proto in _DNS_PORTS],
            }
        ],
    }


def _dns_endpoint_slice(cluster) -> dict:
    name = f"kube-dns-{_suffix('kube-dns-slice', 5)}"
    return {
        "apiVersion": "discovery.k8s.io/v1",
        "kind": "EndpointSlice",
        "metadata": _meta(
            cluster,
            "EndpointSlice",
            name,
            {
                **_DNS_LABELS,
                "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
                "kubernetes.io/service-name": "kube-dns",
            },
            generateName="kube-dns-",
        ),
        "addressType": "IPv4",
        "endpoints": [
            {
                "addresses": [ip],
                "conditions": {"ready": True, "serving": True, "terminating": False},
                "nodeName": CONTROL_PLANE,
                "targetRef": {
                    "kind": "Pod",
                    "name": pod,
                    "namespace": NAMESPACE,
                    "uid": _uid(cluster, "Pod", pod),
                },
            }
            for ip, pod in _dns_addresses(cluster)
        ],
        "ports": [{"name": n, "port": p, "protocol": proto} for n, p, proto in _DNS_PORTS],
    }


DNS_SLICE = f"kube-dns-{_suffix('kube-dns-slice', 5)}"


# -- the registry hooks ------------------------------------------------------------------------------
def _not_simulated(kind_plural: str):
    def refuse(name: str) -> ApiError:
        message = (
            f'{kind_plural} "{name}" is forbidden: KubeSim serves kube-system as kubeadm leaves it, '
            "read-only; deleting its objects is not simulated"
        )
        return ApiError(403, "Forbidden", message, {"name": name, "kind": kind_plural})

    return refuse


def objects(kind: str) -> tuple[tuple[tuple[str, str], ...], object]:
    """(keys, builder) of the kind's kube-system objects."""
    if kind == "Pod":
        return tuple((NAMESPACE, n) for n in POD_NAMES), _pod
    if kind == "Deployment":
        return ((NAMESPACE, "coredns"),), lambda cluster, ns, name: _deployment(cluster)
    if kind == "ReplicaSet":
        return ((NAMESPACE, f"coredns-{COREDNS_HASH}"),), lambda cluster, ns, name: _replica_set(cluster)
    if kind == "DaemonSet":
        return ((NAMESPACE, "kube-proxy"), (NAMESPACE, "kube-flannel-ds")), _daemon_set
    if kind == "Service":
        return ((NAMESPACE, "kube-dns"),), lambda cluster, ns, name: _dns_service(cluster)
    if kind == "Endpoints":
        return ((NAMESPACE, "kube-dns"),), lambda cluster, ns, name: _dns_endpoints(cluster)
    if kind == "EndpointSlice":
        return ((NAMESPACE, DNS_SLICE),), lambda cluster, ns, name: _dns_endpoint_slice(cluster)
    return (), None


def served(kind: str, obj: dict) -> bool:
    """Whether `obj` is one of kube-system's served objects as built (not a copy a write stored)."""
    meta = obj.get("metadata") or {}
    if meta.get("namespace") != NAMESPACE or meta.get("resourceVersion") != "1":
        return False
    return (NAMESPACE, meta.get("name")) in objects(kind)[0]


def builtin_objects(kind: str, plural: str) -> BuiltinObjects:
    """The registry hook of a kind with kube-system objects only (Pod, Deployment, ReplicaSet,
    DaemonSet)."""
    keys, build = objects(kind)
    return BuiltinObjects(keys=keys, build=build, refuse_delete=_not_simulated(plural), clients_only=keys)
