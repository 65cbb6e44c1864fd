"""The simulated container runtime ("Docker", as the notes say): ids, pull times and pod status shapes."""

from __future__ import annotations

import hashlib
import secrets
import uuid

from cluster.apiserver.defaults import now_rfc3339
from cluster.kubelet.images import Image

RUNTIME_VERSION = "docker://26.1.4"
KUBELET_VERSION = "v1.33.1"
PULL_BYTES_PER_SECOND = 40 * 1000 * 1000  # a classroom network: ~40 MB/s


def container_id() -> str:
    return "docker://" + secrets.token_hex(32)


def pull_seconds(image: Image) -> float:
    return max(image.size_bytes / PULL_BYTES_PER_SECOND, 0.05)


def go_duration(seconds: float) -> str:
    """time.Duration.Truncate(time.Millisecond).String() for the Pulled event: 2.345s, 512ms."""
    millis = int(seconds * 1000)
    if millis < 1000:
        return f"{millis}ms"
    text = f"{millis / 1000:.3f}".rstrip("0").rstrip(".")
    return f"{text}s"


def _condition(type_: str, status: str, reason: str = "", message: str = "") -> dict:
    condition = {"type": type_, "status": status, "lastProbeTime": None, "lastTransitionTime": now_rfc3339()}
    if reason:
        condition["reason"] = reason
    if message:
        condition["message"] = message
    return condition


def _scheduled(pod: dict) -> dict:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "PodScheduled":
            return condition
    return _condition("PodScheduled", "True")


def waiting_status(pod: dict, host_ip: str, reason: str, message: str = "", pod_ip: str = "") -> dict:
    """Pending: the containers wait (ContainerCreating, ErrImagePull, ImagePullBackOff)."""
    containers = (pod.get("spec") or {}).get("containers") or []
    names = " ".join(c["name"] for c in containers)
    unready = f"containers with unready status: [{names}]"
    previous = pod.get("status") or {}
    status = {
        "phase": "Pending",
        "conditions": [
            _condition("PodReadyToStartContainers", "True" if pod_ip else "False"),
            _condition("Initialized", "True"),
            _condition("Ready", "False", "ContainersNotReady", unready),
            _condition("ContainersReady", "False", "ContainersNotReady", unready),
            _scheduled(pod),
        ],
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "startTime": previous.get("startTime") or now_rfc3339(),
        "containerStatuses": [
            {
                "name": c["name"],
                "state": {"waiting": {"reason": reason, **({"message": message} if message else {})}},
                "lastState": {},
                "ready": False,
                "restartCount": 0,
                "image": c.get("image", ""),
                "imageID": "",
                "started": False,
            }
            for c in containers
        ],
    }
    if pod_ip:
        status["podIP"], status["podIPs"] = pod_ip, [{"ip": pod_ip}]
    if previous.get("qosClass"):
        status["qosClass"] = previous["qosClass"]
    return status


def running_status(pod: dict, host_ip: str, pod_ip: str, images: dict[str, Image]) -> dict:
    containers = (pod.get("spec") or {}).get("containers") or []
    previous = pod.get("status") or {}
    started = now_rfc3339()
    status = {
        "phase": "Running",
        "conditions": [
            _condition("PodReadyToStartContainers", "True"),
            _condition("Initialized", "True"),
            _condition("Ready", "True"),
            _condition("ContainersReady", "True"),
            _scheduled(pod),
        ],
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "startTime": previous.get("startTime") or started,
        "containerStatuses": [
            {
                "name": c["name"],
                "state": {"running": {"startedAt": started}},
                "lastState": {},
                "ready": True,
                "restartCount": 0,
                "image": c.get("image", ""),
                "imageID": images[c["name"]].image_id,
                "containerID": container_id(),
                "started": True,
            }
            for c in containers
        ],
    }
    if previous.get("qosClass"):
        status["qosClass"] = previous["qosClass"]
    return status


def _stable_id(kind: str, node: str) -> str:
    return hashlib.md5(f"kubesim/{kind}/{node}".encode()).hexdigest()


