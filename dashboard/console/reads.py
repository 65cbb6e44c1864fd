"""Console commands that read: get, describe, logs, explain-scheduling, help."""

from __future__ import annotations

import json

from cluster.apiserver import service as api
from cluster.client import leader
from cluster.kubeapi import tables
from cluster.kubelet.logs import read_log
from cluster.models import Cluster
from dashboard.console.context import Context
from dashboard.console.describe import describe_object
from dashboard.console.parser import CommandLine, Resource, UsageError, split_targets
from dashboard.console.printer import go_yaml, table_rows, tabwrite, without_managed_fields
from dashboard.console.result import ConsoleResult, server_error

HELP = """kubectl controls the KubeSim cluster: the commands the course uses, with kubectl's own output.
COMMAND --help shows kubectl's help for it; Tab completes.

 get        get pods -o wide | get nodes --show-labels | get rc,rs,deploy | get pods -l app=web | get pods -w
 describe   describe pod <name> | describe node <name> | describe deploy <name>
 label      label nodes node1 zz=cxk | label --overwrite nodes node1 zz=abc | label nodes node1 zz-
 apply      apply -f rc-nginx.yaml | apply -f -   (then paste the YAML; Ctrl+Enter runs it)
 create     create -f FILE | create deployment web --image=nginx:1.27 --replicas=2
            create job hi --image=busybox -- echo hi | create namespace team-a
            create service clusterip web --tcp=80:80 | create configmap c --from-literal=a=b
            create secret generic s --from-literal=password=s3cret | create priorityclass high --value=1000
 run        run web --image=nginx:1.27 | run bb --image=busybox --restart=Never -- sleep 3600
 expose     expose deployment web --port=80 | expose rc nginx --port=80 --type=NodePort
 delete     delete pod <name> | delete rc <name> | delete -f FILE
 scale      scale rc nginx --replicas=3 | scale deploy web --replicas=1
 rollout    rollout status deploy/web | rollout history deploy/web | rollout undo deploy/web
            rollout restart deploy/web
 set image  set image deploy/web nginx=nginx:1.16
 cordon     cordon node1 | uncordon node1 | drain node2 --ignore-daemonsets --force
 taint      taint nodes node1 dedicated=gpu:NoSchedule | taint nodes node1 dedicated:NoSchedule-
 top        top nodes | top pods --containers | top pods -A --sort-by=cpu
 logs       logs <pod>
 exec       exec <pod> -- hostname | exec -it <pod> -- bash   (exit or Ctrl+D leaves the shell)
 explain-scheduling <pod>   open the scheduler panel for a pod
 api-resources   api-resources | api-resources --namespaced=false | api-resources -o wide
 ls, cat    the working directory: the course's files and the ones you uploaded
 clear      clear the screen
"""


def _namespace_arg(cmd: CommandLine, res: Resource) -> str | None:
    if not res.namespaced or cmd.flags.get("all_namespaces"):
        return None
    return cmd.namespace


def _no_resources(cmd: CommandLine, namespaced: bool) -> str:
    if namespaced and not cmd.flags.get("all_namespaces"):
        return f"No resources found in {cmd.namespace} namespace.\n"
    return "No resources found\n"


def _objects(cluster: Cluster, cmd: CommandLine, res: Resource, name: str | None) -> list[dict]:
    namespace = _namespace_arg(cmd, res)
    if res.kind == "Lease":
        leader.show_renewal(cluster, namespace)
    if name is not None:
        return [api.get(cluster, res.kind, namespace or "", name)]
    items, _revision = api.list_objects(
        cluster,
        res.kind,
        namespace=namespace,
        label_selector=cmd.flag("selector"),
        field_selector=cmd.flag("field_selector"),
        served=True,  # what kubectl lists
    )
    return items


def _serialized(objects: list[dict], output: str, res: Resource, single: bool) -> str:
    if output == "name":
        return "".join(f"{res.kubectl_prefix}/{obj['metadata']['name']}\n" for obj in objects)
    doc: dict = objects[0] if single else {"apiVersion": "v1", "kind": "List", "items": objects}
    if output == "json":
        return json.dumps(doc, indent=4, ensure_ascii=False) + "\n"
    return go_yaml(doc)


