"""`kubectl drain NODE`: cordon it, pick its pods as kubectl's drain helper does (its filters:
DaemonSet-managed, mirror, local storage, no controller; --ignore-daemonsets, --force,
--delete-emptydir-data), evict each through pods/eviction (a budget's 429 is retried every 5 s,
as kubectl does), then wait until they are gone. The lines and errors are kubectl v1.32's
(pkg/drain and pkg/cmd/drain); evictions go one after the other, so their lines keep one order."""

from __future__ import annotations

import time

from cluster.apiserver import service as api
from dashboard.console.context import Context
from dashboard.console.parser import CommandLine, UsageError, whole_number
from dashboard.console.result import ConsoleResult
from dashboard.console.watching import (
    BUSY,
    POLL_SECONDS,
    Deadline,
    go_duration,
    may_wait,
    parse_duration,
    waiting_slot,
)
from dashboard.console.writes import cordon_node

RETRY_SECONDS = 5
DAEMONSET_FATAL = "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)"
DAEMONSET_WARNING = "ignoring DaemonSet-managed Pods"
LOCAL_STORAGE_FATAL = "cannot delete Pods with local storage (use --delete-emptydir-data to override)"
LOCAL_STORAGE_WARNING = "deleting Pods with local storage"
UNMANAGED_FATAL = "cannot delete Pods that declare no controller (use --force to override)"
UNMANAGED_WARNING = "deleting Pods that declare no controller"
MIRROR = "kubernetes.io/config.mirror"


class Failed(Exception):
    """Draining one node failed; the message is kubectl's error for it."""


def _controller(pod: dict) -> dict | None:
    return next((ref for ref in pod["metadata"].get("ownerReferences") or [] if ref.get("controller")), None)


def _finished(pod: dict) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


def _verdict(ctx: Context, cmd: CommandLine, pod: dict) -> tuple[bool, str, str]:
    """(delete it, "warning"|"error"|"", message): the helper's filters in its order, the first
    that keeps the pod deciding, else the last one's word."""
    force = bool(cmd.flags.get("force"))
    owner = _controller(pod)
    if owner is not None and owner.get("kind") == "DaemonSet" and not _finished(pod):
        try:
            ctx.client.get("DaemonSet", pod["metadata"].get("namespace"), owner["name"])
        except api.ApiError as exc:
            if exc.code == 404 and force:
                return True, "warning", exc.message
            return False, "error", exc.message
        if not cmd.flags.get("ignore_daemonsets"):
            return False, "error", DAEMONSET_FATAL
        return False, "warning", DAEMONSET_WARNING
    if MIRROR in (pod["metadata"].get("annotations") or {}):
        return False, "", ""
    local = any("emptyDir" in volume for volume in (pod.get("spec") or {}).get("volumes") or [])
    if local and not _finished(pod) and not cmd.flags.get("delete_emptydir_data"):
        return False, "error", LOCAL_STORAGE_FATAL
    if _finished(pod) or owner is not None:
        return True, "", ""
    if force:
        return True, "warning", UNMANAGED_WARNING
    return False, "error", UNMANAGED_FATAL


def _grouped(verdicts: list[tuple[dict, tuple[bool, str, str]]], word: str) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {}
    for pod, (_, kind, message) in verdicts:
        if kind == word:
            groups.setdefault(message or "unexpected error", []).append(
                f"{pod['metadata'].get('namespace')}/{pod['metadata']['name']}"
            )
    return groups


def _aggregate(messages: list[str]) -> str:
    return messages[0] if len(messages) == 1 else f"[{', '.join(messages)}]"


def _evictions(ctx: Context, pods: list[dict], grace: int, deadline: Deadline, out: list[str]) -> list[str]:
    """Evict every pod; one a budget refuses (429) is tried again 5 s later, as kubectl's
    per-pod loops do, until the deadline. The pods evicted are then waited for; the errors."""
    errors, evicted, queue = [], [], list(pods)
    while queue:
        retry = []
        for pod in queue:
            namespace, name = pod["metadata"].get("namespace"), pod["metadata"]["name"]
            where = f'pods/"{name}" -n "{namespace}"'
            out.append(f"evicting pod {namespace}/{name}\n")
            if deadline.passed():
                errors.append(
                    f"error when evicting {where}: global timeout reached: {go_duration(deadline.seconds)}"
                )
                continue
            body = {
                "apiVersion": "policy/v1",
                "kind": "Eviction",
                "metadata": {"name": name, "namespace": namespace},
            }
            if grace >= 0:
                body["deleteOptions"] = {"gracePeriodSeconds": grace}
            try:
                ctx.client.evict(namespace, name, body)
                evicted.append(pod)
            except api.ApiError as exc:
                if exc.code == 429:
                    out.append(f"error when evicting {where} (will retry after 5s): {exc.message}\n")
                    retry.append(pod)
                elif exc.code != 404:  # gone already: nothing to evict
                    errors.append(f"error when evicting {where}: {exc.message}")
        if retry:
            time.sleep(RETRY_SECONDS)
        queue = retry
    if evicted and may_wait(ctx.cluster):
        errors += _wait_gone(ctx, evicted, deadline, out)
    return errors


