"""Whole threads' CPU time, read from another thread, kept once they end."""

from __future__ import annotations

import threading
import time

from app.thread_cpu import ThreadClocks


def _spin(seconds: float, clocks: ThreadClocks | None, go: threading.Event) -> None:
    go.wait()
    started = time.thread_time()
    while time.thread_time() - started < seconds:
        pass
    if clocks is not None:
        clocks.ending()


def test_the_cpu_of_counted_threads_is_summed_and_kept_after_they_end() -> None:
    clocks = ThreadClocks()
    go = threading.Event()
    counted = [threading.Thread(target=_spin, args=(0.15, clocks, go)) for _ in range(2)]
    idle = threading.Thread(target=go.wait)  # counted, but waits: no CPU
    other = threading.Thread(target=_spin, args=(0.15, None, go))  # not counted
    for thread in (*counted, idle, other):
        thread.start()
    for thread in (*counted, idle):
        clocks.add(thread)
    assert clocks.seconds() < 0.05
    go.set()
    for thread in (*counted, idle, other):
        thread.join()
    total = clocks.seconds()
    assert 0.3 <= total < 0.45  # the two spinners' 0.15 s each, nothing of the other
    assert clocks.seconds() == total  # ended: kept as they ended
