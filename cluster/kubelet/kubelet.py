"""The kubelets: one per node, each taking over the pods bound to its node ("下半生").

One informer serves every kubelet of the process (each kubelet only acts on pods whose
spec.nodeName is its node, as its fieldSelector watch would deliver). For each new pod a worker
pulls the images ("Docker"), creates and starts the containers, and reports status back through
the API server; an image that does not exist gets ErrImagePull, then ImagePullBackOff, retried
with backoff.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from django.db import transaction

from cluster.apiserver import service as api
from cluster.apiserver.actor import Actor
from cluster.apiserver.errors import ApiError
from cluster.apiserver.store import clone
from cluster.broadcast import nudge
from cluster.client import event_recorder
from cluster.client.informer import Delta, Informer, db
from cluster.flow import deletions, gate, podcontainers
from cluster.flow.recorder import record_step
from cluster.flow.steps import KUBELET_PORT
from cluster.kubelet import adoption, configwait, power, pulls, runtime
from cluster.kubelet import images as catalog
from cluster.kubelet.adoption import PodAdoption
from cluster.kubelet.configwait import ConfigDuties
from cluster.kubelet.containerstatus import Record
from cluster.kubelet.flowsteps import KUBELET
from cluster.kubelet.lifecycle import ContainerLifecycle, ephemeral_containers, field_path
from cluster.kubelet.nodes import NodeDuties
from cluster.kubelet.podwrites import PodWrites, Together
from cluster.kubelet.probes import ProbeDuties
from cluster.kubelet.termination import FINAL_BATCH, PodTerminations
from cluster.models import Cluster, FlowTrace
from k8s import clock
from k8s.pods import changed_images


class KubeletManager(NodeDuties, PodTerminations, ConfigDuties, ProbeDuties, ContainerLifecycle, PodAdoption):
    component = "kubelet"

    def __init__(self, cluster_name: str) -> None:
        self.cluster_name = cluster_name
        self.informer = Informer(
            cluster_name, self.component, ("Node", "Pod"), "Pods with spec.nodeName = its node", KUBELET_PORT
        )
        self.cluster: Cluster | None = None
        self.workers: dict[tuple[str, str], asyncio.Task] = {}
        self.ips: dict[str, set[str]] = {}
        self.node_index: dict[str, int] = {}
        self.to_register: set[str] = set()
        # Image pull and crash-loop back-offs: when, and the coroutine to run then.
        self.retries: dict[tuple[str, str], tuple[float, Callable[[], Awaitable[None]]]] = {}
        self.handled: set[str] = set()  # uids of pods a worker took over (a worker per pod, once)
        self._init_terminations()
        self._init_probes()
        self._init_lifecycle()
        # Writes of the pod workers that reach them together, in one transaction.
        self.pod_writes = PodWrites()
        # The teacher's node failure (cluster/kubelet/power.py): the nodes whose kubelet is stopped,
        # as this manager last acted on it, and the pods whose changes wait for it to start again.
        self.down: set[str] = set()
        self.held: set[tuple[str, str]] = set()
        # The containers' starts of the pod workers that reach them together, in one trip.
        self.pod_starts = Together()

    def _sync(self) -> list[Delta]:
        if self.cluster is None:
            self.cluster = Cluster.objects.get(name=self.cluster_name)
        return self.informer.sync()

    async def step(self) -> bool:
        deltas = [] if self.informer.up_to_date() else await db(self._sync)()
        for delta in deltas:
            self._observe(delta)
        if self.stopping:
            await db(deletions.stopping)(self.record_stopping())
        started = await self._power_changes()
        for node in sorted(self.to_register):
            await db(self._register)(node)
        self.to_register.clear()
        self._start_due_retries()
        self.start_due_probes()
        self.workers = {key: task for key, task in self.workers.items() if not task.done()}
        stopped = self.due_terminations()
        for start in range(0, len(stopped), FINAL_BATCH):
            await db(self.remove_stopped)(stopped[start : start + FINAL_BATCH])
        followed = await self.follow_processes()
        return bool(deltas) or self.informer.behind or bool(stopped) or followed or started

    # -- the teacher's node failure ----------------------------------------------------------------
    async def _power_changes(self) -> bool:
        """A kubelet stopped lets go of its node's pod work (held until it starts again); one started
        again registers its node (Ready), renews its Lease and takes up the held pods."""
        now_down = set(power.stopped(self.cluster_name))
        if now_down == self.down:
            return False
        for node in sorted(now_down - self.down):
            self._let_go(node)
        back = sorted(self.down - now_down)
        self.down = now_down
        for node in back:
            await db(self._start_kubelet)(node)
            for key in sorted(k for k in self.held if self._pod_node(k) == node):
                self.held.discard(key)
                pod = self.informer.get("Pod", *key)
                if pod is not None:
                    self._observe(Delta("MODIFIED", "Pod", pod, pod, 0, None))
        return bool(back)

    def _pod_node(self, key: tuple[str, str]) -> str:
        return ((self.informer.get("Pod", *key) or {}).get("spec") or {}).get("nodeName") or ""

    def _let_go(self, node: str) -> None:
        """Pod work of the node in flight stops: a start not finished, a retry, a termination."""
        for key in [
            k for k in (*self.workers, *self.retries, *self.terminations) if self._pod_node(k) == node
        ]:
            task = self.workers.pop(key, None)
            if task is not None:
                task.cancel()
            self.retries.pop(key, None)
            self.terminations.pop(key, None)
            pod = self.informer.get("Pod", *key) or {}
            self.handled.discard(pod.get("metadata", {}).get("uid", ""))
            self.held.add(key)

    def _start_kubelet(self, node: str) -> None:
        ref = {"kind": "Node", "metadata": {"name": node, "uid": node}}  # the kubelet's nodeRef
        actor = self._actor(None, node)
        event_recorder.record(
            self.cluster, ref, "Starting", "Starting kubelet.", actor, component="kubelet", host=node
        )
        with transaction.atomic():
            self._register(node)
            self.renew_lease(node)
        message = f"Node {node} status is now: NodeReady"
        event_recorder.record(self.cluster, ref, "NodeReady", message, actor, component="kubelet", host=node)

    async def idle(self) -> None:
        """Wait for every running pod worker (used by run_until_idle)."""
        running = [task for task in self.workers.values() if not task.done()]
        if running:
            await asyncio.gather(*running, return_exceptions=True)

    def _observe(self, delta: Delta) -> None:
        if delta.kind == "Node":
            name = delta.key[1]
            if delta.type == "DELETED":
                return
            self.node_index.setdefault(name, len(self.node_index))
            if not (delta.obj.get("status") or {}).get("nodeInfo"):
                self.to_register.add(name)
            return
        key, pod = delta.key, delta.obj
        node = (pod.get("spec") or {}).get("nodeName")
        self.observe_probes(key, None if delta.type == "DELETED" or not node else pod)
        if delta.type == "DELETED":
            task = self.workers.pop(key, None)
            if task is not None:
                task.cancel()
            self.handled.discard(pod["metadata"].get("uid", ""))
            self.detach_pod(key, pod["metadata"].get("uid", ""))
            self.retries.pop(key, None)
            self._forget_termination(key)
            self._free_ip(node, pod)
            return
        if not node:
            return
        if node in self.down or power.is_stopped(self.cluster_name, node):
            self.held.add(key)  # nobody on the node acts on it until its kubelet starts again
            return
        if pod["metadata"].get("deletionTimestamp"):
            self._terminate(key, pod, delta.trace_id)  # graceful deletion: stop, then remove the pod
            return
        ip = (pod.get("status") or {}).get("podIP")
        if ip:
            self.ips.setdefault(node, set()).add(ip)
        uid = pod["metadata"].get("uid", "")
        if uid not in self.handled and _needs_start(pod):
            self.handled.add(uid)
            self.workers[key] = asyncio.create_task(self._at_work(lambda: self._run_pod(key, delta.trace_id)))
        elif uid not in self.handled and self._lost(key, pod):
            self.handled.add(uid)
            self.workers[key] = asyncio.create_task(self._at_work(lambda: self._adopt(key)))
        elif uid in self.handled and changed_images(pod) and not self._busy(key):
            self.workers[key] = asyncio.create_task(self._at_work(lambda: self._upgrade(key, delta.trace_id)))
        elif uid in self.handled and self._new_ephemeral(key, pod) and not self._busy(key):
            self.workers[key] = asyncio.create_task(self._at_work(lambda: self._add_ephemeral(key)))

    def _lost(self, key: tuple[str, str], pod: dict) -> bool:
        """Running, but not started here: its processes went with the server that ran them."""
        return key not in self.pod_runs and adoption.needs_adoption(self.cluster_name, pod)

    async def _at_work(self, work: Callable[[], Awaitable[None]]) -> None:
        """A pod worker counts as the control plane at work (the hub waits for it, see hub.py).
        The work's coroutine is made here, so a worker cancelled before it ran leaves none unawaited."""
        with nudge.working(self.cluster_name):
            await work()

    def _busy(self, key: tuple[str, str]) -> bool:
        task = self.workers.get(key)
        return (task is not None and not task.done()) or key in self.retries

    # -- node ----------------------------------------------------------------------------------
    def _actor(self, trace_id: str | None, node: str) -> Actor:
        return Actor(
            "kubelet",
            f"kubelet/{runtime.KUBELET_VERSION} ({node})",
            FlowTrace(pk=trace_id) if trace_id else None,
            node,
            flow=KUBELET,
        )

    # -- a pod's start ---------------------------------------------------------------------------
    async def _run_pod(self, key: tuple[str, str], trace_id: str | None, attempt: int = 0) -> None:
        pod = self.informer.get("Pod", *key)
        if pod is None:
            return
        node = pod["spec"]["nodeName"]
        host_ip = self._host_ip(node)
        step_12 = None
        if attempt == 0:
            await gate.before_step(self.cluster_name, trace_id, 12)
            if trace_id:
                en, zh = _starting_text(pod, node)
                step_12 = {"detail_en": en, "detail_zh": zh, "obj": ("Pod", *key), "node": node}
            # The status manager writes the newest status it has: at pace 0, with every image
            # already on the node, the containers run before a ContainerCreating could be sent,
            # and step 12 is written with the status of step 13 (nobody could see them apart).
            if not (await gate.is_open(self.cluster_name, trace_id) and self._all_present(pod, node)):
                await self.pod_writes.write(self._write_creating, pod, host_ip, node, trace_id, step_12)
                step_12 = None
        pulled = await self._pull_all(pod, node, host_ip, trace_id)
        if isinstance(pulled, pulls.PullFailure):
            # ErrImagePull or InvalidImageName ended the trace (step 13); try again later.
            self._after_failed_pull(key, pulled, attempt)
            return
        pod_ip = (pod.get("status") or {}).get("podIP") or self._pod_ip(pod, node, host_ip)
        problem = await self.config_problem(pod)
        if problem is not None:
            # A ConfigMap, Secret or key is missing: wait, and try again after the back-off.
            await gate.before_step(self.cluster_name, trace_id, 13)
            await db(self._config_failed)(pod, node, host_ip, pod_ip, problem, trace_id)
            due = clock.monotonic() + configwait.CONFIG_RETRY_SECONDS
            self.retries[key] = (due, lambda: self._run_pod(key, None, attempt + 1))
            return
        run = self.new_pod_run(key, pod, node, host_ip, pod_ip, pulled)
        await self.pod_starts.call(self.start_ready, pod, run, [])
        await gate.before_step(self.cluster_name, trace_id, 13)
        status = self.started_status(pod, run)
        await self.pod_writes.write(self._write_status, pod, status, trace_id, node, step_12)

    async def _upgrade(self, key: tuple[str, str], trace_id: str | None) -> None:
        """The notes' closing remark: a new image, so the kubelet pulls it and restarts the container."""
        pod = self.informer.get("Pod", *key)
        if pod is None:
            return
        node = pod["spec"]["nodeName"]
        changed = changed_images(pod)
        await gate.before_step(self.cluster_name, trace_id, 12)
        if trace_id:
            en, zh = _starting_text(pod, node)
            await db(record_step)(trace_id, 12, detail_en=en, detail_zh=zh, obj=("Pod", *key), node=node)
        self._kill_changed(pod, node, changed)
        host_ip = self._host_ip(node)
        pulled = await self._pull_all(pod, node, host_ip, trace_id)
        if isinstance(pulled, pulls.PullFailure):
            return
        await gate.before_step(self.cluster_name, trace_id, 13)
        pod_ip = (pod.get("status") or {}).get("podIP") or self._pod_ip(pod, node, host_ip)
        run = self.pod_runs.get(key)
        if run is None or run.uid != pod["metadata"].get("uid"):
            self._start_containers(pod, node, changed)  # a pod this kubelet did not start
            status = runtime.restarted_status(pod, host_ip, pod_ip, pulled, changed)
        else:
            await db(self.restart_changed)(pod, run, changed, pulled)
            status = self.started_status(pod, run)
        await self.pod_writes.write(self._write_status, pod, status, trace_id, node)

    def _pod_ip(self, pod: dict, node: str, host_ip: str) -> str:
        """hostNetwork: the node's own address; otherwise one of the node's pod CIDR."""
        return host_ip if (pod.get("spec") or {}).get("hostNetwork") else self._allocate_ip(node)

    def _new_ephemeral(self, key: tuple[str, str], pod: dict) -> list[dict]:
        """Ephemeral containers added to a pod this kubelet runs (`kubectl debug`), not started yet."""
        run = self.pod_runs.get(key)
        if run is None or run.finished or run.uid != pod["metadata"].get("uid"):
            return []
        return [c for c in ephemeral_containers(pod) if run.record(c.get("name", "")) is None]

    async def _add_ephemeral(self, key: tuple[str, str]) -> None:
        """Pull the new ephemeral containers' images and start them beside the running ones;
        their states go to ephemeralContainerStatuses."""
        pod = self.informer.get("Pod", *key)
        added = self._new_ephemeral(key, pod) if pod is not None else []
        run = self.pod_runs.get(key)
        if not added or run is None:
            return
        pullable = [c for c in added if catalog.invalid_name(c.get("image", "")) is None and catalog.lookup(
            c.get("image", ""))]  # fmt: skip
        only_pullable = {**pod, "spec": {**pod["spec"], "initContainers": [], "containers": pullable}}
        pulled = await self._pull_all(only_pullable, run.node, run.host_ip, None)
        pulled = pulled if isinstance(pulled, dict) else {}
        failed = []
        for container in added:
            image = pulled.get(container["name"])
            record = Record(container["name"], container.get("image", ""), image.image_id if image else "")
            record.ephemeral, record.state = True, {"waiting": {"reason": "ContainerCreating"}}
            if image is None:  # not in the catalogue: it waits for good, as the Events say
                error = catalog.pull_error(container.get("image", ""))
                self._event(pod, run.node, "Failed", pulls.failed_to_pull(container.get("image", ""), error),
                            container, "Warning")  # fmt: skip
                record.state = {"waiting": {"reason": "ErrImagePull", "message": error}}
                failed.append(record)
            else:
                run.records.append(record)
        await self.pod_starts.call(self.start_ready, pod, run, [])
        run.records.extend(failed)  # after the starts: they never start
        await self.pod_writes.write(self._write_status, pod, self.started_status(pod, run), None, run.node)

    def _kill_changed(self, pod: dict, node: str, changed: set[str]) -> None:
        for container in pod["spec"].get("containers") or []:
            if container["name"] in changed:
                message = f"Container {container['name']} definition changed, will be restarted"
                self._event(pod, node, "Killing", message, container)

    def _start_due_retries(self) -> None:
        now = clock.monotonic()
        for key, (due, retry) in list(self.retries.items()):
            if due <= now:
                del self.retries[key]
                self.workers[key] = asyncio.create_task(self._at_work(retry))

    def next_wakeup(self) -> float | None:
        """Seconds until the next image pull retry, container restart or pod removal is due."""
        waits = [self.termination_wakeup(), self.probe_wakeup(), self.lifecycle_wakeup()]
        if self.retries:
            waits.append(max(0.0, min(due for due, _ in self.retries.values()) - clock.monotonic()))
        waits = [wait for wait in waits if wait is not None]
        return min(waits) if waits else None

    def _after_failed_pull(self, key: tuple[str, str], failure: pulls.PullFailure, failures: int) -> None:
        """The image back-off: the pod worker's sync inside the window reports ImagePullBackOff,
        and the pull is tried again once the window ends (an unparsable name: at every sync)."""
        window = pulls.backoff_window(failures)

        def start_again():
            return self._run_pod(key, None, failures + 1)

        if not failure.backs_off:
            self.retries[key] = (clock.monotonic() + window, start_again)
            return

        async def sync_in_backoff() -> None:
            pod = self.informer.get("Pod", *key)
            if pod is None:
                return
            every = [*(pod["spec"].get("initContainers") or []), *(pod["spec"].get("containers") or [])]
            wanted = {c["name"]: c.get("image") for c in every}
            if wanted.get(failure.container) != failure.image:
                await start_again()  # a new image is a new back-off key: pulled at once
                return
            await self.pod_writes.write(self._pull_backing_off, pod, failure)
            self.retries[key] = (clock.monotonic() + window - pulls.backoff_sync_delay(failures), start_again)

        self.retries[key] = (clock.monotonic() + pulls.backoff_sync_delay(failures), sync_in_backoff)

    async def _pull_all(
        self, pod: dict, node: str, host_ip: str, trace_id: str | None
    ) -> dict | pulls.PullFailure:
        """Pull every container's image; the images by container name, or why one could not be had."""
        found = {}
        settings = await gate.flow_settings(self.cluster_name)
        for container in [*(pod["spec"].get("initContainers") or []), *(pod["spec"].get("containers") or [])]:
            invalid = catalog.invalid_name(container.get("image", ""))
            if invalid is not None:
                return await db(self._invalid_name)(pod, node, host_ip, container, invalid, trace_id)
            image = catalog.lookup(container.get("image", ""))
            present = image is not None and self._has_image(node, image)
            if present and container.get("imagePullPolicy") != "Always":
                self._event(
                    pod,
                    node,
                    "Pulled",
                    f'Container image "{container["image"]}" already present on machine',
                    container,
                )
                found[container["name"]] = image
                continue
            self._event(pod, node, "Pulling", f'Pulling image "{container["image"]}"', container)
            if image is None:
                return await db(self._pull_failed)(pod, node, host_ip, container, trace_id)
            seconds = runtime.pull_seconds(image)
            if settings.pace_ms:
                with nudge.waiting(self.cluster_name):
                    await asyncio.sleep(min(seconds, 2 * settings.pace_ms / 1000))
            took = runtime.go_duration(seconds)
            message = (
                f'Successfully pulled image "{container["image"]}" in {took} ({took} including waiting). '
                f"Image size: {image.size_bytes} bytes."
            )
            await self.pod_writes.write(self._pulled, pod, node, container, image, message)
            found[container["name"]] = image
        return found

    def _all_present(self, pod: dict, node: str) -> bool:
        """Every container's image is on the node and none must be pulled anyway (Always)."""
        for container in [*(pod["spec"].get("initContainers") or []), *(pod["spec"].get("containers") or [])]:
            image = catalog.lookup(container.get("image", ""))
            if (
                image is None
                or container.get("imagePullPolicy") == "Always"
                or not self._has_image(node, image)
            ):
                return False
        return True

    def _has_image(self, node: str, image: catalog.Image) -> bool:
        for entry in ((self._node(node) or {}).get("status") or {}).get("images") or []:
            if image.reference in (entry.get("names") or []):
                return True
        return False

    # -- database thread ---------------------------------------------------------------------
    def _event(
        self,
        pod: dict,
        node: str,
        reason: str,
        message: str,
        container: dict,
        type_: str = "Normal",
        field_path: str | None = None,
    ) -> None:
        event_recorder.record(
            self.cluster,
            pod,
            reason,
            message,
            self._actor(None, node),
            type_=type_,
            component="kubelet",
            host=node,
            field_path=_field_path(pod, container) if field_path is None else field_path,
        )

    def _pulled(self, pod: dict, node: str, container: dict, image: catalog.Image, message: str) -> None:
        node_obj = self._node(node)
        if node_obj is not None and not self._has_image(node, image):
            body = clone(node_obj)
            body["status"]["images"] = [catalog.node_image_entry(image), *body["status"].get("images", [])]
            body["metadata"].pop("resourceVersion", None)
            try:
                with transaction.atomic():  # its own savepoint in the workers' batch
                    stored = api.update(self.cluster, body, self._actor(None, node), subresource="status")
                self.informer.store["Node"][("", node)] = stored
            except ApiError:
                pass
        self._event(pod, node, "Pulled", message, container)

    def _pull_failed(
        self, pod: dict, node: str, host_ip: str, container: dict, trace_id: str | None
    ) -> pulls.PullFailure:
        image = container.get("image", "")
        error = catalog.pull_error(image)
        self._event(pod, node, "Failed", pulls.failed_to_pull(image, error), container, "Warning")
        self._event(pod, node, "Failed", pulls.container_error("ErrImagePull"), container, "Warning")
        self._write_status(pod, runtime.waiting_status(pod, host_ip, "ErrImagePull", error), trace_id, node)
        return pulls.PullFailure(container["name"], image, "ErrImagePull", error)

    def _invalid_name(
        self, pod: dict, node: str, host_ip: str, container: dict, message: str, trace_id: str | None
    ) -> pulls.PullFailure:
        self._event(pod, node, "InspectFailed", message, container, "Warning")
        self._event(pod, node, "Failed", pulls.container_error("InvalidImageName"), container, "Warning")
        status = runtime.waiting_status(pod, host_ip, "InvalidImageName", message)
        self._write_status(pod, status, trace_id, node)
        return pulls.PullFailure(container["name"], container.get("image", ""), "InvalidImageName", message)

    def _pull_backing_off(self, pod: dict, failure: pulls.PullFailure) -> None:
        """The sync inside the image back-off: BackOff, and the ImagePullBackOff state."""
        node = pod["spec"]["nodeName"]
        container = {"name": failure.container}
        self._event(pod, node, "BackOff", pulls.backing_off(failure.image), container)
        self._event(pod, node, "Failed", pulls.container_error("ImagePullBackOff"), container, "Warning")
        message = pulls.backoff_state_message(failure.image, failure.message)
        status = runtime.waiting_status(pod, self._host_ip(node), "ImagePullBackOff", message)
        self._write_status(pod, status, None, node)

    def _start_containers(self, pod: dict, node: str, only: set[str] | None = None) -> None:
        for container in pod["spec"].get("containers") or []:
            if only is not None and container["name"] not in only:
                continue
            self._event(pod, node, "Created", f"Created container: {container['name']}", container)
            self._event(pod, node, "Started", f"Started container {container['name']}", container)

    def _write_creating(
        self, pod: dict, host_ip: str, node: str, trace_id: str | None, step_12: dict | None
    ) -> None:
        """Step 12 (when the trace records one), then ContainerCreating: the status manager's
        first report, before the images are pulled (it ends no step, so no trace)."""
        if step_12 is not None and trace_id:
            record_step(trace_id, 12, **step_12)
        self._write_status(pod, runtime.waiting_status(pod, host_ip, "ContainerCreating"), None, node)

    def _write_status(
        self, pod: dict, status: dict, trace_id: str | None, node: str, step_12: dict | None = None
    ) -> None:
        """PUT …/status from the kubelet's copy: the status subresource replaces only the status.
        `step_12`: the step recorded first, in the same transaction (the gate was open)."""
        body = clone(pod)
        body["metadata"].pop("resourceVersion", None)
        try:
            with transaction.atomic():
                if step_12 is not None and trace_id:
                    record_step(trace_id, 12, **step_12)
                # The newest copy the watch delivered (no extra read): what others wrote stays.
                meta = pod["metadata"]
                live = self.informer.get("Pod", meta.get("namespace", ""), meta["name"]) or pod
                status = self.shape_probed(live, status)  # ready and started as the probes say
                body["status"] = runtime.keep_foreign_status(live.get("status") or {}, status)
                api.update(self.cluster, body, self._actor(trace_id, node), subresource="status")
        except ApiError:
            return  # deleted meanwhile

    # -- node leases (kube-node-lease), renewed every 10 s ------------------------------------------


