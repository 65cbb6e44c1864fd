"""The ServiceAccount admission plugin (plugin/pkg/admission/serviceaccount, v1.33), on a pod's
create: its ServiceAccount must exist (403 in upstream's words), and unless the pod or its
ServiceAccount says `automountServiceAccountToken: false`, the pod gets the projected
`kube-api-access-XXXXX` volume (a bound token, the cluster's CA, the namespace) mounted read-only
at /var/run/secrets/kubernetes.io/serviceaccount in every container that mounts nothing there."""

from __future__ import annotations

from cluster.apiserver import reads
from cluster.apiserver.admission import chain
from cluster.apiserver.defaults import generated_name
from cluster.apiserver.errors import ApiError, forbidden

MOUNT_PATH = "/var/run/secrets/kubernetes.io/serviceaccount"
VOLUME_PREFIX = "kube-api-access-"
TOKEN_SECONDS = 3607  # WarnOnlyBoundTokenExpirationSeconds: an hour, plus 7 s to tell it apart


def token_volume_source() -> dict:
    """TokenVolumeSource: the token, kube-root-ca.crt's ca.crt, the pod's namespace."""
    return {
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": TOKEN_SECONDS, "path": "token"}},
            {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
            {
                "downwardAPI": {
                    "items": [
                        {
                            "path": "namespace",
                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                        }
                    ]
                }
            },
        ],
        "defaultMode": 420,
    }


def _should_mount(spec: dict, account: dict) -> bool:
    if isinstance(spec.get("automountServiceAccountToken"), bool):
        return spec["automountServiceAccountToken"]
    if isinstance(account.get("automountServiceAccountToken"), bool):
        return account["automountServiceAccountToken"]
    return True


def admit_pod(cluster, kind: str, pod: dict) -> None:
    if kind != "Pod" or not isinstance(pod.get("spec"), dict):
        return
    meta, spec = pod.get("metadata") or {}, pod["spec"]
    if (meta.get("annotations") or {}).get("kubernetes.io/config.mirror"):
        return  # a mirror pod: its kubelet's, no ServiceAccount
    namespace = meta.get("namespace") or "default"
    if not reads.namespace_exists(cluster, namespace):
        return  # the write answers `namespaces "x" not found` (NamespaceLifecycle comes first)
    name = spec.get("serviceAccountName") or "default"
    spec["serviceAccountName"] = name
    try:
        account = reads.get(cluster, "ServiceAccount", namespace, name)
    except ApiError as err:
        if err.code != 404:
            raise
        shown = meta.get("name") or meta.get("generateName") or "Unknown"
        why = f'error looking up service account {namespace}/{name}: serviceaccount "{name}" not found'
        raise forbidden("pods", shown, why) from None
    if _should_mount(spec, account):
        _mount_token(spec)


def _mount_token(spec: dict) -> None:
    containers = [
        c for key in ("initContainers", "containers") for c in spec.get(key) or [] if isinstance(c, dict)
    ]
    wanting = [
        c
        for c in containers
        if not any(
            isinstance(m, dict) and m.get("mountPath") == MOUNT_PATH for m in c.get("volumeMounts") or []
        )
    ]
    if not wanting:
        return
    taken = {v.get("name") for v in spec.get("volumes") or [] if isinstance(v, dict)}
    volume = generated_name(VOLUME_PREFIX)
    while volume in taken:
        volume = generated_name(VOLUME_PREFIX)
    spec["volumes"] = [*(spec.get("volumes") or []), {"name": volume, "projected": token_volume_source()}]
    for container in wanting:
        mount = {"name": volume, "readOnly": True, "mountPath": MOUNT_PATH}
        container["volumeMounts"] = [*(container.get("volumeMounts") or []), mount]


def keep_token_volume(existing: dict, merged: dict) -> None:
    """A pod configured again by the page's apply (a JSON merge of the manifest) keeps what this
    plugin added at its creation, as kubectl's strategic merge keeps it: the token volume and each
    container's mount of it (a pod's volumes and mounts cannot change after its creation)."""
    old_spec, spec = existing.get("spec") or {}, merged.get("spec")
    if not isinstance(spec, dict):
        return
    token_volumes = [
        v for v in old_spec.get("volumes") or [] if str(v.get("name", "")).startswith(VOLUME_PREFIX)
    ]
    names = {v.get("name") for v in spec.get("volumes") or [] if isinstance(v, dict)}
    missing = [v for v in token_volumes if v.get("name") not in names]
    if missing:
        spec["volumes"] = [*(spec.get("volumes") or []), *missing]
    for key in ("initContainers", "containers"):
        before = {c.get("name"): c for c in old_spec.get(key) or [] if isinstance(c, dict)}
        for container in spec.get(key) or []:
            if not isinstance(container, dict) or container.get("name") not in before:
                continue
            mounts = container.get("volumeMounts") or []
            kept = [
                m
                for m in before[container["name"]].get("volumeMounts") or []
                if m.get("mountPath") == MOUNT_PATH
                and not any(n.get("mountPath") == MOUNT_PATH for n in mounts)
            ]
            if kept:
                container["volumeMounts"] = [*mounts, *kept]


def install() -> None:
    chain.register_defaulted(admit_pod)
