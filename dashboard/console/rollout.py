"""`rollout status|history|undo|restart` and `set image`, as kubectl v1.32 runs them
(pkg/cmd/rollout, pkg/cmd/set/set_image.go and polymorphichelpers' status viewers, history
viewers and rollbackers), through the console's client."""

from __future__ import annotations

import json
from datetime import datetime

from cluster.apiserver import service as api
from cluster.kubeapi.describe_workloads import pod_template
from dashboard.console.client import JSON_PATCH, STRATEGIC_PATCH
from dashboard.console.context import Context
from dashboard.console.parser import CommandLine, Resource, UsageError, split_targets, whole_number
from dashboard.console.result import ConsoleResult
from dashboard.console.watching import BUSY_NOTE, Deadline, changes, may_wait, parse_duration, waiting_slot

REVISION = "deployment.kubernetes.io/revision"
CHANGE_CAUSE = "kubernetes.io/change-cause"
HASH_LABEL = "pod-template-hash"
RESTARTED_AT = "kubectl.kubernetes.io/restartedAt"
# The Deployment annotations a rollback keeps from the Deployment, not from the ReplicaSet.
KEPT_ON_ROLLBACK = frozenset(
    {
        "kubectl.kubernetes.io/last-applied-configuration",
        REVISION,
        "deployment.kubernetes.io/revision-history",
        "deployment.kubernetes.io/desired-replicas",
        "deployment.kubernetes.io/max-replicas",
        "deprecated.deployment.rollback.to",
    }
)
WORKLOADS = ("Deployment", "DaemonSet", "StatefulSet")


class NotDone(Exception):
    """A status viewer's error (kubectl prints it and stops watching)."""


def _target(cmd: CommandLine) -> tuple[Resource, str]:
    targets = split_targets(cmd.args)
    if not targets or any(name is None for _, name in targets):
        raise UsageError(
            "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
            "   '<resource> <name>'\n   '<resource>'"
        )
    return targets[0]


def _revision_of(obj: dict) -> int:
    return int(((obj.get("metadata") or {}).get("annotations") or {}).get(REVISION, "0") or 0)


# -- rollout status ------------------------------------------------------------------------------
def _deployment_status(obj: dict, revision: int) -> tuple[str, bool]:
    meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
    waiting = f'Waiting for deployment "{meta["name"]}" rollout to finish: '
    if revision > 0 and _revision_of(obj) != revision:
        running = _revision_of(obj)
        raise NotDone(f"desired revision ({revision}) is different from the running revision ({running})")
    if meta.get("generation", 0) > status.get("observedGeneration", 0):
        return "Waiting for deployment spec update to be observed...\n", False
    conditions = status.get("conditions") or []
    progressing = next((c for c in conditions if c.get("type") == "Progressing"), None)
    if progressing and progressing.get("reason") == "ProgressDeadlineExceeded":
        raise NotDone(f'deployment "{meta["name"]}" exceeded its progress deadline')
    wanted, updated = spec.get("replicas", 1), status.get("updatedReplicas", 0)
    total, available = status.get("replicas", 0), status.get("availableReplicas", 0)
    if updated < wanted:
        return f"{waiting}{updated} out of {wanted} new replicas have been updated...\n", False
    if total > updated:
        return f"{waiting}{total - updated} old replicas are pending termination...\n", False
    if available < updated:
        return f"{waiting}{available} of {updated} updated replicas are available...\n", False
    return f'deployment "{meta["name"]}" successfully rolled out\n', True


def _daemonset_status(obj: dict, revision: int) -> tuple[str, bool]:
    meta, spec, status = obj["metadata"], obj.get("spec") or {}, obj.get("status") or {}
    waiting = f'Waiting for daemon set "{meta["name"]}" rollout to finish: '
    if (spec.get("updateStrategy") or {}).get("type", "RollingUpdate") != "RollingUpdate":
        raise NotDone("rollout status is only available for RollingUpdate strategy type")
    if meta.get("generation", 0) > status.get("observedGeneration", 0):
        return "Waiting for daemon set spec update to be observed...\n", False
    desired = status.get("desiredNumberScheduled", 0)
    updated, available = status.get("updatedNumberScheduled", 0), status.get("numberAvailable", 0)
    if updated < desired:
        return f"{waiting}{updated} out of {desired} new pods have been updated...\n", False
    if available < desired:
        return f"{waiting}{available} of {desired} updated pods are available...\n", False
    return f'daemon set "{meta["name"]}" successfully rolled out\n', True


VIEWERS = {"Deployment": _deployment_status, "DaemonSet": _daemonset_status}


