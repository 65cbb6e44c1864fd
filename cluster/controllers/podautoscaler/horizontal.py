"""The HPA controller (horizontal.go's reconcileAutoscaler), run by the controller manager on its
informer: every HorizontalPodAutoscaler is synced 15 s after it appears or changes and every 15 s
after that (--horizontal-pod-autoscaler-sync-period), on the cluster's clock. It reads the
target's scale, computes the replicas each metric wants from the metrics API's figures
(replica_calculator.py over metrics.py), normalizes them (normalize.py), scales the target
through its scale subresource, and writes the status, conditions and Events in upstream's words.
"""

from __future__ import annotations

import copy
from datetime import datetime

from cluster.apiserver import service as api
from cluster.apiserver.errors import ApiError
from cluster.apiserver.kinds import KINDS
from cluster.apiserver.selectors import labels_match, parse_label_selector
from cluster.client import event_recorder
from cluster.controllers.podautoscaler import normalize
from cluster.controllers.podautoscaler.metrics import (
    NO_CUSTOM_METRICS,
    NO_EXTERNAL_METRICS,
    MetricsError,
    resource_metric,
)
from cluster.controllers.podautoscaler.replica_calculator import (
    CalculationError,
    plain_metric_replicas,
    resource_replicas,
)
from cluster.usage.model import Sample, sample
from k8s import clock
from k8s.quantity import milli_value

SYNC_PERIOD = 15.0  # --horizontal-pod-autoscaler-sync-period
COMPONENT = "horizontal-pod-autoscaler"
TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


class Failure(Exception):
    """A metric that could not be computed: its condition (already evented) and the error."""

    def __init__(self, condition: tuple[str, str, str, str], message: str) -> None:
        super().__init__(message)
        self.condition = condition


def _milli_quantity(milli: int) -> str:
    """resource.NewMilliQuantity(v, DecimalSI).String()."""
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"


def set_condition(status: dict, type_: str, value: str, reason: str, message: str, now: str) -> None:
    """setConditionInList: the transition time moves only when the status flips."""
    conditions = status.setdefault("conditions", [])
    existing = next((c for c in conditions if c.get("type") == type_), None)
    if existing is None:
        existing = {"type": type_}
        conditions.append(existing)
    if existing.get("status") != value:
        existing["lastTransitionTime"] = now
    existing.update(status=value, reason=reason, message=message)
    # keep the field order upstream's JSON has
    ordered = {
        k: existing[k] for k in ("type", "status", "lastTransitionTime", "reason", "message") if k in existing
    }
    existing.clear()
    existing.update(ordered)


