"""`kubectl logs` of kube-system's served pods (cluster/kinds/core/kubesystem.py): each component's
start-up lines as the real v1.33 binary prints them, then, for kube-scheduler and
kube-controller-manager, the simulated components' own work in the cluster, read from the Events
they recorded (a binding, a FailedScheduling, a controller's SuccessfulCreate), in klog's format.
No other pod of theirs logs more than its start-up: CoreDNS answers, kube-proxy's rules and
flannel's routes are the exec shell's (cluster/shell/services.py), not logged."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

from cluster.apiserver import service as api
from cluster.kinds.core import kubesystem
from cluster.kubeapi.humanize import parse_time

SCHEDULER = "default-scheduler"
COREFILE_SHA512 = (
    "591cf328cccc12bc490481273e738df59329c62c0b729d94e8b61db9961c2fa5"
    "f046dd37f1cf888b953814040d180f52594972691cd6ff41be96639138a43908"
)
# The controller manager's Event sources (client-go's component names).
CONTROLLERS = frozenset(
    {
        "replicaset-controller",
        "replication-controller",
        "deployment-controller",
        "daemonset-controller",
        "statefulset-controller",
        "job-controller",
        "cronjob-controller",
        "endpoint-controller",
        "endpoint-slice-controller",
        "node-controller",
        "taint-eviction-controller",
        "persistentvolume-controller",
        "horizontal-pod-autoscaler",
        "disruption-controller",
    }
)


def _klog(when: datetime, source: str, text: str, level: str = "I") -> str:
    return f"{level}{when.strftime('%m%d %H:%M:%S.%f')}       1 {source}] {text}"


def _startup(component: str, born: datetime) -> list[tuple[datetime, str]]:
    at = [born + timedelta(milliseconds=40 * i) for i in range(12)]
    version = kubesystem.VERSION
    if component == "etcd":
        entries = [
            ("etcdmain/etcd.go:73", "Running: ", {"args": ["etcd"]}),
            (
                "embed/etcd.go:140",
                "configuring peer listeners",
                {"listen-peer-urls": ["https://192.168.56.10:2380"]},
            ),
            ("embed/etcd.go:308", "starting an etcd server", {"etcd-version": "3.5.21", "name": "master"}),
            ("etcdserver/zap_raft.go:77", "8e9e05c52164694d became leader at term 2", {"logger": "raft"}),
            ("etcdserver/server.go:2118", "published local member to cluster through raft", {}),
            ("embed/serve.go:250", "serving client traffic securely", {"address": "192.168.56.10:2379"}),
        ]
        return [
            (
                when,
                json.dumps(
                    {
                        "level": "info",
                        "ts": when.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
                        "caller": caller,
                        "msg": msg,
                        **extra,
                    },
                    separators=(",", ":"),
                ),
            )
            for when, (caller, msg, extra) in zip(at, entries, strict=False)
        ]
    if component == "kube-apiserver":
        return [
            (at[0], _klog(at[0], "options.go:249", "external host was not specified, using 192.168.56.10")),
            (at[1], _klog(at[1], "server.go:175", f'"Version info" version="{version}"')),
            (at[2], _klog(at[2], "secure_serving.go:211", "Serving securely on [::]:6443")),
            (at[3], _klog(at[3], "controller.go:615", "quota admission added evaluator for: namespaces")),
            (
                at[4],
                _klog(
                    at[4],
                    "alloc.go:330",
                    '"allocated clusterIPs" service="default/kubernetes" clusterIPs={"IPv4":"10.96.0.1"}',
                ),
            ),
            (
                at[5],
                _klog(
                    at[5],
                    "alloc.go:330",
                    '"allocated clusterIPs" service="kube-system/kube-dns" clusterIPs={"IPv4":"10.96.0.10"}',
                ),
            ),
        ]
    if component == "kube-controller-manager":
        return [
            (at[0], _klog(at[0], "serving.go:386", "Generated self-signed cert in-memory")),
            (at[1], _klog(at[1], "controllermanager.go:188", f'"Starting" version="{version}"')),
            (at[2], _klog(at[2], "secure_serving.go:211", "Serving securely on 127.0.0.1:10257")),
            (
                at[3],
                _klog(
                    at[3],
                    "leaderelection.go:257",
                    "attempting to acquire leader lease kube-system/kube-controller-manager...",
                ),
            ),
            (
                at[4],
                _klog(
                    at[4],
                    "leaderelection.go:271",
                    "successfully acquired lease kube-system/kube-controller-manager",
                ),
            ),
        ]
    if component == "kube-scheduler":
        return [
            (at[0], _klog(at[0], "serving.go:386", "Generated self-signed cert in-memory")),
            (at[1], _klog(at[1], "server.go:166", f'"Starting Kubernetes Scheduler" version="{version}"')),
            (at[2], _klog(at[2], "secure_serving.go:211", "Serving securely on 127.0.0.1:10259")),
            (
                at[3],
                _klog(
                    at[3],
                    "leaderelection.go:257",
                    "attempting to acquire leader lease kube-system/kube-scheduler...",
                ),
            ),
            (
                at[4],
                _klog(
                    at[4], "leaderelection.go:271", "successfully acquired lease kube-system/kube-scheduler"
                ),
            ),
        ]
    if component == "coredns":
        return [
            (at[0], ".:53"),
            (
                at[1],
                "[INFO] plugin/reload: Running configuration SHA512 = " + COREFILE_SHA512,
            ),
            (at[2], "CoreDNS-1.12.0"),
            (at[3], "linux/amd64, go1.23.3, 51e11f1"),
        ]
    if component == "kube-proxy":
        return [
            (at[0], _klog(at[0], "server_linux.go:66", '"Using iptables proxy"')),
            (
                at[1],
                _klog(at[1], "server.go:698", '"Successfully retrieved node IP(s)" IPs=["192.168.56.10"]'),
            ),
            (at[2], _klog(at[2], "server.go:516", f'"Version info" version="{version}"')),
            (at[3], _klog(at[3], "config.go:199", '"Starting service config controller"')),
            (at[4], _klog(at[4], "proxier.go:799", '"SyncProxyRules complete" elapsed="9.1ms"')),
        ]
    return [
        (
            at[0],
            _klog(
                at[0],
                "main.go:211",
                "CLI flags config: {etcdEndpoints:http://127.0.0.1:4001 ipMasq:true kubeSubnetMgr:true}",
            ),
        ),
        (at[1], _klog(at[1], "kube.go:139", "Waiting 10m0s for node controller to sync")),
        (
            at[2],
            _klog(
                at[2],
                "main.go:373",
                "Setting up masking rules",
            ),
        ),
        (at[3], _klog(at[3], "vxlan_network.go:65", "watching for new subnet leases")),
    ]


def _component(pod: str) -> str:
    for component in kubesystem.MIRROR_PODS:
        if pod == f"{component}-{kubesystem.CONTROL_PLANE}":
            return component
    if pod in kubesystem.COREDNS_PODS:
        return "coredns"
    return "kube-proxy" if pod.startswith("kube-proxy-") else "flannel"


def _event_line(event: dict, component: str) -> tuple[datetime, str] | None:
    source = (event.get("source") or {}).get("component", "")
    when = parse_time(event.get("lastTimestamp") or event.get("firstTimestamp") or "")
    if when is None:
        return None
    obj = event.get("involvedObject") or {}
    ref = f"{obj.get('namespace', '')}/{obj.get('name', '')}" if obj.get("namespace") else obj.get("name", "")
    message = (event.get("message") or "").replace('"', '\\"')
    if component == "kube-scheduler" and source == SCHEDULER:
        if event.get("reason") == "Scheduled":
            node = message.rsplit(" to ", 1)[-1]
            return when, _klog(
                when, "schedule_one.go:314", f'"Successfully bound pod to node" pod="{ref}" node="{node}"'
            )
        if event.get("reason") == "FailedScheduling":
            return when, _klog(
                when,
                "schedule_one.go:1059",
                f'"Unable to schedule pod; no fit; waiting" pod="{ref}" err="{message}"',
            )
        return None
    if component == "kube-controller-manager" and source in CONTROLLERS:
        text = (
            f'"Event occurred" object="{ref}" fieldPath="" kind="{obj.get("kind", "")}" '
            f'apiVersion="{obj.get("apiVersion", "")}" type="{event.get("type", "")}" '
            f'reason="{event.get("reason", "")}" message="{message}"'
        )
        return when, _klog(when, "event.go:389", text)
    return None


def log_text(cluster, pod: dict, tail: int | None, timestamps: bool) -> str:
    """The pod's log as `kubectl logs` prints it."""
    name = pod["metadata"]["name"]
    component = _component(name)
    born = parse_time(pod["metadata"].get("creationTimestamp") or "") or cluster.created_at
    lines = _startup(component, born)
    if component in ("kube-scheduler", "kube-controller-manager"):
        events, _ = api.list_objects(cluster, "Event", None)
        lines += [line for e in events if (line := _event_line(e, component)) is not None]
    lines.sort(key=lambda item: item[0])
    if tail is not None:
        lines = lines[-tail:] if tail else []
    return "".join(
        f"{when.strftime('%Y-%m-%dT%H:%M:%S.%f')}000Z {text}\n" if timestamps else f"{text}\n"
        for when, text in lines
    )
