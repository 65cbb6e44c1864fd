"""What a hostPath volume shows of a simulated node (`kubectl debug node/NAME` mounts `/` at /host).

A simulated node has no disk of its own: these are the files a kubeadm node (Ubuntu 22.04, the
runtime behind cri-dockerd) has where a teacher looks first — its name, its OS, the kubelet's
configuration and kubeconfig. Only they are there; any other path under the mount is missing,
which docs/containers.md says. Writes to them go to the container's writable layer, not to the node.
"""

from __future__ import annotations

import posixpath

OS_RELEASE = """PRETTY_NAME="Ubuntu 22.04.4 LTS"
NAME="Ubuntu"
VERSION_ID="22.04"
VERSION="22.04.4 LTS (Jammy Jellyfish)"
VERSION_CODENAME=jammy
ID=ubuntu
ID_LIKE=debian
HOME_URL="https://www.ubuntu.com/"
SUPPORT_URL="https://help.ubuntu.com/"
BUG_REPORT_URL="https://bugs.launchpad.net/ubuntu/"
PRIVACY_POLICY_URL="https://www.ubuntu.com/legal/terms-and-policies/privacy-policy"
UBUNTU_CODENAME=jammy
"""

KUBELET_CONFIG = """apiVersion: kubelet.config.k8s.io/v1beta1
authentication:
  anonymous:
    enabled: false
  webhook:
    cacheTTL: 0s
    enabled: true
  x509:
    clientCAFile: /etc/kubernetes/pki/ca.crt
authorization:
  mode: Webhook
cgroupDriver: systemd
clusterDNS:
- 10.96.0.10
clusterDomain: cluster.local
containerRuntimeEndpoint: unix:///var/run/cri-dockerd.sock
kind: KubeletConfiguration
rotateCertificates: true
staticPodPath: /etc/kubernetes/manifests
"""


def _kubelet_conf(node: str) -> str:
    return f"""apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: (the cluster CA, not simulated)
    server: https://192.168.56.10:6443
  name: kubernetes
contexts:
- context:
    cluster: kubernetes
    user: system:node:{node}
  name: system:node:{node}@kubernetes
current-context: system:node:{node}@kubernetes
kind: Config
users:
- name: system:node:{node}
  user:
    client-certificate: /var/lib/kubelet/pki/kubelet-client-current.pem
    client-key: /var/lib/kubelet/pki/kubelet-client-current.pem
"""


def node_files(node: str, host_ip: str) -> dict[str, str]:
    """The node's files by absolute path."""
    return {
        "/etc/hostname": f"{node}\n",
        "/etc/hosts": f"127.0.0.1 localhost\n{host_ip}\t{node}\n" if host_ip else "127.0.0.1 localhost\n",
        "/etc/os-release": OS_RELEASE,
        "/etc/kubernetes/kubelet.conf": _kubelet_conf(node),
        "/var/lib/kubelet/config.yaml": KUBELET_CONFIG,
    }


def mounted(host_path: str, mount_path: str, node: str, host_ip: str) -> tuple[list[str], dict[str, str]]:
    """(directories, files) a hostPath volume of `host_path` shows at `mount_path`."""
    base = posixpath.normpath("/" + (host_path or "").strip("/"))
    prefix = "" if base == "/" else base
    directories, files = [mount_path], {}
    for path, content in node_files(node, host_ip).items():
        if prefix and not path.startswith(prefix + "/"):
            continue
        target = posixpath.join(mount_path, path[len(prefix) :].lstrip("/"))
        files[target] = content
        parent = posixpath.dirname(target)
        while parent != mount_path and parent not in directories:
            directories.append(parent)
            parent = posixpath.dirname(parent)
    return directories, files
