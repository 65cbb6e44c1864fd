"""The objects kubectl's generator commands build, field for field and in its order: `run`,
`create deployment|job|service|configmap|secret generic|priorityclass|namespace` and `expose`
(kubectl v1.32's pkg/cmd/run and pkg/cmd/create, and its service generator for expose).

Each returns the object kubectl would send; `--dry-run=client -o json` prints it as kubectl
prints it (Go's field order), `-o yaml` with sorted keys, as kubectl's YAML printer does.
"""

from __future__ import annotations

import base64
import secrets
import string

from dashboard.console.parser import CommandLine, UsageError, whole_number
from dashboard.console.workdir import Workdir
from k8s.quantity import QuantityError, canonical, is_binary, parse_quantity

RESTART_POLICIES = ("Always", "OnFailure", "Never")
PULL_POLICIES = ("Always", "IfNotPresent", "Never")
SERVICE_TYPES = {
    "clusterip": "ClusterIP",
    "nodeport": "NodePort",
    "loadbalancer": "LoadBalancer",
    "externalname": "ExternalName",
}


def _meta(name: str, labels: dict | None = None, namespace: str = "") -> dict:
    meta: dict = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    meta["creationTimestamp"] = None
    if labels:
        meta["labels"] = labels
    return meta


def parse_labels(text: str) -> dict[str, str]:
    """`app=web,tier=front` as kubectl's --labels takes it."""
    labels = {}
    for part in text.split(","):
        key, sep, value = part.partition("=")
        if not sep or not key:
            raise UsageError(f"error: invalid label spec: {part}")
        labels[key] = value
    return labels


def _labels_flag(cmd: CommandLine) -> str:
    """--labels, or -l: for run and expose kubectl's -l is --labels (the parser reads -l as a selector)."""
    return cmd.flag("labels") or cmd.flag("selector")


def pod(cmd: CommandLine, name: str, namespace: str) -> dict:
    """kubectl run NAME --image=IMAGE: one container named after the pod."""
    given = _labels_flag(cmd)
    labels = parse_labels(given) if given else {"run": name}
    restart = cmd.flag("restart") or "Always"
    if restart not in RESTART_POLICIES:
        raise UsageError(
            f"error: invalid restart policy: {restart}\nSee 'kubectl run -h' for help and examples"
        )
    pull = cmd.flag("image_pull_policy")
    if pull and pull not in PULL_POLICIES:
        raise UsageError(f"error: invalid image pull policy: {pull}")
    container: dict = {"name": name, "image": cmd.flag("image")}
    if cmd.command:
        container["command" if cmd.flags.get("command") else "args"] = list(cmd.command)
    if cmd.flag("port"):
        container["ports"] = [{"containerPort": whole_number(cmd.flag("port"), "port")}]
    env = []
    for item in cmd.values("env"):
        key, sep, value = item.partition("=")
        if not sep:
            raise UsageError(f"error: invalid env: {item}")
        env.append({"name": key, "value": value})
    if env:
        container["env"] = env
    container["resources"] = {}
    if pull:
        container["imagePullPolicy"] = pull
    spec = {"containers": [container], "restartPolicy": restart, "dnsPolicy": "ClusterFirst"}
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": _meta(name, labels, namespace),
        "spec": spec,
        "status": {},
    }


def _container_name(image: str, taken: set[str]) -> str:
    """The container's name from its image, as kubectl create deployment derives it."""
    name = image.split("/")[-1].split(":")[0].split("@")[0]
    if "_" in name or "." in name or name in taken:
        suffix = "".join(secrets.choice(string.ascii_lowercase + string.digits) for _ in range(5))
        name = f"{name.replace('_', '-').replace('.', '-')}-{suffix}"
    taken.add(name)
    return name


def deployment(cmd: CommandLine, name: str, namespace: str) -> dict:
    labels = {"app": name}
    taken: set[str] = set()
    containers = []
    for index, image in enumerate(cmd.values("image")):
        container: dict = {"name": _container_name(image, taken), "image": image}
        if cmd.command:
            container["command"] = list(cmd.command)
        if index == 0 and cmd.flag("port"):
            container["ports"] = [{"containerPort": whole_number(cmd.flag("port"), "port")}]
        container["resources"] = {}
        containers.append(container)
    replicas = whole_number(cmd.flag("replicas") or "1", "replicas")
    template = {
        "metadata": {"creationTimestamp": None, "labels": dict(labels)},
        "spec": {"containers": containers},
    }
    spec = {
        "replicas": replicas,
        "selector": {"matchLabels": dict(labels)},
        "template": template,
        "strategy": {},
    }
    return {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": _meta(name, labels, namespace),
        "spec": spec,
        "status": {},
    }