def status(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    res, name = _target(cmd)
    ctx.client.get(res.kind, cmd.namespace, name)  # kubectl reads the object before it picks a viewer
    viewer = VIEWERS.get(res.kind)
    if viewer is None:
        raise UsageError(f"error: no status viewer has been implemented for {res.kind}")
    revision = whole_number(cmd.flag("revision") or "0", "revision")
    deadline = Deadline(parse_duration(cmd.flag("timeout"), "timeout"))
    namespace = cmd.namespace
    items, at = api.list_objects(ctx.cluster, res.kind, namespace, field_selector=f"metadata.name={name}")
    if not items:  # deleted meanwhile
        ctx.client.get(res.kind, cmd.namespace, name)
    watch = cmd.flags.get("watch", True) and may_wait(ctx.cluster)
    out = []
    try:
        line, done = viewer(items[0], revision)
        out.append(line)
        if done or not watch:
            return ConsoleResult("".join(out))
        with waiting_slot() as slot:
            if not slot:
                return ConsoleResult("".join(out) + BUSY_NOTE)
            for entry in changes(ctx.cluster, res.kind, namespace, name, at, deadline):
                if entry.type == "DELETED":
                    raise NotDone("object has been deleted")
                line, done = viewer(entry.object, revision)
                out.append(line)
                if done:
                    return ConsoleResult("".join(out))
    except NotDone as problem:
        return ConsoleResult("".join(out) + f"error: {problem}\n", 1)
    return ConsoleResult("".join(out) + "error: timed out waiting for the condition\n" + deadline.note(), 1)


# -- rollout history and undo: a Deployment's ReplicaSets, by revision -----------------------------
def _replica_sets(ctx: Context, deployment: dict) -> list[dict]:
    uid = deployment["metadata"].get("uid")
    return [
        rs
        for rs in ctx.client.list("ReplicaSet", deployment["metadata"].get("namespace"))
        if any(
            ref.get("uid") == uid and ref.get("controller")
            for ref in rs["metadata"].get("ownerReferences") or []
        )
    ]


def _no_history(res: Resource, name: str) -> UsageError:
    """What kubectl says of a kind whose history lives in ControllerRevisions, which KubeSim does
    not serve (its own error against this server), or of a kind with no history at all."""
    if res.kind in ("DaemonSet", "StatefulSet"):
        return UsageError(
            f"error: unable to find history controlled by {res.kind} {name}: "
            "the server could not find the requested resource"
        )
    return UsageError(f'error: no history viewer has been implemented for "{res.kind}"')


def history(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    res, name = _target(cmd)
    deployment = ctx.client.get(res.kind, cmd.namespace, name)
    if res.kind != "Deployment":
        raise _no_history(res, name)
    by_revision = {_revision_of(rs): rs for rs in _replica_sets(ctx, deployment) if _revision_of(rs)}
    revision = whole_number(cmd.flag("revision") or "0", "revision")
    prefix = f"{res.kubectl_prefix}/{name}"
    if revision > 0:
        rs = by_revision.get(revision)
        if rs is None:
            raise UsageError("error: unable to find the specified revision")
        template = "\n".join(pod_template(rs["spec"].get("template")))
        return ConsoleResult(f"{prefix} with revision #{revision}\n{template}\n\n")
    rows = [("REVISION", "CHANGE-CAUSE")] + [
        (
            str(number),
            (by_revision[number]["metadata"].get("annotations") or {}).get(CHANGE_CAUSE) or "<none>",
        )
        for number in sorted(by_revision)
    ]
    width = max(len(row[0]) for row in rows) + 2
    table = "".join(f"{number.ljust(width)}{cause}\n" for number, cause in rows)
    return ConsoleResult(f"{prefix} \n{table}\n")


def _without_hash(template: dict) -> dict:
    copy = json.loads(json.dumps(template))
    labels = (copy.get("metadata") or {}).get("labels") or {}
    labels.pop(HASH_LABEL, None)
    return copy


def undo(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    res, name = _target(cmd)
    to_revision = whole_number(cmd.flag("to_revision") or "0", "to-revision")
    deployment = ctx.client.get(res.kind, cmd.namespace, name)
    if res.kind not in WORKLOADS:
        raise UsageError(f'error: no rollbacker has been implemented for "{res.kind}"')
    if res.kind != "Deployment":
        raise _no_history(res, name)
    if to_revision < 0:
        raise UsageError(f"error: unable to find specified revision {to_revision} in history")
    target = _rollback_target(ctx, deployment, to_revision)
    if (deployment.get("spec") or {}).get("paused"):
        raise UsageError(
            "error: you cannot rollback a paused deployment; resume it first with "
            "'kubectl rollout resume' and try again"
        )
    prefix = f"{res.kubectl_prefix}/{name}"
    template = _without_hash(target["spec"].get("template") or {})
    if template == _without_hash(deployment["spec"].get("template") or {}):
        revision = _revision_of(target)
        return ConsoleResult(
            f"{prefix} skipped rollback (current template already matches revision {revision})\n"
        )
    current = deployment["metadata"].get("annotations") or {}
    annotations = {key: value for key, value in current.items() if key in KEPT_ON_ROLLBACK}
    annotations.update(
        {k: v for k, v in (target["metadata"].get("annotations") or {}).items() if k not in KEPT_ON_ROLLBACK}
    )
    patch = [
        {"op": "replace", "path": "/spec/template", "value": template},
        {"op": "replace", "path": "/metadata/annotations", "value": annotations},
    ]
    try:
        ctx.client.patch(res.kind, cmd.namespace, name, patch, JSON_PATCH)
    except api.ApiError as exc:
        return ConsoleResult(f"error: failed restoring revision {to_revision}: {exc.message}\n", 1)
    return ConsoleResult(f"{prefix} rolled back\n")


def _rollback_target(ctx: Context, deployment: dict, to_revision: int) -> dict:
    """The ReplicaSet of `to_revision`, or with 0 of the revision before the newest (kubectl's
    deploymentRevision)."""
    newest, previous = (0, None), (0, None)
    for rs in _replica_sets(ctx, deployment):
        number = _revision_of(rs)
        if not number:
            continue
        if to_revision == number:
            return rs
        if to_revision == 0:
            if number > newest[0]:
                newest, previous = (number, rs), newest
            elif number > previous[0]:
                previous = (number, rs)
    if to_revision > 0:
        raise UsageError(f"error: unable to find specified revision {to_revision} in history")
    if previous[1] is None:
        raise UsageError(f'error: no rollout history found for deployment "{deployment["metadata"]["name"]}"')
    return previous[1]


# -- rollout restart -------------------------------------------------------------------------------
def restart(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    res, name = _target(cmd)
    obj = ctx.client.get(res.kind, cmd.namespace, name)
    if res.kind not in WORKLOADS:
        raise UsageError(f'error: {res.plural} "{name}" restarting is not supported')
    if res.kind == "Deployment" and (obj.get("spec") or {}).get("paused"):
        raise UsageError("error: can't restart paused deployment (run rollout resume first)")
    now = datetime.now().astimezone().isoformat(timespec="seconds").replace("+00:00", "Z")
    patch = {"spec": {"template": {"metadata": {"annotations": {RESTARTED_AT: now}}}}}
    try:
        ctx.client.patch(res.kind, cmd.namespace, name, patch, STRATEGIC_PATCH)
    except api.ApiError as exc:
        return ConsoleResult(f"error: failed to patch: {exc.message}\n", 1)
    return ConsoleResult(f"{res.kubectl_prefix}/{name} restarted\n")


# -- set image -----------------------------------------------------------------------------------
def _pod_spec(obj: dict) -> tuple[dict, list[str]]:
    """The object's pod spec and its path in the object (a pod's own, a workload's template's)."""
    if obj["kind"] == "Pod":
        return obj.get("spec") or {}, ["spec"]
    return ((obj.get("spec") or {}).get("template") or {}).get("spec") or {}, ["spec", "template", "spec"]


def set_image(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    images = [arg for arg in cmd.args if "=" in arg]
    resources = [arg for arg in cmd.args if "=" not in arg]
    if not resources:
        raise UsageError(
            "error: You must provide one or more resources by argument or filename.\n"
            "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
            "   '<resource> <name>'\n   '<resource>'"
        )
    if not images:
        raise UsageError("error: at least one image update is required")
    wanted = dict(arg.split("=", 1) for arg in images)
    lines, code = [], 0
    for res, name in split_targets(resources):
        if name is None:
            raise UsageError("error: resource(s) were provided, but no name was specified")
        obj = ctx.client.get(res.kind, cmd.namespace, name)
        spec, path = _pod_spec(obj)
        changed: dict[str, list[dict]] = {}
        for key in ("initContainers", "containers"):
            for container in spec.get(key) or []:
                image = wanted.get(container["name"], wanted.get("*"))
                if image is not None and container.get("image") != image:
                    changed.setdefault(key, []).append({"image": image, "name": container["name"]})
        missing = [
            c
            for c in wanted
            if c != "*"
            and not any(x["name"] == c for k in ("initContainers", "containers") for x in spec.get(k) or [])
        ]
        if missing:
            lines.append(f'error: unable to find container named "{missing[0]}"\n')
            code = 1
            continue
        if not changed:
            continue  # kubectl sends no empty patch, and prints nothing
        patch: dict = dict(changed)
        for key in reversed(path):
            patch = {key: patch}
        try:
            ctx.client.patch(res.kind, cmd.namespace, name, patch, STRATEGIC_PATCH)
        except api.ApiError as exc:
            lines.append(f"error: failed to patch image update to pod template: {exc.message}\n")
            code = 1
            continue
        lines.append(f"{res.kubectl_prefix}/{name} image updated\n")
    return ConsoleResult("".join(lines), code)
