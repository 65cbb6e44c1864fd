"""The kubelet's part of a graceful deletion: stop the containers, then remove the pod.

When a pod on its node gets a deletionTimestamp, the kubelet sends SIGTERM to every running
container ("Killing: Stopping container web"), waits until each has exited (its image's stop time
from the catalog: nginx is quick, a shell or `sleep` as PID 1 ignores SIGTERM and is killed when
the grace period runs out), then deletes the pod through the API server with grace period 0 and
its uid as the precondition, as the real kubelet's status manager does. A shorter grace period
set by a later deletion (`kubectl delete --grace-period=1`) brings the end forward.

Time is the injected clock's (`k8s/clock.py`), so tests move it instead of waiting.
"""

from __future__ import annotations

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.kubelet import images as catalog
from cluster.shell import overlay
from k8s import clock

# Final deletes written per hop to the database thread (a 1,000-pod RC ends in a few dozen hops).
FINAL_BATCH = 50
# Deletion stories' step 12 waiting for the next hop (a drain of a big node: the rest unrecorded).
MAX_STOPPING = 5000


def _running(pod: dict) -> set[str]:
    statuses = (pod.get("status") or {}).get("containerStatuses") or []
    return {s.get("name") for s in statuses if (s.get("state") or {}).get("running") is not None}


def stop_seconds(pod: dict) -> float:
    """How long the pod's running containers take to stop, at most its grace period."""
    meta = pod.get("metadata") or {}
    grace = meta.get("deletionGracePeriodSeconds")
    grace = float(grace) if isinstance(grace, int) and grace > 0 else 0.0
    running = _running(pod)
    longest = 0.0
    for container in (pod.get("spec") or {}).get("containers") or []:
        if container.get("name") not in running:
            continue
        image = catalog.lookup(container.get("image", ""))
        stop = image.stop_seconds if image is not None else 1.0
        longest = max(longest, grace if stop is None else stop)
    return min(longest, grace)


class PodTerminations:
    """Mixed into KubeletManager: needs `cluster`, `workers`, `retries`, `_event` and `_actor`."""

    def _init_terminations(self) -> None:
        # pod key -> (when it is removed (clock.monotonic), uid, when the kubelet saw the deletion)
        self.terminations: dict[tuple[str, str], tuple[float, str, float]] = {}
        # Step 12 of the deletion stories whose pods this kubelet begins to stop (recorded by
        # `record_stopping` in the database thread): (trace, namespace, name, node, containers,
        # seconds to stop, grace period).
        self.stopping: list[tuple[str, str, str, str, list[str], float, int]] = []

    def _terminate(self, key: tuple[str, str], pod: dict, trace_id: str | None = None) -> None:
        """A pod of this node got (or shortened) its deletionTimestamp: stop it, then remove it."""
        uid = pod["metadata"].get("uid", "")
        known = self.terminations.get(key)
        now = clock.monotonic()
        if known is not None and known[1] == uid:
            due, _, seen = known
            grace = pod["metadata"].get("deletionGracePeriodSeconds")
            if isinstance(grace, int) and seen + max(grace, 0) < due:
                self.terminations[key] = (seen + max(grace, 0), uid, seen)
            return
        task = self.workers.pop(key, None)
        if task is not None:
            task.cancel()  # a start still under way: it never completes
        self.retries.pop(key, None)
        node = pod["spec"]["nodeName"]
        running = _running(pod)
        stopped = []
        for container in pod["spec"].get("containers") or []:
            if container.get("name") in running:
                stopped.append(container["name"])
                self._event(pod, node, "Killing", f"Stopping container {container['name']}", container)
        stop = stop_seconds(pod)
        self.terminations[key] = (now + stop, uid, now)
        if trace_id and len(self.stopping) < MAX_STOPPING:
            grace = pod["metadata"].get("deletionGracePeriodSeconds")
            grace = grace if isinstance(grace, int) else 0
            self.stopping.append((trace_id, *key, node, stopped, stop, grace))

    def record_stopping(self) -> list:
        """What `deletions.stopping` records next (and forget it here)."""
        items, self.stopping = self.stopping, []
        return items

    def _forget_termination(self, key: tuple[str, str]) -> None:
        self.terminations.pop(key, None)

    def due_terminations(self) -> list[tuple[tuple[str, str], str]]:
        now = clock.monotonic()
        return [(key, uid) for key, (due, uid, _) in self.terminations.items() if due <= now]

    def termination_wakeup(self) -> float | None:
        if not self.terminations:
            return None
        return max(0.0, min(due for due, _, _ in self.terminations.values()) - clock.monotonic())

    def remove_stopped(self, done: list[tuple[tuple[str, str], str]]) -> None:
        """Database thread: DELETE each stopped pod with grace 0 and its uid as precondition."""
        for (namespace, name), uid in done:
            self.terminations.pop((namespace, name), None)
            pod = self.informer.get("Pod", namespace, name) or {}
            node = (pod.get("spec") or {}).get("nodeName", "")
            try:
                api.delete(
                    self.cluster, "Pod", namespace, name, self._actor(None, node), grace_period=0, uid=uid
                )
            except ApiError:
                continue  # gone already, or a new pod by that name
            overlay.forget(self.cluster, overlay.container_ids(pod))  # what its containers wrote
