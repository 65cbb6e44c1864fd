"""What a container takes from ConfigMaps and Secrets, as the kubelet resolves it
(`pkg/kubelet/kubelet_pods.go` makeEnvironmentVariables, the configMap and secret volume plugins).

`lookup(kind, namespace, name)` returns the object or None; the kubelet reads through the API
server, the exec shell through the same function. A missing ConfigMap, Secret or key that is not
`optional` is the kubelet's error, worded as it words it: `configmap "missing" not found`,
`couldn't find key x in ConfigMap default/c`. For env that is CreateContainerConfigError; for a
volume the pod stays ContainerCreating with a FailedMount event.
"""

from __future__ import annotations

import base64
import posixpath
from collections.abc import Callable
from dataclasses import dataclass

from cluster.kubelet import hostroot

Lookup = Callable[[str, str, str], dict | None]
_RESOURCE = {"ConfigMap": "configmap", "Secret": "secret"}


class ConfigError(Exception):
    """A container cannot be configured (CreateContainerConfigError, or FailedMount for a volume)."""

    def __init__(self, message: str, volume: str = "") -> None:
        super().__init__(message)
        self.message, self.volume = message, volume


def _values(kind: str, obj: dict) -> dict[str, str]:
    """The object's data as text (a Secret's base64 decoded; a ConfigMap's binaryData too)."""
    if kind == "Secret":
        return {k: _text(v) for k, v in (obj.get("data") or {}).items()}
    values = dict(obj.get("data") or {})
    values.update({k: _text(v) for k, v in (obj.get("binaryData") or {}).items()})
    return values


def _text(value: str) -> str:
    try:
        return base64.b64decode(value).decode("utf-8", "replace")
    except ValueError:
        return ""


def _get(lookup: Lookup, kind: str, namespace: str, ref: dict) -> dict | None:
    """The referenced object; ConfigError when it is missing and not optional."""
    name = ref.get("name", "")
    obj = lookup(kind, namespace, name)
    if obj is None and not ref.get("optional"):
        raise ConfigError(f'{_RESOURCE[kind]} "{name}" not found')
    return obj


def container_env(
    pod: dict, container: dict, lookup: Lookup, field_value: Callable[[dict], str | None] | None = None
) -> list[tuple[str, str]]:
    """envFrom first (prefix + key), then env, later names winning, in the kubelet's order.
    Raises ConfigError. A fieldRef is resolved by `field_value(fieldRef)` when given."""
    namespace = pod["metadata"].get("namespace", "default")
    out: dict[str, str] = {}
    for source in container.get("envFrom") or []:
        for key, kind in (("configMapRef", "ConfigMap"), ("secretRef", "Secret")):
            if key in source:
                obj = _get(lookup, kind, namespace, source[key] or {})
                for name, value in sorted(_values(kind, obj).items()) if obj else ():
                    out[source.get("prefix", "") + name] = value
    for entry in container.get("env") or []:
        name = entry.get("name")
        source = entry.get("valueFrom")
        if not name:
            continue
        if source is None:
            out[name] = str(entry.get("value", ""))
            continue
        if "fieldRef" in source and field_value is not None:
            value = field_value(source["fieldRef"] or {})
            if value is not None:
                out[name] = value
            continue
        for key, kind in (("configMapKeyRef", "ConfigMap"), ("secretKeyRef", "Secret")):
            if key not in source:
                continue
            ref = source[key] or {}
            obj = _get(lookup, kind, namespace, ref)
            if obj is None:
                break
            values = _values(kind, obj)
            if ref.get("key") in values:
                out[name] = values[ref["key"]]
            elif not ref.get("optional"):
                raise ConfigError(
                    f"couldn't find key {ref.get('key')} in {kind} {namespace}/{ref.get('name')}"
                )
    return list(out.items())


@dataclass(frozen=True, slots=True)
class VolumeFiles:
    directories: tuple[str, ...]
    files: dict[str, str]


def _volume_sources(pod: dict) -> dict[str, tuple[str, dict]]:
    found = {}
    for volume in (pod.get("spec") or {}).get("volumes") or []:
        if "configMap" in volume:
            found[volume.get("name")] = ("ConfigMap", volume["configMap"] or {})
        elif "secret" in volume:
            source = volume["secret"] or {}
            found[volume.get("name")] = ("Secret", {**source, "name": source.get("secretName", "")})
    return found


def check_volumes(pod: dict, lookup: Lookup) -> None:
    """Raise ConfigError(volume=...) for the first configMap/secret volume that cannot be mounted."""
    namespace = pod["metadata"].get("namespace", "default")
    for volume, (kind, source) in _volume_sources(pod).items():
        try:
            obj = _get(lookup, kind, namespace, source)
        except ConfigError as err:
            raise ConfigError(err.message, volume) from None
        if obj is None:
            continue
        values = _values(kind, obj)
        for item in source.get("items") or []:
            if item.get("key") not in values and not source.get("optional"):
                message = f"configmap references non-existent config key: {item.get('key')}"
                if kind == "Secret":
                    message = f"references non-existent secret key: {item.get('key')}"
                raise ConfigError(message, volume)


