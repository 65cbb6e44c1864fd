"""horizontal.go's normalization of a recommendation: the stabilization windows, the scale-up limit
(without `behavior`) and the `behavior` policies' rates, with the AbleToScale and ScalingLimited
conditions each step sets. Pure: the recommendations and scale events are the controller's memory,
passed in, and time is passed in."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime, timedelta

DOWNSCALE_STABILIZATION_WINDOW = timedelta(minutes=5)  # --horizontal-pod-autoscaler-downscale-stabilization
SCALE_UP_LIMIT_FACTOR = 2.0
SCALE_UP_LIMIT_MINIMUM = 4.0
INT32_MAX, INT32_MIN = 2**31 - 1, -(2**31)


@dataclass
class ScaleEvent:
    replica_change: int  # how many pods were added (or, for a scale-down, removed)
    timestamp: datetime
    outdated: bool = False


@dataclass
class Memory:
    """What the controller remembers of one autoscaler between syncs."""

    recommendations: list[tuple[int, datetime]] = field(default_factory=list)
    scale_up_events: list[ScaleEvent] = field(default_factory=list)
    scale_down_events: list[ScaleEvent] = field(default_factory=list)


Condition = tuple[str, str, str, str]  # type, status, reason, message


def stabilize(
    memory: Memory, desired: int, now: datetime, window: timedelta = DOWNSCALE_STABILIZATION_WINDOW
) -> int:
    """stabilizeRecommendation: the highest recommendation of the window; this one replaces an old one."""
    highest, old_index = desired, None
    cutoff = now - window
    for i, (recommendation, when) in enumerate(memory.recommendations):
        if when < cutoff:
            old_index = i
        elif recommendation > highest:
            highest = recommendation
    if old_index is not None:
        memory.recommendations[old_index] = (desired, now)
    else:
        memory.recommendations.append((desired, now))
    return highest


def convert_with_rules(current: int, desired: int, low: int, high: int) -> tuple[int, str, str]:
    """convertDesiredReplicasWithRules: the bounds, and at most doubling (or 4) at once."""
    scale_up_limit = int(max(SCALE_UP_LIMIT_FACTOR * current, SCALE_UP_LIMIT_MINIMUM))
    if high > scale_up_limit:
        maximum, reason = scale_up_limit, "ScaleUpLimit"
        message = "the desired replica count is increasing faster than the maximum scale rate"
    else:
        maximum, reason = high, "TooManyReplicas"
        message = "the desired replica count is more than the maximum replica count"
    if desired < low:
        return low, "TooFewReplicas", "the desired replica count is less than the minimum replica count"
    if desired > maximum:
        return maximum, reason, message
    return desired, "DesiredWithinRange", "the desired count is within the acceptable range"


def normalize(
    memory: Memory, current: int, desired: int, low: int, high: int, now: datetime
) -> tuple[int, list[Condition]]:
    """normalizeDesiredReplicas (an autoscaler without `behavior`)."""
    stabilized = stabilize(memory, desired, now)
    if stabilized != desired:
        able = (
            "AbleToScale",
            "True",
            "ScaleDownStabilized",
            "recent recommendations were higher than current one, applying the highest recent recommendation",
        )
    else:
        able = ("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size")
    result, reason, message = convert_with_rules(current, stabilized, low, high)
    limited = ("ScalingLimited", "False" if result == stabilized else "True", reason, message)
    return result, [able, limited]


# -- with `behavior` -------------------------------------------------------------------------------
def _change_in_period(period_seconds: int, events: list[ScaleEvent], now: datetime) -> int:
    cutoff = now - timedelta(seconds=period_seconds)
    return sum(e.replica_change for e in events if e.timestamp > cutoff)


def _policies(rules: dict) -> list[dict]:
    return [p for p in rules.get("policies") or [] if isinstance(p, dict)]


def scale_up_limit(
    current: int, ups: list[ScaleEvent], downs: list[ScaleEvent], rules: dict, now: datetime
) -> int:
    """calculateScaleUpLimitWithScalingRules."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    pick, result = (min, INT32_MAX) if select == "Min" else (max, INT32_MIN)
    for policy in _policies(rules):
        period = int(policy.get("periodSeconds") or 0)
        start = current - _change_in_period(period, ups, now) + _change_in_period(period, downs, now)
        value = int(policy.get("value") or 0)
        # Percent is rounded up, so that a small target still grows
        proposed = start + value if policy.get("type") == "Pods" else math.ceil(start * (1 + value / 100))
        result = pick(result, proposed)
    return result


def scale_down_limit(
    current: int, ups: list[ScaleEvent], downs: list[ScaleEvent], rules: dict, now: datetime
) -> int:
    """calculateScaleDownLimitWithBehaviors."""
    select = rules.get("selectPolicy") or "Max"
    if select == "Disabled":
        return current
    pick, result = (max, INT32_MIN) if select == "Min" else (min, INT32_MAX)
    for policy in _policies(rules):
        period = int(policy.get("periodSeconds") or 0)
        start = current - _change_in_period(period, ups, now) + _change_in_period(period, downs, now)
        value = int(policy.get("value") or 0)
        proposed = start - value if policy.get("type") == "Pods" else int(start * (1 - value / 100))
        result = pick(result, proposed)
    return result


