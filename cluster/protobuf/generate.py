"""Writes the field-number tables in cluster/protobuf/groups/ from upstream's own sources.

Run it against checkouts of k8s.io/api and k8s.io/apimachinery at the release KubeSim follows:

    python -m cluster.protobuf.generate --api ~/src/api --apimachinery ~/src/apimachinery

For each package it reads `generated.proto` (message names, field numbers, proto types) and the Go
structs beside it (`*T` pointers, `omitempty`, `,inline`), which decide how an absent or zero field
appears in JSON. Only the messages reachable from ROOTS are written; add a kind by adding its
message to ROOTS and, when it is a new group, a line to PACKAGES. See docs/protobuf.md.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

# proto package -> (source tree, directory, table module, group/version or "")
PACKAGES: dict[str, tuple[str, str, str, str]] = {
    "k8s.io.api.core.v1": ("api", "core/v1", "core_v1", "v1"),
    "k8s.io.api.apps.v1": ("api", "apps/v1", "apps_v1", "apps/v1"),
    "k8s.io.api.autoscaling.v1": ("api", "autoscaling/v1", "autoscaling_v1", "autoscaling/v1"),
    "k8s.io.api.autoscaling.v2": ("api", "autoscaling/v2", "autoscaling_v2", "autoscaling/v2"),
    "k8s.io.api.policy.v1": ("api", "policy/v1", "policy_v1", "policy/v1"),
    "k8s.io.api.authorization.v1": ("api", "authorization/v1", "authorization_v1", "authorization.k8s.io/v1"),
    "k8s.io.api.authentication.v1": (
        "api",
        "authentication/v1",
        "authentication_v1",
        "authentication.k8s.io/v1",
    ),
    "k8s.io.api.coordination.v1": ("api", "coordination/v1", "coordination_v1", "coordination.k8s.io/v1"),
    "k8s.io.api.discovery.v1": ("api", "discovery/v1", "discovery_v1", "discovery.k8s.io/v1"),
    "k8s.io.api.batch.v1": ("api", "batch/v1", "batch_v1", "batch/v1"),
    "k8s.io.api.scheduling.v1": ("api", "scheduling/v1", "scheduling_v1", "scheduling.k8s.io/v1"),
    "k8s.io.api.storage.v1": ("api", "storage/v1", "storage_v1", "storage.k8s.io/v1"),
    "k8s.io.api.rbac.v1": ("api", "rbac/v1", "rbac_v1", "rbac.authorization.k8s.io/v1"),
    "k8s.io.apimachinery.pkg.apis.meta.v1": ("apimachinery", "pkg/apis/meta/v1", "meta_v1", ""),
    "k8s.io.apimachinery.pkg.runtime": ("apimachinery", "pkg/runtime", "runtime", ""),
    "k8s.io.apimachinery.pkg.runtime.schema": ("apimachinery", "pkg/runtime/schema", "runtime_schema", ""),
    "k8s.io.apimachinery.pkg.api.resource": ("apimachinery", "pkg/api/resource", "resource", ""),
    "k8s.io.apimachinery.pkg.util.intstr": ("apimachinery", "pkg/util/intstr", "intstr", ""),
}

# The top-level kinds a client may send, per package; everything they reference comes along.
ROOTS: dict[str, tuple[str, ...]] = {
    "k8s.io.api.core.v1": (
        "Pod",
        "PodTemplate",
        "ReplicationController",
        "Node",
        "Namespace",
        "Event",
        "Binding",
        "ConfigMap",
        "Secret",
        "Service",
        "Endpoints",
        "ResourceQuota",
        "LimitRange",
        "PersistentVolume",
        "PersistentVolumeClaim",
        "ServiceAccount",
    ),
    "k8s.io.api.apps.v1": ("Deployment", "ReplicaSet", "DaemonSet", "StatefulSet", "ControllerRevision"),
    "k8s.io.api.autoscaling.v1": ("Scale", "HorizontalPodAutoscaler"),
    "k8s.io.api.autoscaling.v2": ("HorizontalPodAutoscaler",),
    "k8s.io.api.policy.v1": ("Eviction", "PodDisruptionBudget"),
    "k8s.io.api.authorization.v1": ("SelfSubjectAccessReview", "SelfSubjectRulesReview"),
    "k8s.io.api.authentication.v1": ("SelfSubjectReview", "TokenRequest"),
    "k8s.io.api.coordination.v1": ("Lease",),
    "k8s.io.api.discovery.v1": ("EndpointSlice",),
    "k8s.io.api.batch.v1": ("Job", "CronJob"),
    "k8s.io.api.scheduling.v1": ("PriorityClass",),
    "k8s.io.api.storage.v1": ("StorageClass", "CSINode", "CSIDriver"),
    "k8s.io.api.rbac.v1": ("Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"),
    "k8s.io.apimachinery.pkg.apis.meta.v1": ("DeleteOptions", "CreateOptions", "Status"),
    "k8s.io.apimachinery.pkg.runtime": ("Unknown",),
}

SCALARS = {
    "string",
    "int32",
    "int64",
    "bool",
    "bytes",
    "double",
    "float",
    "uint32",
    "uint64",
    "sint32",
    "sint64",
}
_MESSAGE = re.compile(r"^message (\w+) \{(.*?)^\}", re.S | re.M)
_FIELD = re.compile(
    r"^\s*(optional|repeated)?\s*(map<\s*[\w.]+\s*,\s*[\w.]+\s*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;", re.M
)
_STRUCT = re.compile(r"^type (\w+) struct \{(.*?)^\}", re.S | re.M)
_TAGGED = re.compile(r"^\s*([^`/]+?)\s*`([^`]*)`", re.M)


def _proto_messages(text: str, package: str) -> dict[str, list[tuple[int, str, str, bool]]]:
    messages = {}
    for name, body in _MESSAGE.findall(text):
        fields = []
        for label, typ, field, number in _FIELD.findall(body):
            typ = typ.replace(" ", "")
            if typ.startswith("map<"):
                key, value = typ[4:-1].split(",")
                typ = f"map<{_qualify(key, package)},{_qualify(value, package)}>"
            else:
                typ = _qualify(typ, package)
            fields.append((int(number), field, typ, label == "repeated"))
        messages[name] = fields
    return messages


def _qualify(typ: str, package: str) -> str:
    if typ in SCALARS:
        return typ
    return typ[1:] if typ.startswith(".") else f"{package}.{typ}"


def _go_flags(sources: list[str]) -> dict[tuple[str, str], str]:
    """(struct, proto field name) -> flags: "*" a Go pointer, "o" omitempty, "i" inlined in JSON."""
    flags = {}
    for text in sources:
        for struct, body in _STRUCT.findall(text):
            for decl, tag in _TAGGED.findall(body):
                proto = re.search(r'protobuf:"[^"]*name=(\w+)', tag)
                if not proto:
                    continue
                json_tag = re.search(r'json:"([^"]*)"', tag)
                options = (json_tag.group(1) if json_tag else "").split(",")
                go_type = decl.split()[-1]
                flag = ("*" if go_type.startswith("*") else "") + ("o" if "omitempty" in options[1:] else "")
                if options[0] == "" and "inline" in options[1:]:
                    flag += "i"
                flags[(struct, proto.group(1))] = flag
                if options[0]:  # the proto name is the JSON name, but for rare tags such as name=uID
                    flags.setdefault((struct, options[0]), flag)
    return flags


def _closure(messages: dict[str, dict[str, list]]) -> dict[str, set[str]]:
    wanted: dict[str, set[str]] = {pkg: set() for pkg in PACKAGES}
    stack = [f"{pkg}.{name}" for pkg, names in ROOTS.items() for name in names]
    while stack:
        full = stack.pop()
        pkg, name = full.rsplit(".", 1)
        if name in wanted[pkg]:
            continue
        wanted[pkg].add(name)
        for _number, _field, typ, _rep in messages[pkg][name]:
            for part in re.findall(r"[\w.]+", typ.replace("map<", "<")):
                if part not in SCALARS and "." in part:
                    stack.append(part)
    return wanted


def _tuple(names: tuple[str, ...]) -> str:
    quoted = [f'"{name}"' for name in names]
    return f"({quoted[0]},)" if len(quoted) == 1 else f"({', '.join(quoted)})"


def _render(pkg: str, names: set[str], messages: dict, flags: dict) -> str:
    tree, directory, _module, group_version = PACKAGES[pkg]
    lines = [
        f'"""Protobuf field numbers of {pkg}:',
        f"`{directory}/generated.proto` in k8s.io/{tree} v0.33.",
        "",
        "Written by `python -m cluster.protobuf.generate`; see docs/protobuf.md. Each field is",
        "(number, name, type, flags): type is a scalar, `map<K,V>` or a message's full proto name;",
        'flags: "r" repeated, "*" a Go pointer (present even when zero), "o" omitempty in JSON,',
        '"i" inlined into the parent\'s JSON.',
        '"""',
        "",
        f'PACKAGE = "{pkg}"',
        f'GROUP_VERSION = "{group_version}"',
        f"KINDS = {_tuple(tuple(sorted(ROOTS.get(pkg, ()))))}",
        "",
        "MESSAGES = {",
    ]
    for name in sorted(names):
        lines.append(f'    "{name}": (')
        for number, field, typ, repeated in messages[pkg][name]:
            flag = ("r" if repeated else "") + flags.get((name, field), "o")
            typ = typ.removeprefix(pkg + ".")
            lines.append(f'        ({number}, "{field}", "{typ}", "{flag}"),')
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--api", type=Path, required=True, help="a k8s.io/api checkout")
    parser.add_argument("--apimachinery", type=Path, required=True, help="a k8s.io/apimachinery checkout")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "groups")
    args = parser.parse_args()
    messages, flags = {}, {}
    for pkg, (tree, directory, _module, _gv) in PACKAGES.items():
        folder = (args.api if tree == "api" else args.apimachinery) / directory
        messages[pkg] = _proto_messages((folder / "generated.proto").read_text(), pkg)
        go = [
            p.read_text()
            for p in sorted(folder.glob("*.go"))
            if not p.name.startswith("zz_generated") and not p.name.endswith(("_test.go", ".pb.go"))
        ]
        flags[pkg] = _go_flags(go)
    for pkg, names in _closure(messages).items():
        if names:
            module = PACKAGES[pkg][2]
            (args.out / f"{module}.py").write_text(_render(pkg, names, messages, flags[pkg]))
    ruff = Path(sys.executable).parent / "ruff"
    if ruff.exists():  # the repository's own formatting, so a regenerated table diffs cleanly
        subprocess.run([str(ruff), "format", "--quiet", str(args.out)], check=True)


if __name__ == "__main__":
    main()
