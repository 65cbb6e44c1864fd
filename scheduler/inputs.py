"""Read the explain command's inputs: a cluster of Nodes and Pods, one Pod, a scheduler config.

Every problem becomes one InputError naming the file, the document, the line and the field.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from k8s.labels import label_key_error, label_value_error
from k8s.quantity import QuantityError, parse_quantity
from k8s.yamldocs import Document, YamlError, format_path, load_documents
from scheduler.configuration import error_path
from scheduler.engine.config import ConfigError, SchedulerConfig, default_config
from scheduler.engine.config import load_config as load_scheduler_config
from scheduler.engine.preemption import PodDisruptionBudget
from scheduler.engine.profile import DEFAULT_SCHEDULER_NAME, Profile
from scheduler.priority_classes import PriorityClasses, PriorityError

MAX_FILE_BYTES = 20 * 1024 * 1024
API_VERSIONS = {
    "PodDisruptionBudget": "policy/v1",
    "PriorityClass": "scheduling.k8s.io/v1",
    "StorageClass": "storage.k8s.io/v1",
    "CSINode": "storage.k8s.io/v1",
}
STORAGE_KINDS = ("PersistentVolumeClaim", "PersistentVolume", "StorageClass", "CSINode")
CLUSTER_KINDS = ("Node", "Pod", "PodDisruptionBudget", "PriorityClass", *STORAGE_KINDS)


class InputError(Exception):
    def __init__(self, path: Path, message: str, document: Document | None = None, line: int | None = None):
        where = str(path)
        if document is not None:
            where += f": document {document.index + 1}"
        if line is not None:
            where += f" (line {line})"
        super().__init__(f"{where}: {message}")


def _read(path: Path) -> list[Document]:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise InputError(path, f"file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except IsADirectoryError:
        raise InputError(path, "is a directory, not a YAML file") from None
    except UnicodeDecodeError:
        raise InputError(path, "is not UTF-8 text") from None
    except OSError as err:
        raise InputError(path, err.strerror or str(err)) from None
    try:
        return load_documents(text)
    except YamlError as err:
        where = f"document {err.document + 1}" if err.document is not None else "YAML"
        line = f" (line {err.line})" if err.line else ""
        raise InputError(path, f"invalid YAML in {where}{line}: {err.message}") from None


def _expand_lists(path: Path, documents: list[Document]) -> list[tuple[Document, tuple, dict]]:
    """Each object with the document it came from and its path inside it (v1 List items)."""
    objects = []
    for document in documents:
        data = document.data
        if not isinstance(data, dict):
            raise InputError(path, "expected a Kubernetes object (a mapping)", document, document.line)
        if data.get("kind") == "List":
            for index, item in enumerate(data.get("items") or []):
                objects.append((document, ("items", index), item))
        else:
            objects.append((document, (), data))
    return objects


def _fail(path: Path, document: Document, where: tuple, field: tuple, message: str) -> InputError:
    full = (*where, *field)
    return InputError(path, f"{format_path(full)}: {message}", document, document.line_of(full))


def _check_object(path: Path, document: Document, where: tuple, obj: object, kinds: tuple[str, ...]) -> dict:
    if not isinstance(obj, dict):
        raise _fail(path, document, where, (), "expected a Kubernetes object (a mapping)")
    kind = obj.get("kind")
    if kind not in kinds:
        wanted = " or ".join(kinds) if len(kinds) < 3 else f"{', '.join(kinds[:-1])} or {kinds[-1]}"
        raise _fail(path, document, where, ("kind",), f"expected {wanted}, got {kind!r}")
    api_version = API_VERSIONS.get(kind, "v1")
    if obj.get("apiVersion", api_version) != api_version:
        raise _fail(path, document, where, ("apiVersion",), f"{kind} is in apiVersion {api_version}")
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not isinstance(meta.get("name"), str) or not meta["name"]:
        raise _fail(path, document, where, ("metadata", "name"), "required")
    for key, value in (meta.get("labels") or {}).items():
        if error := label_key_error(str(key)) or label_value_error(value):
            raise _fail(path, document, where, ("metadata", "labels", key), error)
    for field, quantity in _quantities(obj):
        try:
            parse_quantity(quantity)
        except (QuantityError, TypeError):
            raise _fail(path, document, where, field, f"invalid quantity {quantity!r}") from None
    if kind == "Pod" and not isinstance((obj.get("spec") or {}).get("containers"), list):
        raise _fail(
            path, document, where, ("spec", "containers"), "required: a Pod needs a list of containers"
        )
    return obj


def _quantities(obj: dict):
    status = obj.get("status") or {}
    for section in ("allocatable", "capacity"):
        for name, quantity in (status.get(section) or {}).items():
            yield ("status", section, name), quantity
    spec = obj.get("spec") or {}
    for group in ("initContainers", "containers"):
        for index, container in enumerate(spec.get(group) or []):
            resources = (container or {}).get("resources") or {}
            for section in ("requests", "limits"):
                for name, quantity in (resources.get(section) or {}).items():
                    yield ("spec", group, index, "resources", section, name), quantity
    for name, quantity in (spec.get("overhead") or {}).items():
        yield ("spec", "overhead", name), quantity


@dataclass(slots=True)
class ClusterInput:
    nodes: list[dict]
    pods: list[dict]
    pdbs: list[PodDisruptionBudget]
    classes: PriorityClasses
    storage: list[dict]  # claims, volumes and classes: what VolumeBinding reads

    @property
    def nominated(self) -> list[tuple[dict, str]]:
        """Pending pods that carry status.nominatedNodeName: they hold room on that node."""
        return [
            (pod, (pod.get("status") or {})["nominatedNodeName"])
            for pod in self.pods
            if not (pod.get("spec") or {}).get("nodeName")
            and (pod.get("status") or {}).get("nominatedNodeName")
        ]


def load_cluster(path: Path) -> ClusterInput:
    nodes, pods, pdbs, storage = [], [], [], []
    classes: dict[str, dict] = {}
    located: dict[int, tuple[Document, tuple]] = {}
    for document, where, obj in _expand_lists(path, _read(path)):
        checked = _check_object(path, document, where, obj, CLUSTER_KINDS)
        if checked["kind"] == "PriorityClass":
            if not isinstance(checked.get("value"), int) or isinstance(checked.get("value"), bool):
                raise _fail(path, document, where, ("value",), "must be an integer")
            classes[checked["metadata"]["name"]] = checked
            located[id(checked)] = (document, where)
        elif checked["kind"] in STORAGE_KINDS:
            if checked["kind"] == "PersistentVolumeClaim":
                checked.setdefault("metadata", {}).setdefault("namespace", "default")
            storage.append(checked)
        elif checked["kind"] == "PodDisruptionBudget":
            status = checked.get("status") or {}
            if not isinstance(status.get("disruptionsAllowed", 0), int):
                raise _fail(path, document, where, ("status", "disruptionsAllowed"), "must be an integer")
            pdbs.append(PodDisruptionBudget.of(checked))
        else:
            (nodes if checked["kind"] == "Node" else pods).append(checked)
            located[id(checked)] = (document, where)
    resolver = PriorityClasses(classes)
    for pod in pods:
        try:
            resolver.admit(pod)
        except PriorityError as err:
            document, where = located[id(pod)]
            raise _fail(path, document, where, ("spec", "priorityClassName"), str(err)) from None
    names = [node["metadata"]["name"] for node in nodes]
    if len(set(names)) != len(names):
        duplicate = next(name for name in names if names.count(name) > 1)
        raise InputError(path, f"Node {duplicate!r} is defined twice")
    return ClusterInput(nodes, pods, pdbs, resolver, storage)


def load_pod(path: Path, classes: PriorityClasses | None = None) -> dict:
    """The Pod, its priority resolved from the cluster file's PriorityClasses (Priority admission)."""
    documents = _read(path)
    if len(documents) != 1:
        raise InputError(path, f"expected exactly one Pod, found {len(documents)} documents")
    document = documents[0]
    pod = _check_object(path, document, (), document.data, ("Pod",))
    try:
        (classes or PriorityClasses({})).admit(pod)
    except PriorityError as err:
        raise _fail(path, document, (), ("spec", "priorityClassName"), str(err)) from None
    return pod


