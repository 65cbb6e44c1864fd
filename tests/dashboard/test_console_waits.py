"""What the console's waiting commands share: Go's durations, kubectl's rollout sentences, and the
bound on how many commands of a process wait at once (each holds a request thread)."""

from __future__ import annotations

import pytest

from cluster.apiserver import service as api
from cluster.controlplane.demo import create_demo
from cluster.kinds.core import kubesystem
from dashboard.console import run_command
from dashboard.console.parser import UsageError
from dashboard.console.rollout import _daemonset_status, _deployment_status
from dashboard.console.watching import WAITING_SLOTS, _slots, go_duration, parse_duration


def test_durations_read_and_print_as_go_does():
    assert [parse_duration(text, "timeout") for text in ("0", "90s", "2m", "1m30s", "1h", "500ms")] == [
        0,
        90,
        120,
        90,
        3600,
        0.5,
    ]
    with pytest.raises(
        UsageError, match=r'invalid argument "soon" for "--timeout" flag: time: invalid duration'
    ):
        parse_duration("soon", "timeout")
    assert [go_duration(s) for s in (30, 120, 90, 3600)] == ["30s", "2m0s", "1m30s", "1h0m0s"]


def deployment(generation=2, observed=2, wanted=3, **status) -> dict:
    return {
        "metadata": {"name": "web", "generation": generation},
        "spec": {"replicas": wanted},
        "status": {"observedGeneration": observed, **status},
    }


def test_rollout_status_says_what_kubectls_status_viewer_says():
    waiting = 'Waiting for deployment "web" rollout to finish: '
    assert _deployment_status(deployment(observed=1), 0) == (
        "Waiting for deployment spec update to be observed...\n",
        False,
    )
    assert _deployment_status(deployment(updatedReplicas=1), 0) == (
        f"{waiting}1 out of 3 new replicas have been updated...\n",
        False,
    )
    assert _deployment_status(deployment(updatedReplicas=3, replicas=4), 0) == (
        f"{waiting}1 old replicas are pending termination...\n",
        False,
    )
    assert _deployment_status(deployment(updatedReplicas=3, replicas=3, availableReplicas=2), 0) == (
        f"{waiting}2 of 3 updated replicas are available...\n",
        False,
    )
    done = deployment(updatedReplicas=3, replicas=3, availableReplicas=3)
    assert _deployment_status(done, 0) == ('deployment "web" successfully rolled out\n', True)
    ds = {
        "metadata": {"name": "agent", "generation": 1},
        "spec": {},
        "status": {
            "observedGeneration": 1,
            "desiredNumberScheduled": 2,
            "updatedNumberScheduled": 2,
            "numberAvailable": 1,
        },
    }
    assert _daemonset_status(ds, 0) == (
        'Waiting for daemon set "agent" rollout to finish: 1 of 2 updated pods are available...\n',
        False,
    )


def test_a_drain_waits_only_in_a_free_slot_else_it_changes_nothing(db):
    demo = create_demo()
    taken = [_slots.acquire(blocking=False) for _ in range(WAITING_SLOTS)]
    try:
        assert all(taken)
        busy = run_command(demo, "drain node1 --ignore-daemonsets --force")
        assert busy.exit_code == 1 and busy.output == (
            "error: the web console is already waiting for other commands: nothing was drained; "
            "run it again in a moment\n"
        )
        assert not api.get(demo, "Node", "", "node1")["spec"].get("unschedulable")
    finally:
        for _ in taken:
            _slots.release()
    drained = run_command(demo, "drain node1 --ignore-daemonsets --force")
    # kubeadm's kube-system runs kube-flannel-ds and kube-proxy on node1: kubectl's warning.
    daemons = f"kube-system/{kubesystem.FLANNEL_PODS['node1']}, kube-system/{kubesystem.PROXY_PODS['node1']}"
    assert drained.output == (
        f"node/node1 cordoned\nWarning: ignoring DaemonSet-managed Pods: {daemons}\nnode/node1 drained\n"
    )