class HorizontalController:
    def __init__(self, host) -> None:
        self.host = host
        self.timers: dict[tuple[str, str], float] = {}  # autoscaler -> clock.monotonic() of its next sync
        self.memory: dict[tuple[str, str], normalize.Memory] = {}

    # -- what the manager tells it ------------------------------------------------------------
    def observe(self, kind: str, namespace: str, name: str, deleted: bool) -> None:
        if kind != "HorizontalPodAutoscaler":
            return
        key = (namespace, name)
        if deleted:
            self.timers.pop(key, None)
            self.memory.pop(key, None)
            return
        # enqueueHPA: AddRateLimited with the sync period, so a new or changed autoscaler is
        # looked at within one period, not at once
        self.timers.setdefault(key, clock.monotonic() + SYNC_PERIOD)

    def next_wakeup(self) -> float | None:
        if not self.timers:
            return None
        return max(0.0, min(self.timers.values()) - clock.monotonic())

    def due(self) -> bool:
        now = clock.monotonic()
        return any(when <= now for when in self.timers.values())

    # -- database thread -------------------------------------------------------------------
    def sync_all(self) -> int:
        now = clock.monotonic()
        due = sorted(key for key, when in self.timers.items() if when <= now)
        scrape = self._sample() if due else None
        for key in due:
            self.timers[key] = now + SYNC_PERIOD
            hpa = self.host.informer.get("HorizontalPodAutoscaler", *key)
            if hpa is None:
                self.timers.pop(key, None)
                continue
            self.reconcile(hpa, scrape)
        return len(due)

    def _sample(self) -> Sample:
        store = self.host.informer.store
        return sample(
            list(store["Pod"].values()),
            list(store["Service"].values()),
            list(store["Endpoints"].values()),
            list(store["Node"].values()),
            clock.now(),
        )

    def _event(self, hpa: dict, type_: str, reason: str, message: str) -> None:
        actor = self.host.actor(None, "horizontal pod autoscaler")
        event_recorder.record(
            self.host.cluster, hpa, reason, message, actor, type_=type_, component=COMPONENT
        )

    # -- reconcileAutoscaler ----------------------------------------------------------------
    def reconcile(self, stored: dict, scrape: Sample) -> None:
        hpa = copy.deepcopy(stored)
        original = copy.deepcopy(stored.get("status") or {})
        status = hpa.setdefault("status", {})
        now = clock.now()
        stamp = now.strftime(TIME_FORMAT)
        meta, spec = hpa["metadata"], hpa.get("spec") or {}
        namespace, key = meta.get("namespace", ""), (meta.get("namespace", ""), meta["name"])
        memory = self.memory.setdefault(key, normalize.Memory())
        ref = spec.get("scaleTargetRef") or {}
        try:
            kind = self._target_kind(ref)
            scale = api.get_scale(self.host.cluster, kind, namespace, ref.get("name", ""))
        except (ApiError, LookupError) as err:
            message = err.message if isinstance(err, ApiError) else str(err)
            self._event(hpa, "Warning", "FailedGetScale", message)
            set_condition(
                status,
                "AbleToScale",
                "False",
                "FailedGetScale",
                f"the HPA controller was unable to get the target's current scale: {message}",
                stamp,
            )
            self._write_status(hpa, original)
            return
        set_condition(
            status,
            "AbleToScale",
            "True",
            "SucceededGetScale",
            "the HPA controller was able to get the target's current scale",
            stamp,
        )
        current = int((scale.get("spec") or {}).get("replicas") or 0)
        if not memory.recommendations:
            memory.recommendations.append((current, now))  # recordInitialRecommendation
        low = spec.get("minReplicas") if spec.get("minReplicas") is not None else 1
        high = int(spec.get("maxReplicas") or 0)
        statuses: list[dict] | None = None
        rescale, reason, desired = True, "", 0
        if current == 0 and low != 0:
            rescale = False
            set_condition(
                status,
                "ScalingActive",
                "False",
                "ScalingDisabled",
                "scaling is disabled since the replica count of the target is zero",
                stamp,
            )
        elif current > high:
            reason, desired = "Current number of replicas above Spec.MaxReplicas", high
        elif current < low:
            reason, desired = "Current number of replicas below Spec.MinReplicas", low
        else:
            proposal, metric, statuses, error = self._replicas_for_metrics(hpa, scale, scrape, now, stamp)
            if proposal == -1:
                self._set_status(status, current, status.get("desiredReplicas", 0), statuses, False, stamp)
                self._write_status(hpa, original)
                self._event(hpa, "Warning", "FailedComputeMetricsReplicas", error)
                return
            if proposal > desired:
                desired = proposal
            if desired > current:
                reason = f"{metric} above target"
            if desired < current:
                reason = "All metrics below target"
            behavior = spec.get("behavior")
            if isinstance(behavior, dict):
                desired, conditions = normalize.normalize_with_behaviors(
                    memory, behavior, current, desired, low, high, now
                )
            else:
                desired, conditions = normalize.normalize(memory, current, desired, low, high, now)
            for condition in conditions:
                set_condition(status, *condition, stamp)
            rescale = desired != current
        if rescale:
            actor = self.host.actor(None, "horizontal pod autoscaler")
            try:
                api.scale(self.host.cluster, kind, namespace, ref.get("name", ""), desired, actor)
            except ApiError as err:
                self._event(
                    hpa,
                    "Warning",
                    "FailedRescale",
                    f"New size: {desired}; reason: {reason}; error: {err.message}",
                )
                set_condition(
                    status,
                    "AbleToScale",
                    "False",
                    "FailedUpdateScale",
                    f"the HPA controller was unable to update the target scale: {err.message}",
                    stamp,
                )
                self._set_status(status, current, status.get("desiredReplicas", 0), statuses, False, stamp)
                self._write_status(hpa, original)
                return
            set_condition(
                status,
                "AbleToScale",
                "True",
                "SucceededRescale",
                f"the HPA controller was able to update the target scale to {desired}",
                stamp,
            )
            self._event(hpa, "Normal", "SuccessfulRescale", f"New size: {desired}; reason: {reason}")
            behavior = spec.get("behavior") if isinstance(spec.get("behavior"), dict) else None
            normalize.store_scale_event(memory, behavior, current, desired, now)
        else:
            desired = current
        self._set_status(status, current, desired, statuses, rescale, stamp)
        self._write_status(hpa, original)

    def _target_kind(self, ref: dict) -> str:
        """The RESTMapper's answer for the reference's group and kind."""
        api_version, kind = str(ref.get("apiVersion") or ""), str(ref.get("kind") or "")
        parts = api_version.split("/")
        if len(parts) > 2:
            raise LookupError(f"unexpected GroupVersion string: {api_version}")
        group = parts[0] if len(parts) == 2 else ""
        for info in KINDS.values():
            if info.group == group and info.kind == kind:
                return kind
        raise LookupError(f'no matches for kind "{kind}" in group "{group}"')

    @staticmethod
    def _set_status(
        status: dict, current: int, desired: int, metrics: list[dict] | None, rescale: bool, stamp: str
    ) -> None:
        """setStatus: the replicas, the metrics' statuses, and lastScaleTime when it scaled."""
        conditions, last = status.get("conditions"), status.get("lastScaleTime")
        status.clear()
        if rescale:
            last = stamp
        if last:
            status["lastScaleTime"] = last
        status["currentReplicas"] = current
        status["desiredReplicas"] = desired
        if metrics:
            status["currentMetrics"] = metrics
        if conditions:
            status["conditions"] = conditions

    def _write_status(self, hpa: dict, original: dict) -> None:
        """updateStatusIfNeeded."""
        if hpa.get("status") == original:
            return
        body = copy.deepcopy(hpa)
        body["metadata"].pop("resourceVersion", None)
        try:
            stored = api.update(
                self.host.cluster, body, self.host.actor(None, "horizontal pod autoscaler"), "status"
            )
        except ApiError as err:
            if err.code != 404:
                self._event(hpa, "Warning", "FailedUpdateStatus", err.message)
            return
        self.host.assume(stored)

    # -- computeReplicasForMetrics ----------------------------------------------------------
    def _replicas_for_metrics(self, hpa: dict, scale: dict, scrape: Sample, now: datetime, stamp: str):
        status = hpa["status"]
        text = (scale.get("status") or {}).get("selector") or ""
        if not text:
            self._event(hpa, "Warning", "SelectorRequired", "selector is required")
            set_condition(
                status,
                "ScalingActive",
                "False",
                "InvalidSelector",
                "the HPA target's scale is missing a selector",
                stamp,
            )
            return -1, "", None, "selector is required"
        try:
            selector = parse_label_selector(text)
        except ApiError as err:
            message = (
                f"couldn't convert selector into a corresponding internal selector object: {err.message}"
            )
            self._event(hpa, "Warning", "InvalidSelector", message)
            set_condition(status, "ScalingActive", "False", "InvalidSelector", message, stamp)
            return -1, "", None, message
        namespace = hpa["metadata"].get("namespace", "")
        pods = [
            p
            for (pod_namespace, _), p in self.host.informer.store["Pod"].items()
            if pod_namespace == namespace and labels_match(selector, p)
        ]
        spec_replicas = int((scale.get("spec") or {}).get("replicas") or 0)
        specs = (hpa.get("spec") or {}).get("metrics") or []
        statuses: list[dict] = [{"type": ""} for _ in specs]
        replicas, metric, invalid, first = 0, "", 0, None
        for i, spec in enumerate(specs):
            try:
                proposal, name, statuses[i] = self._replicas_for_metric(
                    hpa, spec, spec_replicas, pods, scrape, now
                )
            except Failure as failure:
                if first is None:
                    first = failure
                invalid += 1
                continue
            if replicas == 0 or proposal > replicas:
                replicas, metric = proposal, name
        error = (
            f"invalid metrics ({invalid} invalid out of {len(specs)}), first error is: {first}"
            if first
            else ""
        )
        if first is not None and (invalid >= len(specs) or replicas < spec_replicas):
            set_condition(status, *first.condition, stamp)
            return -1, "", statuses, error
        set_condition(
            status,
            "ScalingActive",
            "True",
            "ValidMetricFound",
            f"the HPA was able to successfully calculate a replica count from {metric}",
            stamp,
        )
        return replicas, metric, statuses, error

    def _unable(self, hpa: dict, reason: str, message: str) -> tuple[str, str, str, str]:
        """getUnableComputeReplicaCountCondition: an Event, and the condition to set."""
        self._event(hpa, "Warning", reason, message)
        return (
            "ScalingActive",
            "False",
            reason,
            f"the HPA was unable to compute the replica count: {message}",
        )

    def _replicas_for_metric(
        self, hpa: dict, spec: dict, replicas: int, pods: list[dict], scrape: Sample, now: datetime
    ):
        kind = spec.get("type")
        if kind in ("Resource", "ContainerResource"):
            field = "resource" if kind == "Resource" else "containerResource"
            source = spec.get(field) or {}
            resource, container = (
                source.get("name", ""),
                source.get("container", "") if field == "containerResource" else "",
            )
            try:
                proposal, current, name = self._resource(
                    hpa, source.get("target") or {}, resource, container, replicas, pods, scrape, now
                )
            except (CalculationError, MetricsError) as err:
                condition = self._unable(
                    hpa,
                    "FailedGetResourceMetric" if field == "resource" else "FailedGetContainerResourceMetric",
                    str(err),
                )
                what = f"{resource} resource" if field == "resource" else f"{container} container"
                raise Failure(condition, f"failed to get {what} metric value: {err}") from None
            if field == "containerResource":
                name = name.replace("resource utilization", "container resource utilization")
            status = {"type": kind, field: {"name": resource, "current": current}}
            if container:
                status[field]["container"] = container
            return proposal, name, status
        if kind == "Pods":
            metric = ((spec.get("pods") or {}).get("metric") or {}).get("name", "")
            message = f"unable to get metric {metric}: {NO_CUSTOM_METRICS}"
            raise Failure(
                self._unable(hpa, "FailedGetPodsMetric", message),
                f"failed to get pods metric value: {message}",
            )
        if kind == "Object":
            source = spec.get("object") or {}
            metric, target = (source.get("metric") or {}).get("name", ""), source.get("describedObject") or {}
            where = f"{target.get('kind')} on {hpa['metadata'].get('namespace')} {target.get('name')}"
            message = (
                f"unable to get metric {metric}: {where}/{NO_CUSTOM_METRICS}"  # upstream's argument order
            )
            raise Failure(
                self._unable(hpa, "FailedGetObjectMetric", message),
                f"failed to get object metric value: {message}",
            )
        if kind == "External":
            metric = ((spec.get("external") or {}).get("metric") or {}).get("name", "")
            namespace = hpa["metadata"].get("namespace")
            message = f"unable to get external metric {namespace}/{metric}: {NO_EXTERNAL_METRICS}"
            condition = self._unable(hpa, "FailedGetExternalMetric", message)
            raise Failure(condition, f"failed to get {metric} external metric value: {message}")
        message = f'unknown metric source type "{kind}"'
        raise Failure(self._unable(hpa, "InvalidMetricSourceType", message), message)

    def _resource(
        self,
        hpa: dict,
        target: dict,
        resource: str,
        container: str,
        replicas: int,
        pods: list[dict],
        scrape: Sample,
        now: datetime,
    ):
        """computeStatusForResourceMetricGeneric: (replicas, current MetricValueStatus, metric name)."""
        namespace = hpa["metadata"].get("namespace", "")
        names = {p["metadata"]["name"] for p in pods}
        if target.get("averageValue") is not None:
            try:
                metrics = resource_metric(scrape, resource, namespace, names, container)
                proposal, usage = plain_metric_replicas(
                    replicas, milli_value(target["averageValue"]), resource, pods, metrics, now
                )
            except (CalculationError, MetricsError) as err:
                raise CalculationError(
                    f"failed to get {resource} usage: {_unable_to_get(resource, err)}"
                ) from None
            return proposal, {"averageValue": _milli_quantity(usage)}, f"{resource} resource"
        if target.get("averageUtilization") is None:
            raise CalculationError(
                "invalid resource metric source: "
                "neither an average utilization target nor an average value (usage) target was set"
            )
        try:
            metrics = resource_metric(scrape, resource, namespace, names, container)
            proposal, utilization, raw = resource_replicas(
                replicas, int(target["averageUtilization"]), resource, pods, metrics, now, container
            )
        except (CalculationError, MetricsError) as err:
            raise CalculationError(
                f"failed to get {resource} utilization: {_unable_to_get(resource, err)}"
            ) from None
        current = {"averageValue": _milli_quantity(raw), "averageUtilization": utilization}
        return proposal, current, f"{resource} resource utilization (percentage of request)"


def _unable_to_get(resource: str, err: Exception) -> str:
    """GetResourceReplicas wraps the metrics client's failures; the calculation's own are as they are."""
    if isinstance(err, MetricsError):
        return f"unable to get metrics for resource {resource}: {err}"
    return str(err)
