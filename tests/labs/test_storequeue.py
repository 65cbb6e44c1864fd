"""The grader's outcomes queued while the store thread is busy are stored in one transaction; one
that fails leaves the others stored."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection, transaction

from labs.models import Student
from labs.storequeue import StoreQueue

pytestmark = pytest.mark.django_db(transaction=True)


def _rename(item: tuple[int, str]) -> int:
    """A real write in its own savepoint, as labs.outcome.store does; how many writes the
    transaction holds so far (each leaves a commit hook, dropped with a rolled-back savepoint)."""
    pk, name = item
    with transaction.atomic():
        Student.objects.filter(pk=pk).update(display_name=name)
        transaction.on_commit(lambda: None)
        if name == "fails":
            raise ValueError("refused")
    return len(connection.run_on_commit)


def test_outcomes_queued_meanwhile_share_one_transaction_and_a_failure_stays_their_own(
    session, student_a, student_b
):
    alice, bob = student_a.student, student_b.student
    lane = ThreadPoolExecutor(max_workers=1)
    queue = StoreQueue(lane, _rename)

    async def scenario():
        busy = threading.Event()
        held = lane.submit(busy.wait, 30)
        puts = [
            asyncio.ensure_future(queue.put((alice.pk, "Alice 2"), urgent=True)),
            asyncio.ensure_future(queue.put((bob.pk, "fails"), urgent=False)),
            asyncio.ensure_future(queue.put((bob.pk, "Bob 2"), urgent=False)),
        ]
        await asyncio.sleep(0.05)
        busy.set()
        await asyncio.wrap_future(held)
        return await asyncio.gather(*puts, return_exceptions=True)

    first, failed, last = asyncio.run(scenario())
    lane.shutdown()
    assert isinstance(failed, ValueError)
    assert (first, last) == (1, 2)  # one transaction: the second write found the first's hook
    names = dict(Student.objects.filter(pk__in=[alice.pk, bob.pk]).values_list("pk", "display_name"))
    assert names == {alice.pk: "Alice 2", bob.pk: "Bob 2"}


def test_an_outcome_whose_event_loop_closed_meanwhile_does_not_stop_the_queue(student_a):
    student = student_a.student
    lane = ThreadPoolExecutor(max_workers=1)
    queue = StoreQueue(lane, _rename)
    busy = threading.Event()
    held = lane.submit(busy.wait, 30)

    async def give_up() -> None:  # the waiter leaves, and its loop closes, before the store ran
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(queue.put((student.pk, "left behind"), urgent=False), 0.05)

    asyncio.run(give_up())
    busy.set()
    held.result(5)

    async def later() -> int:
        return await asyncio.wait_for(queue.put((student.pk, "later"), urgent=False), 10)

    assert asyncio.run(later()) == 1
    lane.shutdown()
    assert Student.objects.get(pk=student.pk).display_name == "later"


def test_a_request_queued_at_the_gate_cuts_the_batch_and_writes_before_the_rest(
    session, student_a, student_b
):
    """A student's write waits for one outcome, not for the whole batch; the rest follow it."""
    from database.sqlite import writers

    if connection.vendor != "sqlite":
        pytest.skip("the writer gate is SQLite's")
    alice, bob = student_a.student, student_b.student
    order: list[str] = []

    def request() -> None:
        writers.mark_urgent()
        try:
            with transaction.atomic():
                Student.objects.filter(pk=bob.pk).update(action_mark="request")
            order.append("request")
        finally:
            connection.close()

    writer = threading.Thread(target=request)

    def store(item: tuple[int, str]) -> int:
        written = _rename(item)
        order.append(item[1])
        if not writer.is_alive() and "request" not in order:
            writer.start()
            while not writers.urgent_waiting():
                threading.Event().wait(0.001)
        return written

    lane = ThreadPoolExecutor(max_workers=1)
    queue = StoreQueue(lane, store)

    async def scenario():
        busy = threading.Event()
        held = lane.submit(busy.wait, 30)
        puts = [asyncio.ensure_future(queue.put((alice.pk, f"Alice {n}"), urgent=True)) for n in (1, 2, 3)]
        await asyncio.sleep(0.05)
        busy.set()
        await asyncio.wrap_future(held)
        return await asyncio.gather(*puts)

    written = asyncio.run(scenario())
    writer.join(5)
    lane.shutdown()
    assert order == ["Alice 1", "request", "Alice 2", "Alice 3"]
    assert written == [1, 1, 2]  # the first alone, then the other two in the next transaction
    assert Student.objects.get(pk=alice.pk).display_name == "Alice 3"
    assert not writers.GATE._held