def node_status(node: dict, index: int) -> dict:
    """What a kubelet reports for its node (at registration, then every status report):
    conditions with a fresh heartbeat, addresses, nodeInfo, capacity and allocatable."""
    status = dict(node.get("status") or {})
    capacity = status.get("capacity") or {"cpu": "4", "memory": "8148204Ki", "pods": "110"}
    capacity.setdefault("ephemeral-storage", "102626232Ki")
    status["capacity"] = capacity
    status.setdefault("allocatable", dict(capacity))
    now = now_rfc3339()

    previous = {c.get("type"): c for c in status.get("conditions") or []}

    def condition(type_: str, value: str, reason: str, message: str) -> dict:
        before = previous.get(type_) or {}
        same = before.get("status") == value
        return {
            "type": type_,
            "status": value,
            "lastHeartbeatTime": now,
            "lastTransitionTime": before.get("lastTransitionTime", now) if same else now,
            "reason": reason,
            "message": message,
        }

    status["conditions"] = [
        condition(
            "MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"
        ),
        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    name = node["metadata"]["name"]
    status["addresses"] = [
        {"type": "InternalIP", "address": f"192.168.56.{10 + index}"},
        {"type": "Hostname", "address": name},
    ]
    status["daemonEndpoints"] = {"kubeletEndpoint": {"Port": 10250}}
    status["nodeInfo"] = {
        "machineID": _stable_id("machine", name),
        "systemUUID": str(uuid.UUID(_stable_id("system", name))),
        "bootID": str(uuid.UUID(_stable_id("boot", name))),
        "kernelVersion": "5.15.0-122-generic",
        "osImage": "Ubuntu 22.04.5 LTS",
        "containerRuntimeVersion": RUNTIME_VERSION,
        "kubeletVersion": KUBELET_VERSION,
        "kubeProxyVersion": KUBELET_VERSION,
        "operatingSystem": "linux",
        "architecture": "amd64",
    }
    status.setdefault("images", [])
    return status


def restart_delay(restarts: int) -> float:
    """The kubelet's crash-loop back-off: 10 s doubling to 5 minutes."""
    return min(10.0 * 2**restarts, 300.0)


def restarts_after(policy: str, exit_code: int) -> bool:
    """The pod's restartPolicy applied to one exit: Always, or OnFailure after a failure."""
    return policy == "Always" or (policy == "OnFailure" and exit_code != 0)


def exited_status(
    pod: dict, host_ip: str, pod_ip: str, images: dict[str, Image], exiting: dict[str, int], restarts: int
) -> dict:
    """The status after the containers in `exiting` (name -> exit code) ended.

    A container the restartPolicy restarts (Always; OnFailure after a non-zero code) waits in
    CrashLoopBackOff with the exit as lastState and the pod stays Running; otherwise it stays
    terminated (Completed, or Error with its code), and once no container runs the pod is
    Succeeded when every code was 0, else Failed.
    """
    status = running_status(pod, host_ip, pod_ip, images)
    spec = pod.get("spec") or {}
    policy = spec.get("restartPolicy", "Always")
    name = pod["metadata"]["name"]
    reference = f"{name}_{pod['metadata'].get('namespace', 'default')}({pod['metadata'].get('uid', '')})"
    for container in status["containerStatuses"]:
        if container["name"] not in exiting:
            continue
        started = container["state"]["running"]["startedAt"]
        code = exiting[container["name"]]
        always = restarts_after(policy, code)
        terminated = {
            "exitCode": code,
            "reason": "Completed" if code == 0 else "Error",
            "startedAt": started,
            "finishedAt": now_rfc3339(),
            "containerID": container["containerID"],
        }
        container["ready"], container["started"], container["restartCount"] = False, False, restarts
        if always:
            delay = int(restart_delay(restarts))
            message = f"back-off {delay}s restarting failed container={container['name']} pod={reference}"
            container["state"] = {"waiting": {"reason": "CrashLoopBackOff", "message": message}}
            container["lastState"] = {"terminated": terminated}
        else:
            container["state"] = {"terminated": terminated}
    unready = [c["name"] for c in status["containerStatuses"] if not c["ready"]]
    message = f"containers with unready status: [{' '.join(unready)}]"
    for condition in status["conditions"]:
        if condition["type"] in ("Ready", "ContainersReady"):
            condition.update(status="False", reason="ContainersNotReady", message=message)
    ended = [c for c in status["containerStatuses"] if "terminated" in c["state"]]
    if len(ended) == len(status["containerStatuses"]):
        failed = any(c["state"]["terminated"]["exitCode"] for c in ended)
        status["phase"] = "Failed" if failed else "Succeeded"
        for condition in status["conditions"]:
            if condition["type"] in ("Ready", "ContainersReady") and not failed:
                condition["reason"] = "PodCompleted"
                condition.pop("message", None)
    return status


def restarted_status(
    pod: dict, host_ip: str, pod_ip: str, images: dict[str, Image], changed: set[str]
) -> dict:
    """Running again after the containers in `changed` were restarted with their new image."""
    previous = {c["name"]: c for c in (pod.get("status") or {}).get("containerStatuses") or []}
    status = running_status(pod, host_ip, pod_ip, images)
    for container in status["containerStatuses"]:
        before = previous.get(container["name"]) or {}
        if container["name"] not in changed and before.get("state", {}).get("running"):
            container.update(
                {k: before[k] for k in ("state", "containerID", "imageID", "image") if k in before}
            )
            container["restartCount"] = before.get("restartCount", 0)
            continue
        running = (before.get("state") or {}).get("running") or {}
        container["restartCount"] = before.get("restartCount", 0) + 1
        container["lastState"] = {
            "terminated": {
                "exitCode": 0,
                "reason": "Completed",
                "startedAt": running.get("startedAt"),
                "finishedAt": now_rfc3339(),
                "containerID": before.get("containerID", ""),
            }
        }
    status["startTime"] = (pod.get("status") or {}).get("startTime") or status["startTime"]
    return status


# The pod conditions the kubelet's status manager writes; any other (DisruptionTarget from the
# scheduler or an eviction, a readiness gate's) belongs to someone else and is kept.
KUBELET_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")


def keep_foreign_status(live: dict, status: dict) -> dict:
    """The kubelet's new status with the fields it does not own taken from the live object, as
    the status manager merges: status.nominatedNodeName and other components' conditions."""
    merged = dict(status)
    if live.get("nominatedNodeName"):
        merged["nominatedNodeName"] = live["nominatedNodeName"]
    foreign = [c for c in live.get("conditions") or [] if c.get("type") not in KUBELET_CONDITIONS]
    if foreign:
        merged["conditions"] = [*(status.get("conditions") or []), *foreign]
    return merged