def _wait_gone(ctx: Context, pods: list[dict], deadline: Deadline, out: list[str]) -> list[str]:
    """Until each evicted pod is gone (or replaced by another of its name), as kubectl waits."""
    waiting = list(pods)
    while waiting:
        still = []
        for pod in waiting:
            meta = pod["metadata"]
            try:
                now = ctx.client.get("Pod", meta.get("namespace"), meta["name"])
            except api.ApiError:
                now = None
            if now is None or now["metadata"].get("uid") != meta.get("uid"):
                out.append(f"pod/{meta['name']} evicted\n")
            else:
                still.append(pod)
        waiting = still
        if waiting and deadline.passed():
            reached = f"global timeout reached: {go_duration(deadline.seconds)}"
            return [
                f'error when waiting for pod "{meta["name"]}" in namespace "{meta.get("namespace")}" '
                f"to terminate: {reached}"
                for meta in (pod["metadata"] for pod in waiting)
            ]
        if waiting:
            time.sleep(POLL_SECONDS)
    return []


def _deletable(ctx: Context, cmd: CommandLine, node: str) -> list[tuple[dict, tuple[bool, str, str]]]:
    pods = ctx.client.list(
        "Pod", None, field_selector=f"spec.nodeName={node}", label_selector=cmd.flag("pod_selector")
    )
    return [(pod, _verdict(ctx, cmd, pod)) for pod in pods]  # in the list's order, as kubectl takes them


def _drain_node(
    ctx: Context, cmd: CommandLine, node: str, grace: int, deadline: Deadline, out: list[str]
) -> None:
    verdicts = _deletable(ctx, cmd, node)
    errors = [
        f"cannot delete {message}: {', '.join(names)}"
        for message, names in _grouped(verdicts, "error").items()
    ]
    if errors:
        raise Failed(_aggregate(errors))
    warnings = _grouped(verdicts, "warning")
    if warnings:
        out.append(
            "Warning: "
            + "; ".join(f"{message}: {', '.join(names)}" for message, names in sorted(warnings.items()))
            + "\n"
        )
    errors = _evictions(ctx, [pod for pod, (delete, _, _) in verdicts if delete], grace, deadline, out)
    if errors:
        pending = [pod for pod, (delete, _, _) in _deletable(ctx, cmd, node) if delete]
        if pending:
            out.append(
                f'There are pending pods in node "{node}" when an error occurred: {_aggregate(errors)}\n'
            )
            out += [f"pod/{pod['metadata']['name']}\n" for pod in pending]
        raise Failed(_aggregate(errors))


def drain(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    """A drain waits (evictions a budget refuses, pods terminating): it takes one of the console's
    waiting slots for all of it, or changes nothing and says why."""
    with waiting_slot() as slot:
        if not slot:
            return ConsoleResult(f"error: {BUSY}: nothing was drained; run it again in a moment\n", 1)
        return _drain(ctx, cmd)


def _drain(ctx: Context, cmd: CommandLine) -> ConsoleResult:
    if not cmd.args:
        raise UsageError("error: USAGE: drain NODE [flags]\nSee 'kubectl drain -h' for help and examples")
    grace = whole_number(cmd.flag("grace_period") or "-1", "grace-period")
    deadline = Deadline(parse_duration(cmd.flag("timeout"), "timeout"))
    names = [arg.split("/", 1)[-1] for arg in cmd.args]
    for name in names:
        ctx.client.get("Node", "", name)  # every node first: kubectl refuses a missing one before acting
    out = [cordon_node(ctx, name, True) for name in names]
    remaining, fatal = [], []
    for name in names:
        try:
            _drain_node(ctx, cmd, name, grace, deadline, out)
            out.append(f"node/{name} drained\n")
        except Failed as problem:
            out.append(
                f'error: unable to drain node "{name}" due to error: {problem}, continuing command...\n'
            )
            remaining.append(name)
            fatal.append(str(problem))
    if not remaining:
        return ConsoleResult("".join(out))
    out.append("There are pending nodes to be drained:\n" + "".join(f" {name}\n" for name in remaining))
    out.append("\n".join(fatal) + "\n")
    if deadline.passed():
        out.append(deadline.note())
    return ConsoleResult("".join(out), 1)
