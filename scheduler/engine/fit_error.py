"""The FailedScheduling message, built in one place as framework/types.go FitError.Error() does."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from scheduler.engine.framework import Code, Status

NO_NODE_AVAILABLE = "0/{n} nodes are available:"
PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
PREEMPT_NEVER = "not eligible due to preemptionPolicy=Never."


def histogram_message(num_nodes: int, statuses: Iterable[Status]) -> str:
    """`0/N nodes are available: <count reason, …>.` with the entries sorted as whole strings."""
    reasons: Counter = Counter()
    for status in statuses:
        for reason in status.reasons:
            reasons[reason] += 1
    message = NO_NODE_AVAILABLE.format(n=num_nodes)
    entries = sorted(f"{count} {reason}" for reason, count in reasons.items())
    if entries:
        message += f" {', '.join(entries)}."
    return message


def preemption_message(num_nodes: int, node_statuses: Iterable[Status], preemption_policy: str) -> str:
    """DefaultPreemption's PostFilter message when every pod has the same priority.

    A node whose filter status is UnschedulableAndUnresolvable cannot be helped by preemption;
    on any other node there is no lower-priority pod to evict.
    """
    if preemption_policy == "Never":
        return f"preemption: {PREEMPT_NEVER}"
    verdicts = [
        Status(Code.UNRESOLVABLE, (PREEMPTION_NOT_HELPFUL,))
        if status.code is Code.UNRESOLVABLE
        else Status(Code.UNRESOLVABLE, (NO_VICTIMS,))
        for status in node_statuses
    ]
    return f"preemption: {histogram_message(num_nodes, verdicts)}"


def fit_error_message(
    num_nodes: int,
    node_statuses: list[Status],
    prefilter_message: str = "",
    postfilter_message: str = "",
) -> str:
    if prefilter_message:
        message = NO_NODE_AVAILABLE.format(n=num_nodes) + f" {prefilter_message}."
    else:
        message = histogram_message(num_nodes, node_statuses)
    if postfilter_message:
        message += f" {postfilter_message}"
    return message
