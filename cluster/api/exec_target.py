"""pods/exec before the stream opens: the request's options, and the checks kube-apiserver and
the kubelet make (the pod, its container, its node, a running container to exec in)."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qs

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError, bad_request
from cluster.models import Cluster
from cluster.shell.pods import running_container_id


@dataclass(slots=True)
class ExecOptions:
    """PodExecOptions from the query string (command repeated, booleans as "true"/"1")."""

    namespace: str
    name: str
    command: list[str] = field(default_factory=list)
    container: str = ""
    stdin: bool = False
    stdout: bool = False
    stderr: bool = False
    tty: bool = False


def _true(values: dict, key: str) -> bool:
    return (values.get(key) or [""])[-1].lower() in ("true", "1")


def parse_options(namespace: str, name: str, query: str | dict) -> ExecOptions:
    values = parse_qs(query, keep_blank_values=True) if isinstance(query, str) else query
    return ExecOptions(
        namespace=namespace,
        name=name,
        command=list(values.get("command") or []),
        container=(values.get("container") or [""])[-1],
        stdin=_true(values, "stdin"),
        stdout=_true(values, "stdout"),
        stderr=_true(values, "stderr"),
        tty=_true(values, "tty"),
    )


def _names(pod: dict, field_name: str) -> list[str]:
    return [c["name"] for c in (pod.get("spec") or {}).get(field_name) or []]


def resolve(cluster: Cluster, options: ExecOptions, attach: bool = False) -> tuple[dict, str]:
    """(pod, container name) or the ApiError kube-apiserver answers before any upgrade
    (its streamLocation: any container of the pod, init and ephemeral ones included, by name)."""
    pod = api.get(cluster, "Pod", options.namespace, options.name)
    names, init = _names(pod, "containers"), _names(pod, "initContainers")
    container = options.container
    if not container:
        if len(names) != 1:
            message = f"a container name must be specified for pod {options.name}"
            if names:
                message += f", choose one of: [{' '.join(names)}]"
            if names and init:
                message += f" or one of the init containers: [{' '.join(init)}]"
            raise bad_request(message)
        container = names[0]
    elif container not in [*names, *init, *_names(pod, "ephemeralContainers")]:
        raise bad_request(f"container {container} is not valid for pod {options.name}")
    if not (pod.get("spec") or {}).get("nodeName"):
        raise bad_request(f"pod {options.name} does not have a host assigned")
    if not attach and not options.command:
        raise bad_request("you must specify at least one command for the container")
    if not (options.stdin or options.stdout or options.stderr):
        raise bad_request("you must specify at least 1 of stdin, stdout, stderr")
    return pod, container


def runtime_error(pod: dict, container: str) -> str | None:
    """The kubelet's error when the runtime has no running container of that name to exec in."""
    if running_container_id(pod, container) is None:
        return f'container not found ("{container}")'
    return None


def internal_error(message: str) -> ApiError:
    """apierrors.NewInternalError, as the stream translator reports a failed kubelet upgrade."""
    text = f"unable to upgrade connection: {message}"
    return ApiError(500, "InternalError", f"Internal error occurred: {text}", {"causes": [{"message": text}]})
