"""horizontal.go's normalization: the scale-up limit without `behavior`, the scale-down
stabilization window, and `behavior`'s policies against the remembered scale events."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cluster.controllers.podautoscaler import normalize
from cluster.controllers.podautoscaler.normalize import Memory, ScaleEvent
from cluster.kinds.autoscaling.horizontalpodautoscaler import SCALE_DOWN_RULES, SCALE_UP_RULES

NOW = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)


def test_without_behavior_the_bounds_and_at_most_double_or_four():
    assert normalize.convert_with_rules(1, 10, 1, 20)[:2] == (4, "ScaleUpLimit")
    assert normalize.convert_with_rules(5, 12, 1, 8)[:2] == (8, "TooManyReplicas")
    assert normalize.convert_with_rules(5, 9, 1, 20) == (
        9,
        "DesiredWithinRange",
        "the desired count is within the acceptable range",
    )
    assert normalize.convert_with_rules(3, 0, 1, 5)[:2] == (1, "TooFewReplicas")


def test_a_scale_down_waits_for_the_highest_recommendation_of_five_minutes():
    memory = Memory(recommendations=[(5, NOW - timedelta(minutes=4)), (3, NOW - timedelta(minutes=6))])
    desired, conditions = normalize.normalize(memory, 5, 2, 1, 10, NOW)
    assert desired == 5
    assert conditions[0][2] == "ScaleDownStabilized"
    # the old recommendation's slot holds the new one
    assert (2, NOW) in memory.recommendations and len(memory.recommendations) == 2
    later = NOW + timedelta(minutes=5)
    assert normalize.normalize(memory, 5, 2, 1, 10, later)[0] == 2


def test_default_behavior_rules_add_four_pods_or_double_per_15_seconds():
    assert normalize.scale_up_limit(3, [], [], SCALE_UP_RULES, NOW) == 7  # max(3 + 4, ceil(3 × 2))
    assert normalize.scale_up_limit(10, [], [], SCALE_UP_RULES, NOW) == 20
    recent = [ScaleEvent(4, NOW - timedelta(seconds=5))]  # 3 -> 7 five seconds ago
    assert normalize.scale_up_limit(7, recent, [], SCALE_UP_RULES, NOW) == 7  # the period starts at 3
    assert normalize.scale_down_limit(8, [], [], SCALE_DOWN_RULES, NOW) == 0  # 100% may go at once


def test_behavior_policies_select_and_disable():
    rules = {
        "selectPolicy": "Min",
        "policies": [
            {"type": "Pods", "value": 1, "periodSeconds": 60},
            {"type": "Percent", "value": 50, "periodSeconds": 60},
        ],
    }
    assert normalize.scale_up_limit(4, [], [], rules, NOW) == 5  # min(4 + 1, ceil(4 × 1.5))
    assert (
        normalize.scale_down_limit(4, [], [], rules, NOW) == 3
    )  # for a scale-down, Min is the smaller change
    assert normalize.scale_up_limit(4, [], [], {"selectPolicy": "Disabled", "policies": []}, NOW) == 4


def test_normalize_with_behaviors_limits_the_rate_and_says_so():
    behavior = {"scaleUp": SCALE_UP_RULES, "scaleDown": {**SCALE_DOWN_RULES, "stabilizationWindowSeconds": 0}}
    memory = Memory()
    desired, conditions = normalize.normalize_with_behaviors(memory, behavior, 2, 30, 1, 50, NOW)
    assert desired == 6  # max(2 + 4, ceil(2 × 2))
    assert conditions[1] == (
        "ScalingLimited",
        "True",
        "ScaleUpLimit",
        "the desired replica count is increasing faster than the maximum scale rate",
    )
    normalize.store_scale_event(memory, behavior, 2, 6, NOW)
    assert (
        normalize.normalize_with_behaviors(memory, behavior, 6, 30, 1, 50, NOW + timedelta(seconds=5))[0] == 6
    )
    assert (
        normalize.normalize_with_behaviors(memory, behavior, 6, 30, 1, 50, NOW + timedelta(seconds=20))[0]
        == 12
    )