# A projected serviceAccountToken source → the token the kubelet asked the API server for.
TokenFor = Callable[[dict], str]


def _downward(pod: dict, field_ref: dict) -> str:
    """A downwardAPI volume item's fieldRef (metadata.namespace, name, uid, labels, annotations)."""
    meta, path = pod.get("metadata") or {}, str((field_ref or {}).get("fieldPath", ""))
    if path in ("metadata.labels", "metadata.annotations"):
        values = meta.get(path.split(".")[1]) or {}
        return "\n".join(f'{key}="{value}"' for key, value in sorted(values.items()))
    return str(meta.get(path.split(".", 1)[1], "")) if path.startswith("metadata.") else ""


def projected_files(pod: dict, projected: dict, lookup: Lookup, token: TokenFor | None) -> dict[str, str]:
    """The files of a projected volume, by path under its mount (the kube-api-access volume: token,
    ca.crt, namespace)."""
    namespace = pod["metadata"].get("namespace", "default")
    files: dict[str, str] = {}
    for source in projected.get("sources") or []:
        source = source if isinstance(source, dict) else {}
        for kind, key in (("ConfigMap", "configMap"), ("Secret", "secret")):
            if isinstance(source.get(key), dict):
                obj = lookup(kind, namespace, source[key].get("name", ""))
                values = _values(kind, obj) if obj else {}
                items = source[key].get("items") or [{"key": k, "path": k} for k in sorted(values)]
                for item in items:
                    if item.get("key") in values:
                        files[item.get("path") or item["key"]] = values[item["key"]]
        if isinstance(source.get("downwardAPI"), dict):
            for item in source["downwardAPI"].get("items") or []:
                if isinstance(item, dict) and item.get("path"):
                    files[item["path"]] = _downward(pod, item.get("fieldRef") or {})
        if isinstance(source.get("serviceAccountToken"), dict) and token is not None:
            files[source["serviceAccountToken"].get("path") or "token"] = token(source["serviceAccountToken"])
    return files


def container_files(pod: dict, container: dict, lookup: Lookup, token: TokenFor | None = None) -> VolumeFiles:
    """The files of the container's configMap, secret and projected volume mounts (what `cat`
    reads in exec)."""
    namespace = pod["metadata"].get("namespace", "default")
    sources = _volume_sources(pod)
    projected = {
        v.get("name"): v["projected"]
        for v in (pod.get("spec") or {}).get("volumes") or []
        if isinstance(v, dict) and isinstance(v.get("projected"), dict)
    }
    host_paths = {
        v.get("name"): v["hostPath"].get("path", "/")
        for v in (pod.get("spec") or {}).get("volumes") or []
        if isinstance(v, dict) and isinstance(v.get("hostPath"), dict)
    }
    node = (pod.get("spec") or {}).get("nodeName") or ""
    host_ip = (pod.get("status") or {}).get("hostIP") or ""
    directories, files = [], {}
    for mount in container.get("volumeMounts") or []:
        if mount.get("name") in host_paths:  # the node's own files (kubectl debug node/NAME)
            where = mount.get("mountPath", "")
            shown, found_files = hostroot.mounted(host_paths[mount["name"]], where, node, host_ip)
            directories.extend(shown)
            files.update(found_files)
            continue
        if mount.get("name") in projected:
            root = mount.get("mountPath", "")
            directories.append(root)
            for path, value in projected_files(pod, projected[mount["name"]], lookup, token).items():
                files[posixpath.join(root, path)] = value
            continue
        found = sources.get(mount.get("name"))
        if found is None:
            continue
        kind, source = found
        obj = lookup(kind, namespace, source.get("name", ""))
        values = _values(kind, obj) if obj else {}
        items = source.get("items") or [{"key": k, "path": k} for k in sorted(values)]
        root = mount.get("mountPath", "")
        if mount.get("subPath"):
            key = mount["subPath"]
            if key in values:
                files[root] = values[key]
            continue
        directories.append(root)
        for item in items:
            if item.get("key") in values:
                path = posixpath.join(root, item.get("path") or item["key"])
                files[path] = values[item["key"]]
                parent = posixpath.dirname(path)
                while parent != root and parent not in directories:
                    directories.append(parent)
                    parent = posixpath.dirname(parent)
    return VolumeFiles(tuple(directories), files)


def pod_problem(pod: dict, lookup: Lookup) -> ConfigError | None:
    """The first reason the pod's containers cannot start: a volume first (mounts come before the
    containers are created), then each container's env."""
    try:
        check_volumes(pod, lookup)
        for container in (pod.get("spec") or {}).get("containers") or []:
            container_env(pod, container, lookup)
    except ConfigError as err:
        return err
    return None