def _field_path(pod: dict, container: dict) -> str:
    return field_path(pod, container["name"]) if container.get("name") else ""


def _needs_start(pod: dict) -> bool:
    """A pod the kubelet has not started yet (or was retrying an image pull when we restarted)."""
    status = pod.get("status") or {}
    if status.get("phase") not in (None, "", "Pending"):
        return False
    for container in status.get("containerStatuses") or []:
        if (container.get("state") or {}).get("running"):
            return False
    return True


def _starting_text(pod: dict, node: str) -> tuple[str, str]:
    images = ", ".join(c.get("image", "") for c in pod["spec"].get("containers") or [])
    name = f"{pod['metadata'].get('namespace', 'default')}/{pod['metadata']['name']}"
    init_en, init_zh = podcontainers.init_plan(pod)
    return (
        f"The kubelet on {node} watches the APIServer (over {KUBELET_PORT}) and sees Pod {name} bound to its "
        f"node; it calls Docker to pull {images} and start the containers, then reports the status back."
        + init_en,
        f"{node} 上的 kubelet 通过 List-Watch（https 6443 端口）监听到 Pod {name} 已绑定到本节点；"
        f"它调用 Docker 拉取镜像 {images} 并启动容器，然后把 Pod 和容器的状态回送至 APIServer。" + init_zh,
    )
