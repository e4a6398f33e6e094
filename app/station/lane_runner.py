"""Threads that serve lanes: a lane with work is handed to a runner, which serves it on one
of its threads (never on two at once, so a lane's samples stay in order).

A thread per key does not scale: at a hundred robots (about 700 keys heard) every sample
woke a thread of its own, and the window's thread waited its turn for the GIL behind them
for most of a second. The light keys of the whole fleet now share a few threads; a heavy key
(an image, a cloud, anything converted) keeps a runner of its own, so a slow conversion
never holds up the others.
"""

from __future__ import annotations

import heapq
import threading
import time
from collections import deque
from itertools import count
from typing import Protocol

from app.thread_cpu import ThreadClocks


class Served(Protocol):
    def serve(self) -> None:
        """Does the work waiting; tells the runner again if more is due."""

    def timer_fired(self, token: int) -> bool:
        """Whether the wait this token belongs to is still on (then it is served)."""


class LaneRunner:
    def __init__(self, name: str, threads: int, clocks: ThreadClocks | None = None) -> None:
        """``clocks``: what counts the CPU time of its threads."""
        self._cond = threading.Condition()
        self._ready: deque[Served] = deque()
        self._timers: list[tuple[float, int, int, Served]] = []  # (due, order, token, lane)
        self._order = count()
        self._stopped = False
        self._threads = [threading.Thread(target=self._run, name=f"{name} {i}", daemon=True)
                         for i in range(threads)]
        self._clocks = clocks
        for thread in self._threads:
            thread.start()
            if clocks is not None:
                clocks.add(thread)

    def ready(self, lane: Served) -> None:
        """Serve ``lane`` as soon as a thread is free."""
        with self._cond:
            self._ready.append(lane)
            self._cond.notify()

    def later(self, lane: Served, due: float, token: int) -> None:
        """Serve ``lane`` at monotonic time ``due``, if the wait ``token`` names is still on."""
        with self._cond:
            heapq.heappush(self._timers, (due, next(self._order), token, lane))
            if self._timers[0][3] is lane:
                self._cond.notify()  # a waiting thread's timeout is now too long

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()

    def join(self, timeout: float) -> None:
        for thread in self._threads:
            if thread is not threading.current_thread():
                thread.join(timeout)

    def _run(self) -> None:
        while (lane := self._next()) is not None:
            lane.serve()
        if self._clocks is not None:
            self._clocks.ending()

    def _next(self) -> Served | None:
        with self._cond:
            while not self._stopped:
                now = time.monotonic()
                while self._timers and self._timers[0][0] <= now:
                    _, _, token, lane = heapq.heappop(self._timers)
                    if lane.timer_fired(token):
                        self._ready.append(lane)
                if self._ready:
                    return self._ready.popleft()
                self._cond.wait(self._timers[0][0] - now if self._timers else None)
            return None
