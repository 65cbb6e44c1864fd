"""Console commands that write, each through the console's client (authorized as the REST request
kubectl sends, then `cluster.apiserver` as the web client)."""

from __future__ import annotations

from cluster.apiserver import fieldvalidation
from cluster.apiserver import service as api
from dashboard.console.client import STRATEGIC_PATCH
from dashboard.console.context import Context
from dashboard.console.deletion_wait import wait_gone
from dashboard.console.parser import CommandLine, UsageError, resource_for, split_targets
from dashboard.console.result import ConsoleResult, server_error
from k8s.yamldocs import YamlError, load_documents

TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")


def _one_target(cmd: CommandLine, usage: str):
    targets = split_targets(cmd.args[:1] if cmd.args and "/" in cmd.args[0] else cmd.args[:2])
    if len(targets) != 1 or targets[0][1] is None:
        raise UsageError(f"error: {usage}")
    return targets[0]


def label(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    res, name = _one_target(cmd, "expected 'label RESOURCE NAME KEY_1=VAL_1 ... KEY_N=VAL_N'")
    changes = cmd.args[1:] if "/" in cmd.args[0] else cmd.args[2:]
    if not changes:
        raise UsageError("error: at least one label update is required")
    namespace = cmd.namespace if res.namespaced else ""
    current = ctx.client.get(res.kind, namespace, name)["metadata"].get("labels") or {}
    patch: dict[str, str | None] = {}
    notes = []
    for change in changes:
        if change.endswith("-") and "=" not in change:
            key = change[:-1]
            if key in current:
                patch[key] = None
            else:
                notes.append(f'label "{key}" not found.\n')
            continue
        if "=" not in change:
            raise UsageError(f"error: invalid label spec: {change}")
        key, value = change.split("=", 1)
        if key in current and current[key] != value and not cmd.flags.get("overwrite"):
            raise UsageError(f"error: '{key}' already has a value ({current[key]}), and --overwrite is false")
        if current.get(key) != value:
            patch[key] = value
    who = f"{res.kubectl_prefix}/{name}"
    if not patch:
        return ConsoleResult("".join(notes) + f"{who} not labeled\n")
    ctx.client.patch(res.kind, namespace, name, {"metadata": {"labels": patch}})
    removed_only = all(value is None for value in patch.values())
    return ConsoleResult("".join(notes) + f"{who} {'unlabeled' if removed_only else 'labeled'}\n")


def _cordon(ctx: Context, cmd: CommandLine, on: bool) -> ConsoleResult:
    verb = "cordon" if on else "uncordon"
    if not cmd.args:
        raise UsageError(f"error: USAGE: {verb} NODE [flags]\nSee 'kubectl {verb} -h' for help and examples")
    names = [arg.split("/", 1)[-1] for arg in cmd.args]
    for name in names:
        ctx.client.get("Node", "", name)  # every node first, as kubectl's resource builder
    # A refused patch is printed and the command goes on: kubectl still exits 0.
    return ConsoleResult("".join(cordon_node(ctx, name, on) for name in names))


def cordon_node(ctx: Context, name: str, on: bool) -> str:
    """kubectl's cordon helper (also drain's first step): the line it prints."""
    node = ctx.client.get("Node", "", name)
    word = "cordoned" if on else "uncordoned"
    if bool((node.get("spec") or {}).get("unschedulable")) == on:
        return f"node/{name} already {word}\n"
    try:
        ctx.client.patch("Node", "", name, {"spec": {"unschedulable": True if on else None}}, STRATEGIC_PATCH)
    except api.ApiError as exc:
        return f'error: unable to {"cordon" if on else "uncordon"} node "{name}": {exc.message}\n'
    return f"node/{name} {word}\n"


def cordon(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    return _cordon(ctx, cmd, True)


def uncordon(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    return _cordon(ctx, cmd, False)


def _parse_taint(spec: str) -> tuple[str, str | None, str | None, bool]:
    """`k=v:NoSchedule`, `k:NoSchedule-`, `k-` -> (key, value, effect, remove)."""
    remove = spec.endswith("-")
    body = spec[:-1] if remove else spec
    key_value, _, effect = body.partition(":")
    key, has_value, value = key_value.partition("=")
    if effect and effect not in TAINT_EFFECTS:
        raise UsageError(f"error: invalid taint effect: {effect}, unsupported taint effect")
    if not remove and not effect:
        raise UsageError(f"error: invalid taint spec: {spec}, unknown taint spec")
    return key, (value if has_value else None), (effect or None), remove


def taint(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    res, name = _one_target(cmd, "expected 'taint NODE NAME KEY_1=VAL_1:TAINT_EFFECT_1 ...'")
    if res.kind != "Node":
        raise UsageError(f"error: invalid resource type {res.plural}, only node types are supported")
    specs = cmd.args[1:] if "/" in cmd.args[0] else cmd.args[2:]
    if not specs:
        raise UsageError("error: at least one taint update is required")
    taints = list(ctx.client.get("Node", "", name).get("spec", {}).get("taints") or [])
    added = removed = False
    for spec in specs:
        key, value, effect, remove = _parse_taint(spec)
        same = [t for t in taints if t["key"] == key and (effect is None or t["effect"] == effect)]
        if remove:
            if not same:
                raise UsageError(f'error: taint "{spec[:-1]}" not found')
            taints = [t for t in taints if t not in same]
            removed = True
            continue
        if same and not cmd.flags.get("overwrite"):
            raise UsageError(
                f"error: node {name} already has {key} taint(s) with same effect(s) and --overwrite is false"
            )
        new = {"key": key, "effect": effect}
        if value:
            new["value"] = value
        taints = [t for t in taints if t not in same] + [new]
        added = True
    ctx.client.patch("Node", "", name, {"spec": {"taints": taints or None}})
    word = "modified" if added and removed else ("tainted" if added else "untainted")
    return ConsoleResult(f"node/{name} {word}\n")


def scale(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    """kubectl scale: every object is read first; the ones found are scaled in turn (a refusal
    stops there), and the ones not found are reported last, as kubectl's resource builder does."""
    replicas = cmd.flag("replicas")
    if not replicas:
        raise UsageError('error: required flag(s) "replicas" not set')
    if not replicas.isdigit():
        raise UsageError(f'error: invalid argument "{replicas}" for "--replicas" flag')
    targets = split_targets(cmd.args)
    if not targets or any(name is None for _, name in targets):
        raise UsageError("error: resource(s) were provided, but no name was specified")
    found, missing = [], []
    for res, name in targets:
        namespace = cmd.namespace if res.namespaced else ""
        try:
            found.append((res, namespace, name, ctx.client.get(res.kind, namespace, name)))
        except api.ApiError as exc:
            missing.append(exc)
    if not found:
        raise UsageError(f"error: no objects passed to scale {_aggregate(missing)}")
    current = cmd.flag("current_replicas")
    lines = []
    for res, namespace, name, obj in found:
        if current:
            was = int((obj.get("spec") or {}).get("replicas", 1))
            if str(was) != current:
                raise UsageError("".join(lines) + f"error: Expected replicas to be {current}, was {was}")
        try:
            ctx.client.scale(res.kind, namespace, name, int(replicas), "update" if current else "patch")
        except api.ApiError as exc:
            return ConsoleResult("".join(lines) + server_error(exc), 1)
        lines.append(f"{res.kubectl_prefix}/{name} scaled\n")
    if missing:
        return ConsoleResult("".join(lines) + "".join(server_error(exc) for exc in missing), 1)
    return ConsoleResult("".join(lines))


def _aggregate(errors: list[api.ApiError]) -> str:
    """Go's utilerrors.Aggregate: one error's text, or several in brackets."""
    texts = [exc.message for exc in errors]
    return texts[0] if len(texts) == 1 else f"[{', '.join(texts)}]"


def _source(cmd: CommandLine) -> str:
    """What kubectl calls the input in its messages: the file's name, or STDIN for `-f -`."""
    name = cmd.flag("filename")
    return "STDIN" if name in ("", "-") else name


def _documents(cmd: CommandLine, stdin: str) -> list:
    if not cmd.flag("filename"):
        raise UsageError("error: must specify one of -f and -k")
    if not stdin.strip():
        raise UsageError(f"error: no objects passed to {cmd.verb}")
    try:
        return load_documents(stdin, keep_duplicates=True)  # Strict judges repeated keys
    except YamlError as exc:
        raise UsageError(f"error: error parsing {_source(cmd)}: {exc}") from exc


def _doc_target(doc) -> tuple:
    data = doc.data if isinstance(doc.data, dict) else {}
    res = resource_for(str(data.get("kind", "")))
    meta = data.get("metadata") or {}
    namespace = meta.get("namespace", "default") if res.namespaced else ""
    return res, namespace, str(meta.get("name", "")), data


def delete(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    if cmd.flag("filename"):
        targets = [_doc_target(doc)[:3] for doc in _documents(cmd, ctx.stdin) if doc.data]
        source = f' when deleting "{_source(cmd)}"'
    else:
        pairs = split_targets(cmd.args)
        if not pairs or any(name is None for _, name in pairs):
            raise UsageError("error: resource(s) were provided, but no name was specified")
        targets = [(res, cmd.namespace if res.namespaced else "", name) for res, name in pairs]
        source = ""
    out, code, deleted = [], 0, []
    grace, force = _grace_period(cmd)
    if force:
        out.append(FORCE_WARNING)
    for res, namespace, name in targets:
        try:
            gone = ctx.client.delete(res.kind, namespace, name, grace_period=grace)
            deleted.append((res.kind, namespace, gone))
            out.append(f'{res.kubectl_prefix} "{name}" {"force deleted" if force else "deleted"}\n')
        except api.ApiError as exc:
            out.append(
                f"Error from server ({exc.reason}): error{source}: {exc.message}\n"
                if source
                else server_error(exc)
            )
            code = 1
    if cmd.flags.get("wait", True):
        wait_gone(ctx.cluster, deleted)  # as kubectl's --wait (its default) does
    return ConsoleResult("".join(out), code)


FORCE_WARNING = (
    "Warning: Immediate deletion does not wait for confirmation that the running resource has been "
    "terminated. The resource may continue to run on the cluster indefinitely.\n"
)


def _grace_period(cmd: CommandLine) -> tuple[int | None, bool]:
    """kubectl's --grace-period/--force/--now: (gracePeriodSeconds to send, a forced deletion)."""
    text = cmd.flag("grace_period")
    try:
        grace = int(text) if text else -1
    except ValueError:
        raise UsageError(
            f'error: invalid argument "{text}" for "--grace-period" flag: strconv.ParseInt: '
            f'parsing "{text}": invalid syntax'
        ) from None
    force = bool(cmd.flags.get("force"))
    if cmd.flags.get("now"):
        grace = 1
    if grace == 0 and not force:
        grace = 1  # kubectl: --grace-period=0 without --force means "as soon as possible", 1 s
    if force and grace < 0:
        grace = 0
    return (grace if grace >= 0 else None), force and grace == 0


def created_ref(res, namespace: str, name: str) -> dict:
    """An object just created, for the page to report what happens to it next (its follow-up)."""
    return {"kind": res.kind, "namespace": namespace, "name": name, "ref": f"{res.kubectl_prefix}/{name}"}


def create(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    if cmd.args:  # `create KIND NAME` of a kind kubectl has no generator for
        raise UsageError(
            f"error: Unexpected args: [{' '.join(cmd.args)}]\nSee 'kubectl create -h' for help and examples"
        )
    out, code, created = [], 0, []
    for doc in _documents(cmd, ctx.stdin):
        if not doc.data:
            continue
        res, namespace, name, data = _doc_target(doc)
        try:
            ctx.client.create(data, duplicates=fieldvalidation.yaml_duplicates(doc.duplicates))
            out.append(f"{res.kubectl_prefix}/{name} created\n")
            created.append(created_ref(res, namespace, name))
        except api.ApiError as exc:
            out.append(
                f'Error from server ({exc.reason}): error when creating "{_source(cmd)}": {exc.message}\n'
            )
            code = 1
    return ConsoleResult("".join(out), code, {"created": created} if created else {})


def apply(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    _documents(cmd, ctx.stdin)
    try:
        result = api.apply_manifests(ctx.cluster, ctx.stdin, ctx.client.actor, ctx.client.allow)
    except api.ApiError as exc:
        errors = (exc.details or {}).get("errors", [])
        forbidden = [e for e in errors if e.get("code") == 403]
        if forbidden:
            return ConsoleResult("".join(_refused(cmd, entry) for entry in forbidden), 1)
        strict = [e for e in errors if e.get("problem")]
        if strict:
            return ConsoleResult(_strict_refusals(ctx, cmd, strict), 1)
        raise
    lines, created = [], []
    for item in result.get("objects", []):
        res = resource_for(item["kind"])
        lines.append(f"{res.kubectl_prefix}/{item['name']} {item['action']}\n")
        if item["action"] == "created":
            created.append(created_ref(res, item.get("namespace") or "", item["name"]))
    return ConsoleResult("".join(lines), 0, {"created": created} if created else {})


def _strict_refusals(ctx: Context, cmd: CommandLine, entries: list[dict]) -> str:
    """kubectl apply's lines for objects the server's strict decoding refused, one per object: a
    new one's POST names its kind; an existing one's patch does not (kubectl also prints the patch
    it computed before this text, which the console, applying server-side, does not have)."""
    by_object: dict[tuple, list[dict]] = {}
    for entry in entries:
        by_object.setdefault((entry["index"], entry["kind"], entry["name"]), []).append(entry)
    lines = []
    for group in by_object.values():
        first = group[0]
        problems = [fieldvalidation.Problem(e["field"], **e["problem"]) for e in group]
        res = resource_for(first["kind"])
        namespace = first.get("namespace") or "default"
        try:
            ctx.client.get(res.kind, namespace if res.namespaced else "", first["name"])
        except api.ApiError:
            message = fieldvalidation.StrictDecodingError(first["kind"], first["version"], problems).message
            lines.append(f'Error from server (BadRequest): error when creating "{_source(cmd)}": {message}\n')
            continue
        message = "strict decoding error: " + fieldvalidation.describe(problems)
        source = _source(cmd)
        lines.append(f'Error from server (BadRequest): error when patching "{source}": {message}\n')
    return "".join(lines)


def _refused(cmd: CommandLine, entry: dict) -> str:
    """kubectl apply's line for a write the server refused: a create, or the patch of a change."""
    action = "creating" if " cannot create " in entry["message"] else "patching"
    return f'Error from server (Forbidden): error when {action} "{_source(cmd)}": {entry["message"]}\n'


HANDLERS = {
    "label": label,
    "cordon": cordon,
    "uncordon": uncordon,
    "taint": taint,
    "scale": scale,
    "delete": delete,
    "create": create,
    "apply": apply,
}
