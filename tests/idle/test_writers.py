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


@pytest.mark.django_db(transaction=True)
def test_a_write_outside_a_transaction_waits_for_its_turn_at_the_gate():
    """`save()` outside atomic() is SQLite autocommit: it must queue like a transaction, not take
    the write lock past the gate (a gated transaction would then meet SQLite's busy handler)."""
    from django.db import connection

    from cluster.models import Cluster

    if connection.vendor != "sqlite":
        pytest.skip("the gate is SQLite's")
    cluster = Cluster.objects.create(name="autocommit")
    assert not writers.GATE._held
    saved = threading.Event()

    def save_outside_a_transaction() -> None:
        try:
            Cluster.objects.filter(pk=cluster.pk).update(pace_ms=7)
            saved.set()
        finally:
            connection.close()

    assert writers.GATE.acquire(urgent=False)  # another writer's turn
    writer = threading.Thread(target=save_outside_a_transaction)
    writer.start()
    try:
        assert not saved.wait(0.2), "the autocommit write went past the gate"
    finally:
        writers.GATE.release()
    writer.join(5)
    assert saved.is_set()
    assert not writers.GATE._held
    cluster.refresh_from_db()
    assert cluster.pace_ms == 7
    # Reads outside a transaction still go straight on while the gate is held.
    assert writers.GATE.acquire(urgent=False)
    try:
        assert Cluster.objects.get(pk=cluster.pk).pace_ms == 7
    finally:
        writers.GATE.release()
