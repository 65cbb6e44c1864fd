"""Everything a shell in one container knows about where it runs, read once from the pod."""

from __future__ import annotations

from dataclasses import dataclass, field

from cluster.shell.profiles import Process, Profile

# The `kubernetes` Service's ClusterIP (kubeadm's default service CIDR 10.96.0.0/12) and DNS.
KUBERNETES_SERVICE_IP = "10.96.0.1"
CLUSTER_DNS_IP = "10.96.0.10"


@dataclass(slots=True)
class ContainerContext:
    cluster: str
    namespace: str
    pod: str
    container: str
    image: str
    profile: Profile
    container_id: str
    pod_ip: str = ""
    node: str = ""
    started_at: str = ""
    spec_env: list[tuple[str, str]] = field(default_factory=list)
    command: list[str] = field(default_factory=list)  # the container's command + args, if set
    tty: bool = False
    host_network: bool = False  # hostNetwork: the node's name and address
    # The processes of the container whose process namespace this one shares (an ephemeral
    # container's targetContainerName), as its own `processes()` lists them.
    shared_with: tuple = ()
    # Looks a pod up by IP for curl/wget: (namespace, name, container image) or None.
    find_pod_by_ip: object = None
    # The files of configMap and secret volumes (configsources.VolumeFiles), or None.
    volumes: object = None
    # The mounts of bound PersistentVolumeClaims (cluster/shell/volumes.py Mount): kept per volume.
    persistent: tuple = ()
    # The cluster's Services for DNS and curl (cluster/shell/services.py ServiceView), or None.
    services: object = None
    # The Docker-link variables of the namespace's other Services (enableServiceLinks).
    service_env: list[tuple[str, str]] = field(default_factory=list)
    # resources.limits in bytes (None: not set): the shell's memory and the writable layer's room.
    memory_limit: int | None = None
    storage_limit: int | None = None
    # The exec'd process's allowance (cluster/shell/limits.py Budget), set by session.run_exec.
    budget: object = None

    @property
    def hostname(self) -> str:
        return self.node if self.host_network and self.node else self.pod[:63]

    def environment(self) -> list[tuple[str, str]]:
        """The process environment, in the order `env` prints it in a real container."""
        image_env = dict(self.profile.env)
        out = [("PATH", image_env.pop("PATH", self.profile.path)), ("HOSTNAME", self.hostname)]
        if self.tty:
            out.append(("TERM", "xterm"))
        out += self.spec_env
        ip = KUBERNETES_SERVICE_IP
        out += [
            ("KUBERNETES_SERVICE_PORT_HTTPS", "443"),
            ("KUBERNETES_PORT_443_TCP_ADDR", ip),
            ("KUBERNETES_PORT", f"tcp://{ip}:443"),
            ("KUBERNETES_PORT_443_TCP", f"tcp://{ip}:443"),
            ("KUBERNETES_SERVICE_PORT", "443"),
            ("KUBERNETES_SERVICE_HOST", ip),
            ("KUBERNETES_PORT_443_TCP_PROTO", "tcp"),
            ("KUBERNETES_PORT_443_TCP_PORT", "443"),
        ]
        out += self.service_env
        out += list(image_env.items())
        out.append(("HOME", "/root"))
        seen: dict[str, str] = {}
        for key, value in out:
            seen.setdefault(key, value) if key in ("PATH", "HOSTNAME") else seen.__setitem__(key, value)
        return list(seen.items())

    def processes(self) -> tuple[Process, ...]:
        """The image's processes; a command in the pod spec replaces PID 1. A debug container
        with a target (`kubectl debug --target=C`) shares C's process namespace: C's come first."""
        own = (Process(1, "root", " ".join(self.command)),) if self.command else self.profile.processes
        if not self.shared_with:
            return own
        start = max(p.pid for p in self.shared_with) + 6
        return (*self.shared_with, *(Process(start + p.pid, p.user, p.command) for p in own))

    def hosts_file(self) -> str:
        lines = [
            "# Kubernetes-managed hosts file.",
            "127.0.0.1\tlocalhost",
            "::1\tlocalhost ip6-localhost ip6-loopback",
            "fe00::0\tip6-localnet",
            "fe00::0\tip6-mcastprefix",
            "fe00::1\tip6-allnodes",
            "fe00::2\tip6-allrouters",
        ]
        if self.pod_ip:
            lines.append(f"{self.pod_ip}\t{self.hostname}")
        return "\n".join(lines) + "\n"

    def resolv_conf(self) -> str:
        return (
            f"search {self.namespace}.svc.cluster.local svc.cluster.local cluster.local\n"
            f"nameserver {CLUSTER_DNS_IP}\noptions ndots:5\n"
        )
