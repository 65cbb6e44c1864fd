"""What a container of each image uses when idle, and what one request per second adds.

Figures are of the order `kubectl top` shows for these images on a real node (nginx idles at ~1m
and a few MiB, mysql holds ~380Mi); `cpu_per_rps` is the millicores one request per second costs
the server. They are a teaching model, not a measurement: a Deployment of nginx behind one busy
`wget` loop uses ~250m, so an HPA with a 50% target of a 100m request scales it to about five.
"""

from __future__ import annotations

from dataclasses import dataclass

from cluster.kubelet.images import split_reference

MI = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Profile:
    idle_millicores: float
    idle_memory: int  # bytes
    cpu_per_rps: float = 0.0  # millicores per request per second served
    memory_per_rps: int = 0  # bytes per request per second served (buffers, workers)


_SHELL = Profile(0.0, int(0.4 * MI))  # busybox, alpine, ubuntu, …: only what the command does

_PROFILES: dict[str, Profile] = {
    "nginx": Profile(0.3, int(6.5 * MI), cpu_per_rps=0.5, memory_per_rps=8 * 1024),
    "httpd": Profile(0.6, 9 * MI, cpu_per_rps=0.6, memory_per_rps=12 * 1024),
    "tomcat": Profile(2.0, 110 * MI, cpu_per_rps=1.0, memory_per_rps=40 * 1024),
    "redis": Profile(2.5, 3 * MI, cpu_per_rps=0.05),
    "mysql": Profile(6.0, 380 * MI, cpu_per_rps=2.0, memory_per_rps=64 * 1024),
    "registry.k8s.io/pause": Profile(0.0, int(0.3 * MI)),
    "registry.k8s.io/kube-apiserver": Profile(40.0, 250 * MI),
    "registry.k8s.io/kube-controller-manager": Profile(14.0, 50 * MI),
    "registry.k8s.io/kube-scheduler": Profile(3.0, 21 * MI),
    "registry.k8s.io/etcd": Profile(22.0, 45 * MI),
    "registry.k8s.io/coredns/coredns": Profile(2.0, 14 * MI, cpu_per_rps=0.02),
    "registry.k8s.io/kube-proxy": Profile(1.0, 16 * MI),
    "flannel/flannel": Profile(2.0, 12 * MI),
}


def profile_of(image: str) -> Profile:
    """The image's profile; shell images (and any other) use only what their command does."""
    repository, _tag = split_reference(image)
    return _PROFILES.get(repository, _SHELL)


# What the node itself runs besides its pods (the kubelet, the container runtime, systemd and the
# kernel's caches): what `kubectl top nodes` shows of an empty node.
NODE_SYSTEM_MILLICORES = 62.0
NODE_SYSTEM_MEMORY = 712 * MI
