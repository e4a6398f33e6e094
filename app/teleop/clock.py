"""The command clock: a thread of its own that ticks at a fixed rate, and at once when
poked (an input changed), measuring its real period and how late each tick is.

:class:`Schedule` is the pure part (when the next tick is due, what a wake-up at ``now``
means, the period statistics), testable with a fake time; :class:`CommandClock` runs it
on a thread with ``Event.wait`` and deadlines from ``time.monotonic``. Every tick resets
the period, so a poke is followed by a full period; a tick later than its due time
reports the lateness (the arming machine stops the robot when it is too late: the app
stalled).
"""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from app.priority import keep_prompt

log = logging.getLogger(__name__)

DEFAULT_RATE_HZ = 20.0
RATE_MIN_HZ = 5.0  # slower would let a robot's own 0.5 s watchdog fire between commands
RATE_MAX_HZ = 100.0
POKE_GAP_S = 0.005  # pokes closer than this to the last tick wait for it (200 Hz at most)
STATS_WINDOW = 200


def check_rate(rate_hz: float) -> float:
    if not (isinstance(rate_hz, (int, float)) and RATE_MIN_HZ <= rate_hz <= RATE_MAX_HZ):
        raise ValueError(f"command rate must be {RATE_MIN_HZ:g}..{RATE_MAX_HZ:g} Hz, "
                         f"got {rate_hz!r}")
    return float(rate_hz)


@dataclass(frozen=True)
class Tick:
    now: float  # time.monotonic() of the tick
    lateness: float  # s past the tick's due time (0 when on time)
    poked: bool  # an input change asked for it
    dt: float  # s since the previous tick (0 for the first)


@dataclass(frozen=True)
class PeriodStats:
    """The real period between periodic ticks over the last ``samples`` of them, s."""

    p50: float | None = None
    p99: float | None = None
    max: float | None = None
    samples: int = 0


def _percentile(ordered: list[float], fraction: float) -> float:
    return ordered[min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1)]


class Schedule:
    """When ticks are due; pure (the caller says what time it is)."""

    def __init__(self, rate_hz: float, now: float, window: int = STATS_WINDOW) -> None:
        self.period = 1.0 / check_rate(rate_hz)
        self.due = now  # the first tick at once
        self.last: float | None = None
        self.poked = False
        self._periods: deque[float] = deque(maxlen=window)

    def set_rate(self, rate_hz: float) -> None:
        self.period = 1.0 / check_rate(rate_hz)
        if self.last is not None:
            self.due = self.last + self.period
        self._periods.clear()

    def poke(self) -> None:
        self.poked = True

    def next_wake(self) -> float:
        if self.poked and self.last is not None:
            return min(self.due, self.last + POKE_GAP_S)
        return self.due if not self.poked else -math.inf

    def wake(self, now: float) -> Tick | None:
        """The tick to run at ``now``, or None when none is due (an early wake-up)."""
        if now < self.next_wake():
            return None
        periodic = now >= self.due
        lateness = max(0.0, now - self.due)
        dt = 0.0 if self.last is None else max(0.0, now - self.last)
        if periodic and self.last is not None:
            self._periods.append(dt)
        tick = Tick(now, lateness, self.poked and not periodic, dt)
        self.last, self.poked = now, False
        self.due = now + self.period
        return tick

    def stats(self) -> PeriodStats:
        ordered = sorted(self._periods)
        if not ordered:
            return PeriodStats()
        return PeriodStats(_percentile(ordered, 0.5), _percentile(ordered, 0.99),
                           ordered[-1], len(ordered))


class CommandClock:
    """Calls ``on_tick(tick)`` on its own thread; never call it from the GUI thread's
    hot path (``poke`` only sets an event)."""

    def __init__(self, on_tick: Callable[[Tick], object], rate_hz: float = DEFAULT_RATE_HZ,
                 *, clock: Callable[[], float] = time.monotonic,
                 window: int = STATS_WINDOW) -> None:
        self._on_tick = on_tick
        self._clock = clock
        self._lock = threading.Lock()
        self._schedule = Schedule(rate_hz, clock(), window)
        self._wake = threading.Event()
        self._ticking = threading.Lock()  # one tick at a time, in the order they were due
        self._stopping = False
        self._thread: threading.Thread | None = None
        self.errors = 0  # ticks whose handler raised (logged, counted, survived)

    @property
    def rate_hz(self) -> float:
        return 1.0 / self._schedule.period

    def set_rate(self, rate_hz: float) -> None:
        with self._lock:
            self._schedule.set_rate(rate_hz)
        self._wake.set()

    def poke(self, *, here: bool = False) -> None:
        """A tick now (at most POKE_GAP_S after the last one), from any thread. ``here``
        runs it on the calling thread when it is due and no tick is running: an input
        device's own thread saves the hand-over to the clock's (never the GUI's)."""
        with self._lock:
            self._schedule.poke()
        if here and self._thread is not None and self._ticking.acquire(blocking=False):
            try:
                self._tick_if_due()
            finally:
                self._ticking.release()
        self._wake.set()

    def stats(self) -> PeriodStats:
        with self._lock:
            return self._schedule.stats()

    def start(self) -> None:
        if self._thread is not None:
            return
        self._stopping = False
        with self._lock:
            self._schedule.due = self._clock()
        self._thread = threading.Thread(target=self._run, name="teleop-clock", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        keep_prompt()  # commands and their stop: never behind the renderer or the decoders
        while not self._stopping:
            with self._lock:
                wait = self._schedule.next_wake() - self._clock()
            if wait > 0:
                self._wake.wait(wait)
            self._wake.clear()
            if self._stopping:
                break
            with self._ticking:
                self._tick_if_due()

    def _tick_if_due(self) -> None:
        """Runs the tick due now, if any (``_ticking`` held)."""
        with self._lock:
            tick = self._schedule.wake(self._clock())
        if tick is None or self._stopping:
            return
        try:
            self._on_tick(tick)
        except Exception:
            self.errors += 1
            log.exception("teleop tick failed")