def load_config(path: Path | None) -> SchedulerConfig:
    """Every profile of the configuration file (None: the defaults)."""
    if path is None:
        return default_config()
    documents = _read(path)
    if len(documents) != 1:
        raise InputError(path, f"expected one KubeSchedulerConfiguration, found {len(documents)} documents")
    try:
        return load_scheduler_config(documents[0].data)  # type: ignore[arg-type]
    except ConfigError as err:
        line = documents[0].line_of(error_path(str(err)))
        raise InputError(path, str(err), documents[0], line) from None


def load_profile(path: Path | None, scheduler_name: str = DEFAULT_SCHEDULER_NAME) -> Profile:
    """The profile of the configuration file that runs `scheduler_name` (the only one, if one)."""
    config = load_config(path)
    profile = config.profile_for(scheduler_name)
    if profile is None and len(config.profiles) == 1:
        profile = next(iter(config.profiles.values()))
    if profile is None:
        raise InputError(path, f"profiles: no profile has schedulerName {scheduler_name!r}")  # type: ignore[arg-type]
    return profile


def load_what_if(path: Path) -> dict:
    """A what-if question: `nodes` (overrides), `profile` (a profiles[] entry), `schedulerName`,
    `pod` (an edited copy of the pod), as the endpoint's body."""
    documents = _read(path)
    if len(documents) != 1 or not isinstance(documents[0].data, dict):
        raise InputError(path, "expected one mapping with nodes, profile, schedulerName or pod")
    return documents[0].data
