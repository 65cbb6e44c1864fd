"""SQLite's one writer: this process's writers queue at one gate, and requests go first."""

from __future__ import annotations

import threading
import time

import pytest

from kubesim.sqlite import writers
from kubesim.sqlite.writers import Gate


def test_an_urgent_writer_goes_before_writers_that_waited_longer():
    gate = Gate()
    assert gate.acquire(urgent=False)
    order: list[str] = []

    def write(name: str, urgent: bool) -> None:
        assert gate.acquire(urgent)
        order.append(name)
        gate.release()

    background = [threading.Thread(target=write, args=(f"plane-{i}", False)) for i in range(3)]
    for thread in background:
        thread.start()
    time.sleep(0.05)  # the control planes' writers wait first
    request = threading.Thread(target=write, args=("request", True))
    request.start()
    time.sleep(0.05)
    gate.release()
    for thread in [*background, request]:
        thread.join(5)
    assert order[0] == "request"
    assert sorted(order[1:]) == ["plane-0", "plane-1", "plane-2"]


@pytest.mark.django_db(transaction=True)
def test_every_sqlite_transaction_of_the_process_holds_the_gate_until_it_ends():
    from django.db import connection, transaction

    from cluster.models import Cluster

    if connection.vendor != "sqlite":
        pytest.skip("the gate is SQLite's")
    assert not writers.GATE._held
    with transaction.atomic():
        Cluster.objects.create(name="gated")
        assert writers.GATE._held
        with transaction.atomic():  # a savepoint: the same turn
            assert writers.GATE._held
    assert not writers.GATE._held
    try:
        with transaction.atomic():
            Cluster.objects.create(name="gated-2")
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    assert not writers.GATE._held
    assert not Cluster.objects.filter(name="gated-2").exists()
