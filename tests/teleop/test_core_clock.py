"""The command clock: fixed rate, immediate ticks on pokes, real period, lateness."""

from __future__ import annotations

import math
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.teleop.arming import ArmingConfig
from app.teleop.clock import POKE_GAP_S, CommandClock, Schedule, Tick, check_rate


@pytest.mark.parametrize("rate", [0, 4.9, 100.5, math.nan, math.inf, "20", None])
def test_rate_is_validated(rate):
    with pytest.raises(ValueError, match=r"5\.\.100 Hz"):
        check_rate(rate)


def test_schedule_ticks_at_the_rate_and_reports_lateness():
    schedule = Schedule(20.0, now=10.0)
    assert schedule.wake(10.0) == Tick(10.0, 0.0, False, 0.0)  # the first at once
    assert schedule.wake(10.03) is None  # an early wake-up
    assert schedule.wake(10.05) == Tick(10.05, 0.0, False, pytest.approx(0.05))
    late = schedule.wake(10.25)
    assert late is not None and late.lateness == pytest.approx(0.15)
    assert schedule.due == pytest.approx(10.30)  # no burst to catch up


def test_a_poke_ticks_at_once_and_restarts_the_period():
    schedule = Schedule(10.0, now=0.0)
    schedule.wake(0.0)
    schedule.poke()
    assert schedule.next_wake() == pytest.approx(POKE_GAP_S)
    tick = schedule.wake(0.02)
    assert tick == Tick(0.02, 0.0, True, pytest.approx(0.02))
    assert schedule.wake(0.05) is None
    assert schedule.due == pytest.approx(0.12)


def test_pokes_in_a_burst_are_spaced():
    schedule = Schedule(10.0, now=0.0)
    schedule.wake(0.0)
    schedule.poke()
    assert schedule.wake(0.001) is None  # within the gap of the last tick
    assert schedule.wake(POKE_GAP_S) is not None


def test_period_stats_count_periodic_ticks_only():
    schedule = Schedule(50.0, now=0.0)
    now = 0.0
    schedule.wake(now)
    for i in range(100):
        now = schedule.due + (0.004 if i == 50 else 0.0005)
        schedule.wake(now)
    schedule.poke()
    schedule.wake(now + 0.006)
    stats = schedule.stats()
    assert stats.samples == 100
    assert stats.p50 == pytest.approx(0.0205)
    assert stats.max == pytest.approx(0.024)
    assert stats.p99 == pytest.approx(0.0205)  # one outlier in 100 is above p99


def test_set_rate_applies_from_the_last_tick():
    schedule = Schedule(20.0, now=0.0)
    schedule.wake(0.0)
    schedule.set_rate(100.0)
    assert schedule.due == pytest.approx(0.01)
    with pytest.raises(ValueError):
        schedule.set_rate(500.0)


@settings(max_examples=300, deadline=None)
@given(st.floats(5.0, 100.0),
       st.lists(st.tuples(st.floats(0.0, 0.3), st.booleans()), min_size=1, max_size=80))
def test_a_late_tick_always_says_so(rate, wakes):
    """For any jitter of the thread's wake-ups: two ticks further apart than a period plus
    the stall limit are never reported on time (so the machine stops the robot)."""
    limit = ArmingConfig().stall_s
    schedule = Schedule(rate, now=0.0)
    now, last = 0.0, None
    for delay, poke in wakes:
        now += delay
        if poke:
            schedule.poke()
        tick = schedule.wake(now)
        if tick is None:
            assert now < schedule.next_wake()
            continue
        assert tick.lateness >= 0
        if last is not None:
            assert tick.dt == pytest.approx(now - last)
            if tick.dt > schedule.period + limit + 1e-9:
                assert tick.lateness > limit
        last = now


# -- on a real thread -----------------------------------------------------------------
class Recorder:
    def __init__(self) -> None:
        self.ticks: list[Tick] = []
        self.event = threading.Event()

    def __call__(self, tick: Tick) -> None:
        self.ticks.append(tick)
        self.event.set()


