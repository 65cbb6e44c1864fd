"""The commands the console speaks: each command path, what runs it, and the flags it takes
(besides -n/--namespace and -h/--help, which every command takes)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from dashboard.console import drain, generated, reads, rollout, shell, top, writes
from dashboard.console.context import Context
from dashboard.console.exec import exec_command
from dashboard.console.parser import CommandLine
from dashboard.console.result import ConsoleResult

Handler = Callable[[Context, CommandLine], ConsoleResult]


@dataclass(frozen=True, slots=True)
class Spec:
    run: Handler
    flags: frozenset[str] = frozenset()
    reads_file: bool = False  # -f FILE names a file of the working directory


def _flags(*names: str) -> frozenset[str]:
    return frozenset(names)


OUTPUT = ("-o", "--output")
SELECTOR = ("-l", "--selector")
FILENAME = ("-f", "--filename")
DRY_RUN = ("--dry-run", *OUTPUT)
GET = (
    *OUTPUT,
    *SELECTOR,
    "-A",
    "--all-namespaces",
    "--show-labels",
    "--show-managed-fields",
    "-w",
    "--watch",
    "--field-selector",
    "--no-headers",
)

COMMANDS: dict[tuple[str, ...], Spec] = {
    ("get",): Spec(reads.get, _flags(*GET)),
    ("describe",): Spec(reads.describe, _flags(*SELECTOR, "-A", "--all-namespaces")),
    ("logs",): Spec(reads.logs, _flags("-c", "--container", "--tail", "-p", "--previous", "--timestamps")),
    ("exec",): Spec(exec_command, _flags("-c", "--container", "-i", "--stdin", "-t", "--tty", "-it", "-ti")),
    ("explain-scheduling",): Spec(reads.explain_scheduling),
    ("help",): Spec(reads.help_text),
    ("version",): Spec(shell.version),
    ("api-resources",): Spec(
        shell.api_resources, _flags(*OUTPUT, "--namespaced", "--api-group", "--no-headers")
    ),
    ("ls",): Spec(shell.ls),
    ("cat",): Spec(shell.cat),
    ("top", "node"): Spec(top.top_node, _flags(*SELECTOR, "--no-headers", "--sort-by")),
    ("top", "pod"): Spec(
        top.top_pod,
        _flags(
            *SELECTOR,
            "-A",
            "--all-namespaces",
            "--no-headers",
            "--sort-by",
            "--containers",
            "--field-selector",
        ),
    ),
    ("label",): Spec(writes.label, _flags("--overwrite")),
    ("cordon",): Spec(writes.cordon),
    ("uncordon",): Spec(writes.uncordon),
    ("taint",): Spec(writes.taint, _flags("--overwrite")),
    ("scale",): Spec(writes.scale, _flags("--replicas", "--current-replicas")),
    ("delete",): Spec(writes.delete, _flags(*FILENAME, "--grace-period", "--force", "--now", "--wait"), True),
    ("create",): Spec(writes.create, _flags(*FILENAME), True),
    ("apply",): Spec(writes.apply, _flags(*FILENAME), True),
    ("run",): Spec(
        generated.run,
        _flags(
            "--image",
            "--labels",
            "-l",
            "--port",
            "--restart",
            "--env",
            "--command",
            "--image-pull-policy",
            *DRY_RUN,
        ),
    ),
    ("create", "deployment"): Spec(
        generated.create_deployment, _flags("--image", "--replicas", "-r", "--port", *DRY_RUN)
    ),
    ("create", "job"): Spec(generated.create_job, _flags("--image", *DRY_RUN)),
    ("create", "service", "clusterip"): Spec(
        generated.create_service, _flags("--tcp", "--clusterip", *DRY_RUN)
    ),
    ("create", "service", "nodeport"): Spec(
        generated.create_service, _flags("--tcp", "--node-port", *DRY_RUN)
    ),
    ("create", "service", "loadbalancer"): Spec(generated.create_service, _flags("--tcp", *DRY_RUN)),
    ("create", "service", "externalname"): Spec(
        generated.create_service, _flags("--tcp", "--external-name", *DRY_RUN)
    ),
    ("create", "configmap"): Spec(
        generated.create_configmap, _flags("--from-literal", "--from-file", "--from-env-file", *DRY_RUN)
    ),
    ("create", "secret", "generic"): Spec(
        generated.create_secret,
        _flags("--from-literal", "--from-file", "--from-env-file", "--type", *DRY_RUN),
    ),
    ("create", "priorityclass"): Spec(
        generated.create_priorityclass,
        _flags("--value", "--description", "--global-default", "--preemption-policy", *DRY_RUN),
    ),
    ("create", "namespace"): Spec(generated.create_namespace, _flags(*DRY_RUN)),
    ("create", "quota"): Spec(generated.create_quota, _flags("--hard", "--scopes", *DRY_RUN)),
    ("expose",): Spec(
        generated.expose,
        _flags("--port", "--target-port", "--name", "--type", "--protocol", "--labels", "-l", *DRY_RUN),
    ),
    ("rollout", "status"): Spec(rollout.status, _flags("--revision", "--timeout", "-w", "--watch")),
    ("rollout", "history"): Spec(rollout.history, _flags("--revision")),
    ("rollout", "undo"): Spec(rollout.undo, _flags("--to-revision")),
    ("rollout", "restart"): Spec(rollout.restart),
    ("set", "image"): Spec(rollout.set_image),
    ("drain",): Spec(
        drain.drain,
        _flags(
            "--ignore-daemonsets",
            "--force",
            "--delete-emptydir-data",
            "--grace-period",
            "--timeout",
            "--pod-selector",
        ),
    ),
}
# What each command path takes, for the parser.
ACCEPTED = {path: spec.flags for path, spec in COMMANDS.items()}
