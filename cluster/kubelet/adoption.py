"""A kubelet that finds running pods it did not start: their containers start again, as after a
node's reboot.

A container's process lives in the server process that runs its cluster's control plane. When
that process is gone (the server restarted, another process leads the cluster now), the pods the
API server shows Running have no process behind them. A real kubelet after a reboot finds the
same: the runtime reports the old containers exited (exit code 255, reason `Unknown`), so it makes
a new sandbox (Normal `SandboxChanged`, "Pod sandbox changed, it will be killed and re-created.")
and starts the containers again, init containers first, each as its next attempt (restartCount
one more, the lost run as `lastState`, its log read by `--previous`). With `restartPolicy: Never`
nothing starts again: the lost containers stay terminated and the pod fails; with `OnFailure` the
containers that had completed stay so.

A control plane that this same server process parked (an idle cluster, woken again) is no reboot
either: its container processes stay in this process meanwhile (`keep`), as they were (a shell
reading its terminal, a server, a `sleep infinity`), and the kubelet that starts again takes them
back (`take_kept`) with the pods' runs, so `kubectl attach` finds them. A parked cluster that is
deleted, or whose leadership moves to another process, has them killed (`drop_kept`); one this
process stopped for good is not a reboot here either: its pods are taken back as they are.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from cluster.apiserver.defaults import now_rfc3339
from cluster.kubelet import attach, pulls
from cluster.kubelet.containerstatus import Record

SANDBOX_CHANGED = "Pod sandbox changed, it will be killed and re-created."
# What containerd reports for a container that was running when its node went down.
LOST = {"exitCode": 255, "reason": "Unknown"}

_lock = threading.Lock()
_stopped_here: dict[str, set[str]] = {}  # cluster -> ids of containers this process stopped


def remember_stopped(cluster_name: str, container_ids: list[str]) -> None:
    """This process stops these containers' processes with its control plane (parked, stopped)."""
    with _lock:
        _stopped_here.setdefault(cluster_name, set()).update(container_ids)


@dataclass(slots=True)
class Kept:
    """A parked cluster's kubelet state that outlives its control plane: the process table (its
    processes, their logs and attach points) and the pods' runs that name them."""

    processes: object  # processes.ProcessTable
    pod_runs: dict
    handled: set[str]


_kept: dict[str, Kept] = {}


def keep(cluster_name: str, kept: Kept) -> None:
    with _lock:
        _kept[cluster_name] = kept


def take_kept(cluster_name: str) -> Kept | None:
    """The kept state of a cluster woken in this process (once), or None."""
    with _lock:
        return _kept.pop(cluster_name, None)


def drop_kept(cluster_name: str) -> None:
    """Database thread: a parked cluster's kept processes end (deleted, or led elsewhere now)."""
    kept = take_kept(cluster_name)
    if kept is not None:
        remember_stopped(cluster_name, list(kept.processes.runs))
        kept.processes.kill_all()


def discard_kept(cluster_name: str) -> None:
    """Forget a cluster's kept processes without running them again (any thread: a driven
    cluster dropped between tests); their attach points go."""
    kept = take_kept(cluster_name)
    for run in kept.processes.runs.values() if kept is not None else ():
        if run.streams is not None:
            attach.unregister(run.streams)


def _stopped_by_us(cluster_name: str, container_ids: list[str]) -> bool:
    with _lock:
        return bool(_stopped_here.get(cluster_name, set()).intersection(container_ids))


def _statuses(pod: dict) -> list[dict]:
    status = pod.get("status") or {}
    return [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]


def needs_adoption(cluster_name: str, pod: dict) -> bool:
    """A Running pod with containers a kubelet started, none of them stopped by this process."""
    if (pod.get("status") or {}).get("phase") != "Running" or pod["metadata"].get("deletionTimestamp"):
        return False
    ids = [s["containerID"] for s in _statuses(pod) if s.get("containerID")]
    return bool(ids) and not _stopped_by_us(cluster_name, ids)


def carry_over(pod: dict, records: list[Record]) -> list[str]:
    """Give each record what the runtime reports of its container's last run; the container ids of
    runs older than those (their logs go, as the kubelet keeps one dead container each)."""
    policy = (pod.get("spec") or {}).get("restartPolicy", "Always")
    before = {s.get("name"): s for s in _statuses(pod)}
    older = []
    for record in records:
        old = before.get(record.name)
        if not old or not old.get("containerID"):
            continue  # never created: it starts as a fresh container
        state = old.get("state") or {}
        last = (old.get("lastState") or {}).get("terminated")
        if "running" in state:
            ended = {
                **LOST,
                "startedAt": state["running"].get("startedAt") or now_rfc3339(),
                "finishedAt": now_rfc3339(),
                "containerID": old["containerID"],
            }
        else:
            ended = state.get("terminated") or last
        if ended is None:
            continue
        if last and last.get("containerID") not in (None, ended.get("containerID")):
            older.append(last["containerID"])
        record.restart_count = old.get("restartCount", 0)
        record.container_id = ended.get("containerID", "")
        record.image_id = record.image_id or old.get("imageID", "")
        done = policy == "Never" or (policy == "OnFailure" and not record.init and ended.get("exitCode") == 0)
        if done:  # not started again: it stays as it ended
            record.state, record.last_state = {"terminated": ended}, old.get("lastState") or {}
        else:
            record.last_state, record.carried = {"terminated": ended}, True
    return older


class PodAdoption:
    """Mixed into KubeletManager: the start of a pod found running without its processes."""

    async def _adopt(self, key: tuple[str, str]) -> None:
        pod = self.informer.get("Pod", *key)
        if pod is None:
            return
        node = pod["spec"]["nodeName"]
        host_ip = self._host_ip(node)
        status = pod.get("status") or {}
        # The new sandbox keeps the pod's address: the simulated CNI hands out the same one.
        pod_ip = status.get("podIP") or self._pod_ip(pod, node, host_ip)
        never = (pod.get("spec") or {}).get("restartPolicy") == "Never"
        if not never:
            self._event(pod, node, "SandboxChanged", SANDBOX_CHANGED, {}, field_path="")
            pulled = await self._pull_all(pod, node, host_ip, None)
            if isinstance(pulled, pulls.PullFailure):
                self._after_failed_pull(key, pulled, 0)
                return
        else:
            pulled = {}
        run = self.new_pod_run(key, pod, node, host_ip, pod_ip, pulled)
        self.old_runs.extend(carry_over(pod, run.records))
        if never:
            run.finished = True
        else:
            await self.pod_starts.call(self.start_ready, pod, run, [])
        await self.pod_writes.write(self._write_status, pod, self.started_status(pod, run), None, node)
