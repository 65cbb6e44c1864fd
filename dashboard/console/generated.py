"""Commands that create an object kubectl builds itself: `run`, `create deployment|job|service|
configmap|secret generic|priorityclass|namespace` and `expose` (the objects: generate.py).

Each prints what kubectl prints: `deployment.apps/web created`, its `--dry-run=client|server`
and `-o yaml|json|name` forms, and a refused create in that command's own words
(`error: failed to create deployment: …`, or kubectl's `Error from server (…): …`).
"""

from __future__ import annotations

import copy
import json

from cluster.apiserver import service as api
from cluster.apiserver.kinds import kind_info
from dashboard.console import generate
from dashboard.console.context import Context
from dashboard.console.parser import CommandLine, UsageError, split_targets
from dashboard.console.printer import go_yaml, without_managed_fields
from dashboard.console.result import ConsoleResult, server_error
from dashboard.console.writes import created_ref

DRY_RUNS = ("none", "client", "server")
OUTPUTS = ("", "yaml", "json", "name")


def _one_name(cmd: CommandLine) -> str:
    if len(cmd.args) != 1:
        raise UsageError(
            f"error: exactly one NAME is required, got {len(cmd.args)}\n"
            f"See 'kubectl {cmd.name} -h' for help and examples"
        )
    return cmd.args[0]


def _namespace(cmd: CommandLine) -> str:
    """The namespace kubectl writes into a generated object: only one given with -n."""
    return cmd.flag("namespace")


def printed(obj: dict, output: str, line: str) -> str:
    """An object as kubectl prints it: `-o json` in its field order, `-o yaml` with sorted keys."""
    obj = without_managed_fields(obj)
    if output == "json":
        return json.dumps(obj, indent=4, ensure_ascii=False) + "\n"
    if output == "yaml":
        return go_yaml(obj)
    if output == "name":
        return line.split(" ", 1)[0] + "\n"
    return line + "\n"


def create_generated(
    ctx: Context, cmd: CommandLine, obj: dict, *, wrap: str | None, word: str = "created"
) -> ConsoleResult:
    """Create `obj` as kubectl does after building it; `wrap`: the command's words before a
    refusal (`failed to create deployment: `), None for kubectl's plain `Error from server`."""
    dry = cmd.flag("dry_run") or "none"
    if dry not in DRY_RUNS:
        raise UsageError(f'error: Invalid dry-run value ({dry}). Must be "none", "server", or "client".')
    output = cmd.flag("output")
    if output not in OUTPUTS:
        raise UsageError(
            f'error: unable to match a printer suitable for the output format "{output}", '
            "allowed formats are: json,name,yaml"
        )
    info = kind_info(obj["kind"])
    prefix = f"{info.kubectl_prefix}/{obj['metadata']['name']}"
    if dry == "client":
        return ConsoleResult(printed(obj, output, f"{prefix} {word} (dry run)"))
    body = copy.deepcopy(obj)
    if info.namespaced:
        body["metadata"]["namespace"] = cmd.namespace
    try:
        created = ctx.client.create(body, dry=dry == "server")
    except api.ApiError as exc:
        if wrap is None:
            return ConsoleResult(server_error(exc), 1)
        return ConsoleResult(f"error: {wrap}{exc.message}\n", 1)
    suffix = " (server dry run)" if dry == "server" else ""
    follow = {"created": [created_ref(info, body["metadata"].get("namespace", ""), body["metadata"]["name"])]}
    return ConsoleResult(printed(created, output, f"{prefix} {word}{suffix}"), 0, {} if suffix else follow)


def run(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    if not cmd.flag("image"):
        raise UsageError('error: required flag(s) "image" not set')
    if not cmd.args:
        raise UsageError("error: NAME is required for run\nSee 'kubectl run -h' for help and examples")
    obj = generate.pod(cmd, cmd.args[0], _namespace(cmd))
    return create_generated(ctx, cmd, obj, wrap=None)


def create_deployment(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    if not cmd.values("image"):
        raise UsageError('error: required flag(s) "image" not set')
    obj = generate.deployment(cmd, _one_name(cmd), _namespace(cmd))
    return create_generated(ctx, cmd, obj, wrap="failed to create deployment: ")


def create_job(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    name = _one_name(cmd)
    if not cmd.flag("image"):
        raise UsageError("error: either --image or --from must be specified")
    return create_generated(ctx, cmd, generate.job(cmd, name, _namespace(cmd)), wrap="failed to create job: ")


def create_service(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    kind = cmd.path[-1]
    if kind == "externalname" and not cmd.flag("external_name"):
        raise UsageError('error: required flag(s) "external-name" not set')
    obj = generate.service(cmd, _one_name(cmd), _namespace(cmd), kind)
    return create_generated(ctx, cmd, obj, wrap=f"failed to create {obj['spec']['type']} service: ")


def create_configmap(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    obj = generate.configmap(cmd, _one_name(cmd), _namespace(cmd), ctx.workdir)
    return create_generated(ctx, cmd, obj, wrap="failed to create configmap: ")


def create_secret(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    obj = generate.secret(cmd, _one_name(cmd), _namespace(cmd), ctx.workdir)
    return create_generated(ctx, cmd, obj, wrap="failed to create secret ")  # kubectl's words, no colon


def create_priorityclass(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    obj = generate.priorityclass(cmd, _one_name(cmd))
    return create_generated(ctx, cmd, obj, wrap="failed to create priorityclass: ")


def create_quota(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    obj = generate.quota(cmd, _one_name(cmd), _namespace(cmd))
    return create_generated(ctx, cmd, obj, wrap="failed to create quota: ")


def create_namespace(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    return create_generated(ctx, cmd, generate.namespace(_one_name(cmd)), wrap=None)


def expose(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    targets = split_targets(cmd.args)
    if not targets or any(name is None for _, name in targets):
        raise UsageError(
            "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
            "   '<resource> <name>'\n   '<resource>'"
        )
    lines, code, created = [], 0, []
    for res, name in targets:
        if res.kind not in ("Pod", "Service", "ReplicationController", "ReplicaSet", "Deployment"):
            raise UsageError(f"error: cannot expose a {res.kind}")
        try:
            obj = ctx.client.get(res.kind, cmd.namespace, name)
        except api.ApiError as exc:
            lines.append(server_error(exc))
            code = 1
            continue
        result = create_generated(
            ctx, cmd, generate.exposed(cmd, obj, _namespace(cmd)), wrap=None, word="exposed"
        )
        lines.append(result.output)
        code = code or result.exit_code
        created += result.ui.get("created", [])
    return ConsoleResult("".join(lines), code, {"created": created} if created else {})