def job(cmd: CommandLine, name: str, namespace: str) -> dict:
    container: dict = {"name": name, "image": cmd.flag("image")}
    if cmd.command:
        container["command"] = list(cmd.command)
    container["resources"] = {}
    template = {
        "metadata": {"creationTimestamp": None},
        "spec": {"containers": [container], "restartPolicy": "Never"},
    }
    return {
        "kind": "Job",
        "apiVersion": "batch/v1",
        "metadata": _meta(name, None, namespace),
        "spec": {"template": template},
        "status": {},
    }


def _target(text: str) -> int | str:
    return int(text) if text.isdigit() else text


def service(cmd: CommandLine, name: str, namespace: str, kind: str) -> dict:
    """kubectl create service clusterip|nodeport|loadbalancer|externalname NAME [--tcp=…]."""
    service_type = SERVICE_TYPES[kind]
    cluster_ip = cmd.flag("clusterip")
    if service_type == "ExternalName" and not cmd.flag("external_name"):
        raise UsageError('error: required flag(s) "external-name" not set')
    if not cmd.values("tcp") and service_type != "ExternalName" and cluster_ip != "None":
        raise UsageError("error: at least one tcp port specifier must be provided")
    ports = []
    for spec in cmd.values("tcp"):
        port, _, target = spec.partition(":")
        entry: dict = {
            "name": f"{port}-{target}" if target else port,
            "protocol": "TCP",
            "port": whole_number(port, "tcp"),
            "targetPort": _target(target or port),
        }
        if service_type == "NodePort" and cmd.flag("node_port"):
            entry["nodePort"] = whole_number(cmd.flag("node_port"), "node-port")
        ports.append(entry)
    labels = {"app": name}
    body: dict = {}
    if ports:
        body["ports"] = ports
    body["selector"] = dict(labels)
    if cluster_ip:
        body["clusterIP"] = cluster_ip
    body["type"] = service_type
    if service_type == "ExternalName":
        body["externalName"] = cmd.flag("external_name")
    return {
        "kind": "Service",
        "apiVersion": "v1",
        "metadata": _meta(name, labels, namespace),
        "spec": body,
        "status": {"loadBalancer": {}},
    }


def _sources(cmd: CommandLine, workdir: Workdir, kind: str, name: str) -> dict[str, str]:
    """--from-literal, --from-file and --from-env-file, read from the console's working directory."""
    data: dict[str, str] = {}

    def add(key: str, value: str) -> None:
        if key in data:
            taken = f'another key by that name already exists in Data for {kind} "{name}"'
            raise UsageError(f'error: cannot add key "{key}", {taken}')
        data[key] = value

    for literal in cmd.values("from_literal"):
        key, sep, value = literal.partition("=")
        if not sep or not key:
            raise UsageError(f"error: invalid literal source {literal}, expected key=value")
        add(key, value)
    for source in cmd.values("from_file"):
        key, sep, path = source.partition("=")
        path, key = (path, key) if sep else (source, source.split("/")[-1])
        text = workdir.read(path)
        if text is None:
            raise UsageError(f"error: error reading {path}: no such file or directory")
        add(key, text)
    for path in cmd.values("from_env_file"):
        text = workdir.read(path)
        if text is None:
            raise UsageError(f"error: error reading {path}: no such file or directory")
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            key, _, value = line.partition("=")
            add(key, value)
    return dict(sorted(data.items()))  # a Go map: keys in order


def configmap(cmd: CommandLine, name: str, namespace: str, workdir: Workdir) -> dict:
    body = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": _meta(name, None, namespace)}
    data = _sources(cmd, workdir, "ConfigMap", name)
    if data:
        body["data"] = data
    return body


def secret(cmd: CommandLine, name: str, namespace: str, workdir: Workdir) -> dict:
    body = {"kind": "Secret", "apiVersion": "v1", "metadata": _meta(name, None, namespace)}
    data = _sources(cmd, workdir, "Secret", name)
    if data:
        body["data"] = {key: base64.b64encode(value.encode()).decode() for key, value in data.items()}
    if cmd.flag("type"):
        body["type"] = cmd.flag("type")
    return body