def stabilize_with_behaviors(
    memory: Memory, current: int, desired: int, up: dict, down: dict, now: datetime
) -> tuple[int, str, str]:
    """stabilizeRecommendationWithBehaviors: within the lowest recommendation of the scale-up window
    and the highest of the scale-down window; this recommendation replaces one older than both."""
    up_cutoff = now - timedelta(seconds=int(up.get("stabilizationWindowSeconds") or 0))
    down_cutoff = now - timedelta(seconds=int(down.get("stabilizationWindowSeconds") or 0))
    up_recommendation = down_recommendation = desired
    old_index = None
    for i, (recommendation, when) in enumerate(memory.recommendations):
        if when > up_cutoff:
            up_recommendation = min(recommendation, up_recommendation)
        if when > down_cutoff:
            down_recommendation = max(recommendation, down_recommendation)
        if when < up_cutoff and when < down_cutoff:
            old_index = i
    recommendation = max(current, up_recommendation)
    recommendation = min(recommendation, down_recommendation)
    if old_index is not None:
        memory.recommendations[old_index] = (desired, now)
    else:
        memory.recommendations.append((desired, now))
    if desired >= current:
        return (
            recommendation,
            "ScaleUpStabilized",
            "recent recommendations were lower than current one, applying the lowest recent recommendation",
        )
    return (
        recommendation,
        "ScaleDownStabilized",
        "recent recommendations were higher than current one, applying the highest recent recommendation",
    )


def convert_with_behavior_rate(
    memory: Memory, current: int, desired: int, low: int, high: int, up: dict, down: dict, now: datetime
) -> tuple[int, str, str]:
    """convertDesiredReplicasWithBehaviorRate."""
    if desired > current:
        limit = max(
            scale_up_limit(current, memory.scale_up_events, memory.scale_down_events, up, now), current
        )
        if high > limit:
            maximum, reason, message = (
                limit,
                "ScaleUpLimit",
                "the desired replica count is increasing faster than the maximum scale rate",
            )
        else:
            maximum, reason, message = (
                high,
                "TooManyReplicas",
                "the desired replica count is more than the maximum replica count",
            )
        if desired > maximum:
            return maximum, reason, message
    elif desired < current:
        limit = min(
            scale_down_limit(current, memory.scale_up_events, memory.scale_down_events, down, now), current
        )
        if low < limit:
            minimum, reason, message = (
                limit,
                "ScaleDownLimit",
                "the desired replica count is decreasing faster than the maximum scale rate",
            )
        else:
            minimum, reason, message = (
                low,
                "TooFewReplicas",
                "the desired replica count is less than the minimum replica count",
            )
        if desired < minimum:
            return minimum, reason, message
    return desired, "DesiredWithinRange", "the desired count is within the acceptable range"


def normalize_with_behaviors(
    memory: Memory, behavior: dict, current: int, desired: int, low: int, high: int, now: datetime
) -> tuple[int, list[Condition]]:
    """normalizeDesiredReplicasWithBehaviors; a scale-down window left unset is the controller's 5 minutes."""
    up = dict(behavior.get("scaleUp") or {})
    down = dict(behavior.get("scaleDown") or {})
    if down.get("stabilizationWindowSeconds") is None:
        down["stabilizationWindowSeconds"] = int(DOWNSCALE_STABILIZATION_WINDOW.total_seconds())
    stabilized, reason, message = stabilize_with_behaviors(memory, current, desired, up, down, now)
    if stabilized != desired:
        able = ("AbleToScale", "True", reason, message)
    else:
        able = ("AbleToScale", "True", "ReadyForNewScale", "recommended size matches current size")
    result, reason, message = convert_with_behavior_rate(
        memory, current, stabilized, low, high, up, down, now
    )
    limited = ("ScalingLimited", "False" if result == stabilized else "True", reason, message)
    return result, [able, limited]


def _longest_period(rules: dict) -> int:
    return max((int(p.get("periodSeconds") or 0) for p in _policies(rules)), default=0)


def store_scale_event(memory: Memory, behavior: dict | None, previous: int, new: int, now: datetime) -> None:
    """storeScaleEvent: remembered only with `behavior`; an outdated event's slot is reused."""
    if behavior is None:
        return
    up = new > previous
    events = memory.scale_up_events if up else memory.scale_down_events
    rules = (behavior.get("scaleUp") if up else behavior.get("scaleDown")) or {}
    cutoff = now - timedelta(seconds=_longest_period(rules))
    for event in events:
        if event.timestamp < cutoff:
            event.outdated = True
    event = ScaleEvent(abs(new - previous), now)
    outdated = [i for i, e in enumerate(events) if e.outdated]
    if outdated:
        events[outdated[-1]] = event
    else:
        events.append(event)
