"""The FailedScheduling message, byte for byte (framework/types.go FitError.Error())."""

from __future__ import annotations

from scheduler.engine.fit_error import fit_error_message, histogram_message, preemption_message
from scheduler.engine.framework import Code, Status


def unsched(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNRESOLVABLE, reasons)


def test_it_counts_each_reason_and_sorts_entries_as_whole_strings():
    statuses = [
        unsched("Insufficient cpu"),
        unsched("Insufficient cpu", "Insufficient memory"),
        unresolvable("node(s) had untolerated taint {dedicated: gpu}"),
    ]
    message = fit_error_message(3, statuses, postfilter_message=preemption_message(3, statuses, ""))
    assert message == (
        "0/3 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint {dedicated: gpu}, "
        "2 Insufficient cpu. preemption: 0/3 nodes are available: "
        "1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
    )


def test_ten_sorts_before_two_because_the_sort_is_lexical():
    statuses = [unsched("Insufficient cpu")] * 10 + [unresolvable("node(s) were unschedulable")] * 2
    assert histogram_message(12, statuses) == (
        "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) were unschedulable."
    )


def test_prefilter_rejection_lists_no_per_node_reasons():
    statuses = [unresolvable("pod affinity terms conflict")] * 3
    message = fit_error_message(
        3,
        statuses,
        prefilter_message="pod affinity terms conflict",
        postfilter_message=preemption_message(3, statuses, ""),
    )
    assert message == (
        "0/3 nodes are available: pod affinity terms conflict. "
        "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
    )


def test_preemption_policy_never_is_named():
    statuses = [unsched("Insufficient cpu")]
    assert (
        preemption_message(1, statuses, "Never") == "preemption: not eligible due to preemptionPolicy=Never."
    )
