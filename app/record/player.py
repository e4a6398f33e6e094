"""Plays a log by its own clock: play, pause, step, seek, speed and loop.

Qt-free. A thread walks the log's samples in log-time order and hands each to ``deliver``
when the log clock reaches it; liveliness events go to ``on_liveliness`` the same way. A
seek hands over the newest sample of each key at or before the new position (so a camera
shows the frame there at once) and the robots' presence at that moment.
"""

from __future__ import annotations

import bisect
import dataclasses
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from app.record.format import LivelinessEvent, LoggedSample
from app.record.reader import LogReader

SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
MIN_SPEED, MAX_SPEED = SPEEDS[0], SPEEDS[-1]
STEP_NS = 100_000_000  # one step plays the next 0.1 s of the log, then pauses
SEEK_LOOKBACK_NS = 10_000_000_000  # a seek shows what each key last said within this
OPENING_NS = 250_000_000  # presence heard this early holds from the start (see below)
IDLE_WAIT_S = 0.02  # the longest the thread sleeps before looking at its commands again


@dataclass(frozen=True)
class PlayerState:
    start_ns: int
    end_ns: int
    position_ns: int
    playing: bool
    speed: float
    loop: bool
    finished: bool  # reached the end (not looping)

    @property
    def fraction(self) -> float:
        span = self.end_ns - self.start_ns
        return (self.position_ns - self.start_ns) / span if span > 0 else 0.0


