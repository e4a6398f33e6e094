"""Stop bursts: a robot's stops spread over one command period, on a thread of their own.

A switch of robots happens on the GUI thread, which must not wait a period for the old
robot's stops; a burst sent back to back is dropped together by one moment of congestion.
:class:`StopBursts` takes a burst at once and sends its stops ``period / count`` apart (the
first at once; after a late wake the next waits at least half that); bursts for several
robots run side by side. :meth:`StopBursts.flush` waits
until every burst asked for so far has been handed to zenoh (before a reconnect).
"""

from __future__ import annotations

import heapq
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from app.priority import keep_prompt
from app.teleop.adapters import OutputAdapter

log = logging.getLogger(__name__)


@dataclass(order=True)
class _Due:
    at: float  # time.monotonic() of the next stop
    order: int
    adapter: OutputAdapter = field(compare=False)
    left: int = field(compare=False)
    gap_s: float = field(compare=False)


class StopBursts:
    """``send(adapter)`` puts one stop of ``adapter``'s robot on the wire (its own thread
    safety is the caller's); a failure is logged and the burst goes on."""

    def __init__(self, send: Callable[[OutputAdapter], object],
                 clock: Callable[[], float] = time.monotonic) -> None:
        self._send = send
        self._clock = clock
        self._cond = threading.Condition()
        self._due: list[_Due] = []
        self._order = itertools.count()
        self._in_hand = 0  # stops taken off the queue and not yet handed to zenoh
        self._closing = False
        self._thread = threading.Thread(target=self._run, name="teleop-stops", daemon=True)
        self._thread.start()

    def burst(self, adapter: OutputAdapter, count: int, period_s: float) -> None:
        """``count`` stops of ``adapter``, the first now, spread over ``period_s``."""
        with self._cond:
            heapq.heappush(self._due, _Due(self._clock(), next(self._order), adapter, count,
                                           period_s / count))
            self._cond.notify_all()

    def flush(self, timeout: float = 1.0) -> bool:
        """Waits until every burst asked for has been handed to zenoh; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: not self._due and not self._in_hand, timeout)

    def close(self, timeout: float = 2.0) -> None:
        """Sends what is left on its schedule (a burst ends within one period: stops sent
        back to back would be lost together), then ends the thread."""
        with self._cond:
            self._closing = True
            self._cond.notify_all()
        self._thread.join(timeout)

    def _run(self) -> None:
        keep_prompt()
        while True:
            with self._cond:
                due = self._next()
                if due is None:
                    return
                self._in_hand += 1
            try:
                self._send(due.adapter)
            except Exception:
                log.exception("teleop stop failed")
            sent = self._clock()
            with self._cond:
                self._in_hand -= 1
                due.left -= 1
                if due.left > 0:
                    # a late wake keeps the schedule but never sends the next at its heels
                    due.at = max(due.at + due.gap_s, sent + due.gap_s / 2)
                    heapq.heappush(self._due, due)
                self._cond.notify_all()

    def _next(self) -> _Due | None:
        """The next stop when it is due (under the lock); None once closed and empty."""
        while True:
            if not self._due:
                if self._closing:
                    return None
                self._cond.wait()
                continue
            wait = self._due[0].at - self._clock()
            if wait > 0:
                self._cond.wait(wait)
                continue
            return heapq.heappop(self._due)