def test_thread_ticks_at_the_rate():
    recorder = Recorder()
    clock = CommandClock(recorder, rate_hz=50.0)
    started = time.monotonic()
    clock.start()
    try:
        time.sleep(0.6)
    finally:
        clock.stop()
    periods = (time.monotonic() - started) * 50.0  # a busy machine oversleeps: count on it
    assert not clock.running
    # one tick at once, then one a period; late ones are not caught up in a burst
    assert periods - 10 <= len(recorder.ticks) <= periods + 2
    assert all(t.now > 0 for t in recorder.ticks)
    stats = clock.stats()
    assert stats.samples >= 15
    assert stats.p50 == pytest.approx(0.02, abs=0.005)
    assert stats.max is not None and stats.max >= stats.p99 >= stats.p50  # type: ignore[operator]
    assert threading.current_thread() is threading.main_thread()


def test_thread_ticks_at_once_when_poked():
    recorder = Recorder()
    clock = CommandClock(recorder, rate_hz=5.0)
    clock.start()
    try:
        assert recorder.event.wait(1.0)  # the first tick
        time.sleep(0.05)
        recorder.event.clear()
        poked_at = time.monotonic()
        clock.poke()
        assert recorder.event.wait(1.0)
        reaction = time.monotonic() - poked_at
    finally:
        clock.stop()
    assert recorder.ticks[-1].poked
    assert reaction < 0.1  # a periodic tick would have been ~150 ms away


def test_a_poke_from_an_input_thread_ticks_on_that_thread_and_never_beside_another_tick():
    threads: list[str] = []
    running = threading.Lock()
    overlaps: list[Tick] = []
    gate = threading.Event()

    def handler(tick: Tick) -> None:
        if not running.acquire(blocking=False):
            overlaps.append(tick)
            return
        try:
            threads.append(threading.current_thread().name)
            if not tick.poked:
                gate.wait(2.0)  # a slow periodic tick: a poke now must not run beside it
        finally:
            running.release()

    clock = CommandClock(handler, rate_hz=5.0)
    clock.start()
    try:
        while not threads:
            time.sleep(0.005)
        clock.poke(here=True)  # the first tick (periodic) still runs: handed to the clock
        gate.set()
        deadline = time.monotonic() + 2.0
        while len(threads) < 2 and time.monotonic() < deadline:
            time.sleep(0.005)
        here = threading.current_thread().name
        ran_here = False
        while not ran_here and time.monotonic() < deadline:  # once POKE_GAP_S has passed:
            before = len(threads)
            clock.poke(here=True)  # nothing running, due: on this thread, done on return
            ran_here = threads[before:before + 1] == [here]
    finally:
        clock.stop()
    assert threads[0] == threads[1] == "teleop-clock"
    assert ran_here
    assert not overlaps


def test_thread_survives_a_failing_handler():
    calls = []

    def handler(tick: Tick) -> None:
        calls.append(tick)
        if len(calls) == 1:
            raise RuntimeError("adapter broke")

    clock = CommandClock(handler, rate_hz=100.0)
    clock.start()
    try:
        deadline = time.monotonic() + 2.0
        while len(calls) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        clock.stop()
    assert len(calls) >= 3 and clock.errors == 1


def test_stalled_handler_makes_the_next_tick_late():
    recorder = Recorder()

    def handler(tick: Tick) -> None:
        recorder(tick)
        if len(recorder.ticks) == 2:
            time.sleep(0.2)  # the app stalls (GIL hog, a blocked call)

    clock = CommandClock(handler, rate_hz=20.0)
    clock.start()
    try:
        deadline = time.monotonic() + 2.0
        while len(recorder.ticks) < 3 and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        clock.stop()
    assert recorder.ticks[2].lateness > ArmingConfig().stall_s