class LogPlayer:
    def __init__(self, reader: LogReader, deliver: Callable[[LoggedSample], None],
                 on_liveliness: Callable[[LivelinessEvent], None],
                 on_error: Callable[[str, Exception], None] | None = None) -> None:
        self.reader = reader
        self._deliver = deliver
        self._on_liveliness = on_liveliness
        self._on_error = on_error
        firsts = [c.first_ns for c in reader.channels() if not c.key.endswith("/catalog")]
        self._events = _alive_from_first_sample(reader)
        self._event_times = [e.log_time_ns for e in self._events]
        # Presence written before the first sample (a recording's head of presence and
        # catalogs) holds from the start.
        self._head_end = min(firsts) if firsts else reader.start_ns
        self._lock = threading.Condition()
        self._position = reader.start_ns
        self._playing = False
        self._speed = 1.0
        self._loop = False
        self._finished = False
        self._seek_to: int | None = reader.start_ns
        self._step_to: int | None = None
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="log player", daemon=True)
        self._thread.start()

    # -- commands (any thread) ---------------------------------------------------------------
    def state(self) -> PlayerState:
        with self._lock:
            return PlayerState(self.reader.start_ns, self.reader.end_ns, self._position,
                               self._playing, self._speed, self._loop, self._finished)

    def play(self) -> None:
        with self._lock:
            if self._finished:
                self._seek_to = self.reader.start_ns
            self._playing, self._step_to = True, None
            self._lock.notify_all()

    def pause(self) -> None:
        with self._lock:
            self._playing = False
            self._lock.notify_all()

    def toggle(self) -> None:
        if self.state().playing:
            self.pause()
        else:
            self.play()

    def step(self) -> None:
        """Plays the next 0.1 s of the log, then pauses."""
        with self._lock:
            self._playing = False
            self._step_to = min(self._position + STEP_NS, self.reader.end_ns)
            self._lock.notify_all()

    def seek(self, position_ns: int) -> None:
        with self._lock:
            self._seek_to = min(max(int(position_ns), self.reader.start_ns), self.reader.end_ns)
            self._lock.notify_all()

    def seek_fraction(self, fraction: float) -> None:
        span = self.reader.end_ns - self.reader.start_ns
        self.seek(self.reader.start_ns + round(span * min(max(fraction, 0.0), 1.0)))

    def set_speed(self, speed: float) -> None:
        with self._lock:
            self._speed = min(max(float(speed), MIN_SPEED), MAX_SPEED)
            self._lock.notify_all()

    def set_loop(self, loop: bool) -> None:
        with self._lock:
            self._loop = bool(loop)

    def close(self, timeout: float = 5.0) -> None:
        with self._lock:
            self._stop = True
            self._lock.notify_all()
        self._thread.join(timeout)
        self.reader.close()

    # -- the playing thread ------------------------------------------------------------------
    def _run(self) -> None:
        samples: Iterator[LoggedSample] = iter(())
        pending: LoggedSample | None = None
        next_event = 0
        anchor_log, anchor_wall = self._position, time.monotonic()
        while True:
            with self._lock:
                if self._stop:
                    return
                seek, self._seek_to = self._seek_to, None
                step_to = self._step_to
                playing, speed = self._playing, self._speed
            if seek is not None:
                samples, next_event = self._jump(seek)
                pending = None
                anchor_log, anchor_wall = seek, time.monotonic()
                continue
            if playing:
                target = anchor_log + int((time.monotonic() - anchor_wall) * speed * 1e9)
            elif step_to is not None:
                target = step_to
            else:
                with self._lock:
                    if not self._stop and self._seek_to is None and not self._playing \
                            and self._step_to is None:
                        self._lock.wait()
                anchor_log, anchor_wall = self._position, time.monotonic()
                continue
            target = min(target, self.reader.end_ns)
            pending, next_event, exhausted = self._play_until(target, samples, pending,
                                                              next_event)
            with self._lock:
                if self._seek_to is not None:
                    continue  # a seek came while playing: it wins over this position
                self._position = target
                if step_to is not None and self._step_to == step_to:
                    self._step_to = None
                if target >= self.reader.end_ns and exhausted:
                    if self._loop and self._playing:
                        self._seek_to = self.reader.start_ns
                    else:
                        self._playing, self._finished = False, True
                    continue
                if self._playing and (self._speed != speed):
                    anchor_log, anchor_wall = target, time.monotonic()  # a new speed
                if self._playing:
                    self._lock.wait(self._sleep_s(pending, next_event, target, speed))

    def _sleep_s(self, pending: LoggedSample | None, next_event: int, now_ns: int,
                 speed: float) -> float:
        upcoming = [t for t in (pending.log_time_ns if pending is not None else None,
                                self._event_times[next_event]
                                if next_event < len(self._events) else None) if t is not None]
        if not upcoming:
            return IDLE_WAIT_S
        return min(max(0.0, (min(upcoming) - now_ns) / 1e9 / speed), IDLE_WAIT_S)

    def _jump(self, position: int) -> tuple[Iterator[LoggedSample], int]:
        """Shows the log as it stood at ``position`` and returns where to go on from."""
        with self._lock:
            self._position, self._finished = position, False
        next_event = bisect.bisect_right(self._event_times, max(position, self._head_end))
        alive: dict[str, LivelinessEvent] = {}
        for event in self._events[:next_event]:
            alive[event.key] = event
        for event in alive.values():
            self._guarded("presence", self._on_liveliness, event)
        try:
            newest = self.reader.latest_before(position, SEEK_LOOKBACK_NS)
        except Exception as exc:  # a damaged part of the file: say so, play on
            self._report("seeking", exc)
            newest = []
        for sample in sorted(newest, key=lambda s: s.log_time_ns):
            self._guarded(sample.key, self._deliver, sample)
        return self.reader.samples(start_ns=position + 1), next_event

    def _play_until(self, target: int, samples: Iterator[LoggedSample],
                    pending: LoggedSample | None,
                    next_event: int) -> tuple[LoggedSample | None, int, bool]:
        """Hands over every sample and event up to ``target``; (the next sample not yet due,
        the next event's index, whether the samples ran out)."""
        while True:
            if pending is None:
                try:
                    pending = next(samples, None)
                except Exception as exc:
                    self._report("reading the log", exc)
                    pending = None
                if pending is None:
                    while next_event < len(self._events) and \
                            self._event_times[next_event] <= target:
                        self._guarded("presence", self._on_liveliness, self._events[next_event])
                        next_event += 1
                    return None, next_event, True
            while next_event < len(self._events) and \
                    self._event_times[next_event] <= min(target, pending.log_time_ns):
                self._guarded("presence", self._on_liveliness, self._events[next_event])
                next_event += 1
            if pending.log_time_ns > target:
                return pending, next_event, False
            self._guarded(pending.key, self._deliver, pending)
            pending = None

    def _guarded(self, what: str, work: Callable[..., None], *args: object) -> None:
        try:
            work(*args)
        except Exception as exc:  # one bad sample must not stop the log
            self._report(what, exc)

    def _report(self, what: str, exc: Exception) -> None:
        if self._on_error is not None:
            self._on_error(f"playback: {what}", exc)


def _alive_from_first_sample(reader: LogReader) -> list[LivelinessEvent]:
    """The log's presence events by time, a robot's first one moved back when it says
    alive: to its first sample when that came earlier (the robot was publishing, so alive,
    before the recorder heard of its token), and to the log's start when that is in the
    log's first quarter second (a recording begun while the station was still meeting its robots:
    the samples of one robot may come a millisecond before the others' presence, and the
    log played from its start showed those robots offline)."""
    events = sorted(reader.liveliness(), key=lambda e: e.log_time_ns)
    seen: set[str] = set()
    moved = []
    for event in events:
        if event.alive and event.key not in seen:
            first = min((c.first_ns for c in reader.channels()
                         if c.key.startswith(event.key + "/") and not c.key.endswith("/catalog")),
                        default=event.log_time_ns)
            at = min(first, event.log_time_ns)
            if at - reader.start_ns <= OPENING_NS:
                at = reader.start_ns
            event = dataclasses.replace(event, log_time_ns=at)
        seen.add(event.key)
        moved.append(event)
    return sorted(moved, key=lambda e: e.log_time_ns)

