"""broadcast.Signal: wakes from other threads reach a waiting coroutine, and a burst of them wakes
the loop once rather than once per wake."""

from __future__ import annotations

import asyncio
import threading

from cluster.broadcast import Signal


def test_a_burst_of_wakes_from_a_thread_wakes_the_loop_once_and_a_later_wake_again():
    async def scenario() -> tuple[int, bool, bool]:
        loop = asyncio.get_running_loop()
        scheduled = 0
        original = loop.call_soon_threadsafe

        def counting(callback, *args, **kwargs):
            nonlocal scheduled
            scheduled += 1
            return original(callback, *args, **kwargs)

        loop.call_soon_threadsafe = counting
        signal = Signal()
        waiter = signal.subscribe("c")
        burst = threading.Thread(target=lambda: [signal.fire("c") for _ in range(500)])
        burst.start()
        burst.join()
        first = await waiter.wait(1)
        threading.Thread(target=signal.fire, args=("c",)).start()  # after the first wake was taken
        second = await waiter.wait(1)
        return scheduled, first, second

    scheduled, first, second = asyncio.run(scenario())
    assert first and second
    assert scheduled == 2


def test_a_wait_with_no_wake_times_out():
    async def scenario() -> bool:
        return await Signal().subscribe("c").wait(0.05)

    assert asyncio.run(scenario()) is False