def priorityclass(cmd: CommandLine, name: str) -> dict:
    body: dict = {"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "metadata": _meta(name)}
    body["value"] = whole_number(cmd.flag("value") or "0", "value")
    if cmd.flags.get("global_default"):
        body["globalDefault"] = True
    if cmd.flag("description"):
        body["description"] = cmd.flag("description")
    body["preemptionPolicy"] = cmd.flag("preemption_policy") or "PreemptLowerPriority"
    return body


def quota(cmd: CommandLine, name: str, namespace: str) -> dict:
    """kubectl create quota: --hard `resource=quantity,...`, --scopes `A,B` (left to the server)."""
    body: dict = {"kind": "ResourceQuota", "apiVersion": "v1", "metadata": _meta(name, None, namespace)}
    spec: dict = {}
    hard = cmd.flag("hard") or ""
    if hard:
        spec["hard"] = {}
        for statement in hard.split(","):
            parts = statement.split("=")
            if len(parts) != 2:
                raise UsageError(f"error: Invalid argument syntax {statement}, expected <resource>=<value>")
            try:
                spec["hard"][parts[0]] = format_quantity_strict(parts[1])
            except QuantityError as exc:
                raise UsageError(f"error: {_quantity_error(exc)}") from None
        spec["hard"] = dict(sorted(spec["hard"].items()))
    scopes = cmd.flag("scopes") or ""
    if scopes:
        if "" in scopes.split(","):
            raise UsageError('error: invalid resource quota scope ""')
        spec["scopes"] = scopes.split(",")
    body["spec"] = spec
    body["status"] = {}
    return body


def _quantity_error(exc: QuantityError) -> str:
    """resource.ErrFormatWrong or ErrSuffix, as ParseQuantity returns them."""
    if "suffix" in str(exc):
        return "unable to parse quantity's suffix"
    return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


def format_quantity_strict(text: str) -> str:
    """resource.ParseQuantity, then the quantity as the API prints it back."""
    return canonical(parse_quantity(text), is_binary(text))


def namespace(name: str) -> dict:
    return {"kind": "Namespace", "apiVersion": "v1", "metadata": _meta(name), "spec": {}, "status": {}}


def _selector_of(obj: dict) -> dict[str, str]:
    spec = obj.get("spec") or {}
    if obj["kind"] == "Pod":
        return dict(obj["metadata"].get("labels") or {})
    selector = spec.get("selector") or {}
    if obj["kind"] in ("ReplicationController", "Service"):
        return dict(selector)
    if selector.get("matchExpressions"):
        expressions = selector["matchExpressions"]
        raise UsageError(
            f'error: couldn\'t convert expressions - "{expressions}" to map-based selector format'
        )
    return dict(selector.get("matchLabels") or {})


def _container_ports(obj: dict) -> list[dict]:
    spec = obj.get("spec") or {}
    pod_spec = spec if obj["kind"] == "Pod" else ((spec.get("template") or {}).get("spec") or {})
    if obj["kind"] == "Service":
        return [
            {"containerPort": p.get("port"), "protocol": p.get("protocol", "TCP")}
            for p in spec.get("ports") or []
        ]
    return [port for c in pod_spec.get("containers") or [] for port in c.get("ports") or []]


def exposed(cmd: CommandLine, obj: dict, namespace: str) -> dict:
    """kubectl expose: a Service selecting the object's pods, on --port or the ports it declares."""
    selector = _selector_of(obj)
    if not selector:
        raise UsageError(
            f"error: couldn't retrieve selectors via --selector flag or introspection: "
            f"the {obj['kind'].lower()} has no selector"
        )
    name = cmd.flag("name") or obj["metadata"]["name"]
    protocol = cmd.flag("protocol")
    if cmd.flag("port"):
        declared = [{"containerPort": whole_number(cmd.flag("port"), "port"), "protocol": protocol or "TCP"}]
    else:
        declared = _container_ports(obj)
        if not declared:
            raise UsageError(
                "error: couldn't find port via --port flag or introspection\n"
                "See 'kubectl expose -h' for help and examples"
            )
    ports = []
    for index, port in enumerate(declared):
        entry: dict = {}
        if len(declared) > 1:
            entry["name"] = f"port-{index + 1}"
        entry["protocol"] = protocol or port.get("protocol") or "TCP"
        entry["port"] = int(port["containerPort"])
        entry["targetPort"] = (
            _target(cmd.flag("target_port")) if cmd.flag("target_port") else int(port["containerPort"])
        )
        ports.append(entry)
    labels = (
        parse_labels(cmd.flag("labels")) if cmd.flag("labels") else dict(obj["metadata"].get("labels") or {})
    )
    spec: dict = {"ports": ports, "selector": selector}
    if cmd.flag("type"):
        spec["type"] = cmd.flag("type")
    return {
        "kind": "Service",
        "apiVersion": "v1",
        "metadata": _meta(name, labels or None, namespace),
        "spec": spec,
        "status": {"loadBalancer": {}},
    }
