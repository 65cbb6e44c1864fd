"""nudge.Signal: wakes from other threads reach a waiting coroutine, and a burst of them wakes
the loop once rather than once per wake, however many coroutines of that loop wait."""

from __future__ import annotations

import asyncio
import threading

import pytest

from cluster.broadcast import nudge
from cluster.broadcast.nudge import Signal


def _count_calls(loop: asyncio.AbstractEventLoop) -> list[int]:
    """[the number of call_soon_threadsafe calls on `loop` from now on]"""
    scheduled = [0]
    original = loop.call_soon_threadsafe

    def counting(callback, *args, **kwargs):
        scheduled[0] += 1
        return original(callback, *args, **kwargs)

    loop.call_soon_threadsafe = counting
    return scheduled


def test_a_burst_of_wakes_from_a_thread_wakes_the_loop_once_and_a_later_wake_again():
    async def scenario() -> tuple[int, bool, bool]:
        calls = _count_calls(asyncio.get_running_loop())
        signal = Signal()
        waiter = signal.subscribe("c")
        burst = threading.Thread(target=lambda: [signal.fire("c") for _ in range(500)])
        burst.start()
        burst.join()
        first = await waiter.wait(1)
        threading.Thread(target=signal.fire, args=("c",)).start()  # after the first wake was taken
        second = await waiter.wait(1)
        return calls[0], first, second

    scheduled, first, second = asyncio.run(scenario())
    assert first and second
    assert scheduled == 2


def test_one_wake_of_the_loop_wakes_every_waiter_of_every_key_fired_meanwhile():
    async def scenario() -> tuple[int, list[bool], bool]:
        calls = _count_calls(asyncio.get_running_loop())
        signal = Signal()
        waiters = [signal.subscribe("c") for _ in range(4)] + [signal.subscribe("d")]
        elsewhere = signal.subscribe("e")  # not fired: stays asleep
        burst = threading.Thread(target=lambda: [signal.fire(key) for key in ("c", "d") * 50])
        burst.start()
        burst.join()
        woken = [await waiter.wait(1) for waiter in waiters]
        return calls[0], woken, await elsewhere.wait(0.05)

    scheduled, woken, elsewhere = asyncio.run(scenario())
    assert woken == [True] * 5 and not elsewhere
    assert scheduled == 1


def test_waiters_of_two_loops_are_each_woken_on_their_own_loop():
    signal = Signal()
    ready, results = threading.Barrier(3), {}

    def run(name: str) -> None:
        async def wait() -> bool:
            waiter = signal.subscribe("c")
            ready.wait()
            return await waiter.wait(2)

        results[name] = asyncio.run(wait())

    threads = [threading.Thread(target=run, args=(name,)) for name in ("one", "two")]
    for thread in threads:
        thread.start()
    ready.wait()
    signal.fire("c")
    for thread in threads:
        thread.join(5)
    assert results == {"one": True, "two": True}


def test_a_wait_with_no_wake_times_out():
    async def scenario() -> bool:
        return await Signal().subscribe("c").wait(0.05)

    assert asyncio.run(scenario()) is False


def test_an_event_loop_that_is_gone_leaves_nothing_behind():
    import gc
    import weakref

    signal = Signal()

    async def wait_once() -> asyncio.AbstractEventLoop:
        waiter = signal.subscribe("c")
        threading.Thread(target=signal.fire, args=("c",)).start()
        assert await waiter.wait(1)
        waiter.close()
        return asyncio.get_running_loop()

    gone = weakref.ref(asyncio.run(wait_once()))
    gc.collect()
    assert gone() is None  # the loop's wake-ups did not keep it


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_a_loop_cancelled_as_it_is_woken_stops(turns):
    """A component's loop waits on a Waiter; stop() cancels it. A cancellation that comes just as
    a nudge wakes it must still end the loop (Python 3.11's wait_for returned the wake-up and lost
    the cancellation: the loop ran on and stop() waited for it forever)."""

    async def main() -> bool:
        signal = Signal()
        waiter = signal.subscribe("c")

        async def component() -> None:
            while True:
                await waiter.wait(10.0)

        task = asyncio.create_task(component())
        await asyncio.sleep(0)
        waiter.event.set()
        for _ in range(turns):
            await asyncio.sleep(0)
        return await _ends_cancelled(task)

    assert asyncio.run(main())


async def _ends_cancelled(task: asyncio.Task) -> bool:
    """Cancel `task`; True when it ends cancelled (within 2 s) rather than running on."""
    task.cancel()
    done, _ = await asyncio.wait({task}, timeout=2.0)
    if not done:
        task.cancel()
    return task in done and task.cancelled()


@pytest.mark.parametrize("turns", [0, 1, 2, 3])
def test_a_wait_for_the_next_change_cancelled_as_it_comes_is_cancelled(turns):
    async def main() -> bool:
        async def lull() -> None:
            while True:
                await nudge.next_change("cancel-race", 10.0)

        task = asyncio.create_task(lull())
        await asyncio.sleep(0)
        with nudge.working("cancel-race"):  # a change: the waiting future gets its result
            for _ in range(turns):
                await asyncio.sleep(0)
            return await _ends_cancelled(task)

    assert asyncio.run(main())
