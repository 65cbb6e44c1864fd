"""SQLite's one writer: this process's writers queue at one gate, and requests go first."""

from __future__ import annotations

import threading
import time

import pytest

from database.sqlite import writers
from database.sqlite.writers import Gate


def _order_of_turns(waiting: list[tuple[str, int]]) -> list[str]:
    """The order in which writers that queued one after another (as listed) get the gate."""
    gate = Gate()
    assert gate.acquire(writers.BACKGROUND)
    order: list[str] = []

    def write(name: str, turn: int) -> None:
        assert gate.acquire(turn)
        order.append(name)
        gate.release()

    threads = []
    for name, turn in waiting:
        threads.append(threading.Thread(target=write, args=(name, turn)))
        threads[-1].start()
        time.sleep(0.03)  # queued after the one before
    gate.release()
    for thread in threads:
        thread.join(5)
    return order


def test_an_urgent_writer_goes_before_writers_that_waited_longer():
    planes = [(f"plane-{i}", writers.BACKGROUND) for i in range(3)]
    order = _order_of_turns([*planes, ("request", writers.REQUEST)])
    assert order == ["request", "plane-0", "plane-1", "plane-2"]


def test_requests_go_before_the_graders_stores_and_those_before_the_control_planes():
    order = _order_of_turns(
        [
            ("plane", writers.BACKGROUND),
            ("store-1", writers.PERSON),
            ("store-2", writers.PERSON),
            ("request-1", writers.REQUEST),
            ("request-2", writers.REQUEST),
        ]
    )
    assert order == ["request-1", "request-2", "store-1", "store-2", "plane"]


def test_a_batch_gives_way_only_to_writers_whose_turn_comes_first():
    gate = writers.GATE
    assert gate.acquire(writers.BACKGROUND)
    queued = threading.Thread(target=lambda: (gate.acquire(writers.PERSON), gate.release()))
    queued.start()
    try:
        deadline = time.monotonic() + 5
        while not gate.waiting_before(writers.BACKGROUND):
            assert time.monotonic() < deadline
            time.sleep(0.001)
        assert writers.urgent_waiting()  # a control plane's batch stops for the grader's store
        with writers.turn_of(writers.PERSON):
            assert not writers.urgent_waiting()  # the store's own batch does not stop for a store
            with writers.urgent():
                assert writers.turn() == writers.REQUEST
            assert writers.turn() == writers.PERSON
        assert writers.turn() == writers.BACKGROUND
    finally:
        gate.release()
        queued.join(5)
    assert not gate._held


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

    assert writers.GATE.acquire(writers.BACKGROUND)  # another writer's turn
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
    assert writers.GATE.acquire(writers.BACKGROUND)
    try:
        assert Cluster.objects.get(pk=cluster.pk).pace_ms == 7
    finally:
        writers.GATE.release()
