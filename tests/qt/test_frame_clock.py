"""The frame clock ticks steadily, and early when a worker wakes it — never faster than its
maximum rate, however often it is woken."""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer, Signal, Slot
from pytestqt.qtbot import QtBot

from app.qt.frame_clock import FrameClock


class Relay(QObject):
    """Times a signal from another thread to the GUI thread (queued, as the clock's wake)."""

    ping = Signal(float)

    def __init__(self) -> None:
        super().__init__()
        self.delays: list[float] = []
        self.on_gui_thread = True
        self.ping.connect(self._pinged)

    @Slot(float)
    def _pinged(self, sent: float) -> None:
        self.on_gui_thread &= threading.current_thread() is threading.main_thread()
        self.delays.append(time.monotonic() - sent)


def run_beside(qtbot: QtBot, clock: FrameClock, waker: Callable[[], None], ms: int) -> None:
    """Runs the started clock for ``ms`` while ``waker`` is called over and over on a thread
    of its own (it paces itself)."""
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            waker()

    thread = threading.Thread(target=loop)
    thread.start()
    try:
        qtbot.wait(ms)
    finally:
        stop.set()
        thread.join()
        clock.stop()


def test_a_wake_from_another_thread_ticks_at_once(qtbot: QtBot) -> None:
    ticks: list[float] = []
    clock = FrameClock(lambda: ticks.append(time.monotonic()), hz=2.0)  # steady: every 500 ms
    clock.start()
    try:
        qtbot.wait(50)
        woken_at = time.monotonic()
        threading.Thread(target=clock.wake).start()
        qtbot.waitUntil(lambda: bool(ticks), timeout=400)
        assert ticks[0] - woken_at < 0.1  # not the 500 ms steady tick
    finally:
        clock.stop()


def test_wakes_are_limited_to_the_maximum_rate(qtbot: QtBot) -> None:
    ticks: list[float] = []
    clock = FrameClock(lambda: ticks.append(time.monotonic()), hz=1.0, max_hz=20.0)
    clock.start()

    def flood() -> None:
        clock.wake()
        time.sleep(0.001)

    run_beside(qtbot, clock, flood, 1000)
    assert 10 <= len(ticks) <= 22  # woken ~1000 times in a second, ticked at most 20
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert min(gaps) >= 0.045


def test_a_stopped_clock_ignores_wakes(qtbot: QtBot) -> None:
    ticks: list[float] = []
    clock = FrameClock(lambda: ticks.append(time.monotonic()))
    clock.wake()
    qtbot.wait(100)
    assert ticks == []


def test_no_early_ticks_while_the_steady_ones_come_late(qtbot: QtBot) -> None:
    """A GUI thread that cannot keep its steady ticks (a software-rendered window composed
    for 80 ms every 100 ms) gets no extra ticks from wakes: they would only add load."""
    ticks: list[float] = []
    clock = FrameClock(lambda: ticks.append(time.monotonic()), hz=30.0)
    composer = QTimer()
    composer.timeout.connect(lambda: time.sleep(0.08))
    clock.start()
    composer.start(100)
    try:
        qtbot.waitUntil(clock.behind, timeout=10_000)
        before = len(ticks)
        for _ in range(20):
            clock.wake()
            qtbot.wait(5)
        assert clock.behind()
        flood = ticks[before:]
        # steady ticks only (a period or more apart), none squeezed in by the wakes
        assert min(b - a for a, b in itertools.pairwise(flood)) >= 0.03
    finally:
        composer.stop()
        clock.stop()
    qtbot.wait(1200)  # the loop keeps up again: wakes are served at once
    clock.start()
    try:
        qtbot.wait(200)
        assert not clock.behind()
        count = len(ticks)
        clock.wake()
        qtbot.waitUntil(lambda: len(ticks) > count, timeout=100)
    finally:
        clock.stop()


def test_a_camera_just_slower_than_the_steady_ticks_is_ticked_at_once(qtbot: QtBot) -> None:
    """A 30 fps camera against 30 Hz steady ticks: each frame's wake used to come just after
    the steady tick that followed the last frame's, inside the minimum gap, and a third of
    the frames waited 16 ms more. Frames woken while the clock is behind (a steady tick came
    a period late: a loaded machine) wait for the steady ticks by design and are not
    counted."""
    delays: list[float] = []
    woken: list[tuple[float, bool]] = []  # (when, the clock behind then)

    def tick() -> None:
        if woken and not woken[-1][1]:
            delays.append(time.monotonic() - woken[-1][0])

    clock = FrameClock(tick, hz=30.0)
    # The same run's baseline: how late the GUI thread takes any signal from the camera's
    # thread (a loaded machine delays it, the clock's logic or not).
    relay = Relay()
    plain = relay.delays
    next_at = [time.monotonic()]
    stop = threading.Event()

    def camera() -> None:
        while not stop.is_set():
            next_at[0] += 1 / 29.9
            time.sleep(max(0.0, next_at[0] - time.monotonic()))
            woken.append((time.monotonic(), clock.behind()))
            clock.wake()
            relay.ping.emit(time.monotonic())

    clock.start()
    thread = threading.Thread(target=camera)
    thread.start()
    try:
        qtbot.waitUntil(lambda: len(delays) > 60, timeout=20_000)
    finally:
        stop.set()
        thread.join()
        clock.stop()
    late = [d for d in delays if d > 0.010]
    plain_late = [d for d in plain if d > 0.010]
    assert relay.on_gui_thread and len(plain) > 40
    allowed = 0.1 + len(plain_late) / len(plain)
    assert len(late) < len(delays) * allowed, (sorted(delays)[-10:], sorted(plain)[-10:])