def get(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    cluster = ctx.cluster
    targets = split_targets(cmd.args)
    if not targets:
        raise UsageError(
            'You must specify the type of resource to get. Use "kubectl api-resources" for a complete list '
            "of supported resources.\n\nerror: Required resource not specified."
        )
    output = cmd.flag("output")
    if output not in ("", "wide", "yaml", "json", "name"):
        raise UsageError(f'error: unable to match a printer suitable for the output format "{output}"')
    multi_kind = len({res.kind for res, _ in targets}) > 1
    blocks, errors, exit_code = [], [], 0
    for res in dict.fromkeys(res for res, _ in targets):
        names = [name for r, name in targets if r == res]
        objects: list[dict] = []
        for name in names:
            try:
                objects += _objects(cluster, cmd, res, name)
            except api.ApiError as exc:
                errors.append(server_error(exc))
                exit_code = 1
        if not objects:
            continue
        if output in ("yaml", "json", "name"):
            if not cmd.flags.get("show_managed_fields"):
                objects = [without_managed_fields(obj) for obj in objects]
            blocks.append(_serialized(objects, output, res, single=names != [None] and len(objects) == 1))
            continue
        table = tables.to_table(res.kind, objects, wide=output == "wide")
        rows = table_rows(
            table,
            wide=output == "wide",
            show_labels=bool(cmd.flags.get("show_labels")),
            with_namespace=res.namespaced and bool(cmd.flags.get("all_namespaces")),
            kind_prefix=res.kubectl_prefix if multi_kind else "",
            headers=not cmd.flags.get("no_headers"),
        )
        blocks.append(tabwrite(rows))
    text = "\n".join(blocks)
    if not blocks and not errors:
        text = _no_resources(cmd, any(res.namespaced for res, _ in targets))
    result = ConsoleResult("".join(errors) + text, exit_code)
    if cmd.flags.get("watch"):
        res = targets[0][0]
        result.ui = {
            "watch": {
                "kind": res.kind,
                "resource": res.plural,
                "namespace": _namespace_arg(cmd, res),
                "name": targets[0][1],
                "wide": output == "wide",
            }
        }
    return result


def describe(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    cluster = ctx.cluster
    targets = split_targets(cmd.args)
    if not targets:
        raise UsageError("error: You must specify the type of resource to describe.")
    parts = []
    for res, name in targets:
        names = [name] if name else [obj["metadata"]["name"] for obj in _objects(cluster, cmd, res, None)]
        if not names:
            return ConsoleResult(_no_resources(cmd, res.namespaced))
        for each in names:
            parts.append(describe_object(cluster, res.kind, _namespace_arg(cmd, res) or "", each))
    return ConsoleResult("\n\n".join(part.rstrip("\n") for part in parts) + "\n")


def logs(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    cluster = ctx.cluster
    if not cmd.args:
        raise UsageError("error: expected 'logs [-f] [-p] (POD | TYPE/NAME) [-c CONTAINER]'.")
    target = cmd.args[0]
    if "/" in target:
        kind, target = target.split("/", 1)
        if kind not in ("pod", "pods", "po"):
            raise UsageError(f"error: cannot get the logs from {kind}")
    tail = cmd.flag("tail")
    if tail and not tail.lstrip("-").isdigit():
        raise UsageError(f'error: invalid argument "{tail}" for "--tail" flag')
    lines = int(tail) if tail else None
    text = read_log(
        cluster,
        cmd.namespace,
        target,
        cmd.flag("container") or None,
        lines,
        bool(cmd.flags.get("timestamps")),
        previous=bool(cmd.flags.get("previous")),
    )
    return ConsoleResult(text if text.endswith("\n") or not text else text + "\n")


def explain_scheduling(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    cluster = ctx.cluster
    if not cmd.args:
        raise UsageError("error: expected 'explain-scheduling POD'.")
    name = cmd.args[0].split("/", 1)[-1]
    pod = api.get(cluster, "Pod", cmd.namespace, name)
    node = pod.get("spec", {}).get("nodeName")
    line = f"pod/{name} is bound to {node}\n" if node else f"pod/{name} is not scheduled yet\n"
    return ConsoleResult(line, ui={"panel": "scheduler", "namespace": cmd.namespace, "pod": name})


def help_text(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    return ConsoleResult(HELP)


HANDLERS = {
    "get": get,
    "describe": describe,
    "logs": logs,
    "explain-scheduling": explain_scheduling,
    "help": help_text,
}
