"""Feeds: what consumers want of the bus, made on a lane per key, handed over by reference.

Consumers (the panels on screen, a teleop controller, a health monitor, a recorder) hold
interests (``app.station.interests``). The zenoh thread asks :meth:`FeedHub.route` where a
sample goes: a key nobody wants is counted by the subscription and never copied. Each wanted
key has a lane of its own; the light keys' lanes share a few threads, and a heavy key's (a
cloud, a JPEG: anything converted) has a thread of its own, so one slow key never delays
another (``app.station.lane_runner``). On its lane a sample is decoded at most once,
whoever needs it; the newest sample wins for latest values and conversions (at most two per
tick, superseded ones counted as dropped); series and streams see every sample in order.
Results are frozen values in dicts the GUI thread reads at its tick; a version tells whether
anything changed.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from app.bus.keys import key_matches
from app.bus.subscription import RawSample
from app.codec.decode import decode, type_name_of
from app.codec.errors import DecodeError
from app.station.incidents import Incidents
from app.station.interests import (
    Converted,
    ConvertedValue,
    Interest,
    LaneStats,
    Latest,
    LatestValue,
    Series,
    Stream,
)
from app.station.lane import Delivery, ErrorCounter, HealthChecks, Lane, Plan
from app.station.lane_runner import LaneRunner
from app.station.listening import Wanted
from app.station.series import SeriesBuffer
from app.thread_cpu import ThreadClocks

DEFAULT_TICK_S = 1 / 30  # the frame period; newest-wins work runs at most twice in one
LIGHT_LANE_THREADS = 3  # the threads all light keys share (see app.station.lane_runner)


class Consumer:
    """Someone holding interests: a panel host, a controller, a monitor, a recorder. It
    lives until closed, across reconnects (the hub outlives sessions). Stream samples reach
    ``on_sample`` on the key's lane thread; it must not block for long. Raw stream samples
    reach ``on_raw`` on the receiving thread; it must return at once."""

    def __init__(self, hub: FeedHub, name: str,
                 on_sample: Callable[[Delivery], None] | None = None,
                 on_raw: Callable[[RawSample], None] | None = None) -> None:
        self.hub = hub
        self.name = name
        self.on_sample = on_sample
        self.on_raw = on_raw  # a raw stream's samples, on the receiving thread
        self.interests: frozenset[Interest] = frozenset()

    def want(self, interests: Iterable[Interest]) -> None:
        """Replaces what this consumer wants."""
        self.hub._update(self, frozenset(interests))

    def close(self) -> None:
        self.hub._update(self, frozenset(), closing=True)


class _Checker:
    """Decodes, now and then, the newest sample of small keys nobody wants, so their
    decode errors are still counted on their topics."""

    def __init__(self, hub: FeedHub) -> None:
        self._hub = hub
        self._pending: dict[str, RawSample] = {}
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="topic check", daemon=True)
        self._thread.start()
        hub.clocks.add(self._thread)

    def due(self, key: str, size: int) -> bool:
        return self._hub.health_checks.due(key, size, time.monotonic())

    def offer(self, sample: RawSample) -> None:
        with self._cond:
            self._pending[sample.key] = sample
            self._cond.notify()

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify()

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    break
                samples, self._pending = list(self._pending.values()), {}
            for sample in samples:
                try:
                    decode(sample.encoding, sample.payload, sample.attachment)
                except DecodeError as exc:
                    self._hub.count_error(sample.key, exc)
                except Exception as exc:
                    self._hub.incidents.record(f"topic check of {sample.key}", exc)
        self._hub.clocks.ending()


class FeedHub:
    def __init__(self, incidents: Incidents | None = None,
                 count_error: ErrorCounter | None = None,
                 tick_s: float = DEFAULT_TICK_S) -> None:
        self.incidents = incidents or Incidents()
        self._count_error = count_error
        self.tick_s = tick_s
        self.frames = 0
        # Results, read by consumers; each value is frozen and replaced whole.
        self.latest: dict[str, LatestValue] = {}
        self.converted: dict[Converted, ConvertedValue] = {}
        self.series: dict[Series, SeriesBuffer] = {}
        self._consumers: dict[Consumer, frozenset[Interest]] = {}
        self._exact: dict[str, Plan] = {}  # plans of keys named exactly
        self._patterns: tuple[tuple[Consumer, Stream], ...] = ()  # streams on key expressions
        self._raw: tuple[tuple[Consumer, Stream], ...] = ()  # raw streams, on any expression
        self._lanes: dict[str, Lane] = {}
        self.clocks = ThreadClocks()  # the lanes' threads and the topic check's
        self.runner = LaneRunner("lanes", LIGHT_LANE_THREADS, self.clocks)
        self._frame_waiters: set[Lane] = set()  # lanes whose newest sample waits for a frame
        self._waiters_lock = threading.Lock()
        self._routes: dict[tuple[str, str], Callable[[RawSample], None] | None] = {}
        self._lock = threading.RLock()
        self.health_checks = HealthChecks()  # shared by the lanes and the checker
        self._checker = _Checker(self)
        self._closed = False
        self._wake: Callable[[], None] | None = None
        # Told (on the changing thread) whenever what is wanted changes: the station then
        # changes what it listens to.
        self.on_replan: Callable[[], None] | None = None
        self._panels = self.consumer("panels")

    def set_waker(self, wake: Callable[[], None] | None) -> None:
        """What asks the display for a frame now (the window's frame clock)."""
        self._wake = wake

    def wake(self) -> None:
        """A prompt value is ready: ask for a frame (from any thread)."""
        wake = self._wake
        if wake is not None:
            wake()

    # -- consumers -------------------------------------------------------------------------
    def consumer(self, name: str, on_sample: Callable[[Delivery], None] | None = None,
                 on_raw: Callable[[RawSample], None] | None = None) -> Consumer:
        return Consumer(self, name, on_sample, on_raw)

    def set_interests(self, wanted: set[Interest]) -> None:
        """What the panels on screen want (the window's consumer)."""
        self._panels.want(wanted)

    def cpu_s(self) -> float:
        """CPU time of the hub's threads so far: its lanes' and the topic check's."""
        return self.clocks.seconds()

    def lane_stats(self) -> dict[str, LaneStats]:
        with self._lock:
            lanes = list(self._lanes.values())
        return {lane.key: lane.stats() for lane in lanes}

    def frame_taken(self) -> None:
        """The frame clock took this tick's results: lanes holding a newer sample may
        convert it now (so conversions follow the frames, at most one per frame)."""
        self.frames += 1
        with self._waiters_lock:
            waiters, self._frame_waiters = self._frame_waiters, set()
        for lane in waiters:
            lane.frame_taken()

    def waiting_for_frame(self, lane: Lane) -> None:
        with self._waiters_lock:
            self._frame_waiters.add(lane)

    def check(self, sample: RawSample) -> None:
        """Decodes a sample of a key no lane reads, if a health check of it is due."""
        if self._checker.due(sample.key, len(sample.payload)):
            self._checker.offer(sample)

    def count_error(self, key: str, exc: DecodeError) -> None:
        if self._count_error is not None:
            self._count_error(key, exc)

    # -- the zenoh thread --------------------------------------------------------------------
    def route(self, key: str, encoding: str, size: int) -> Callable[[RawSample], None] | None:
        """Where a sample of ``key`` goes; None: nobody wants it (it is not even copied)."""
        target = self._routes.get((key, encoding), _UNKNOWN)
        if target is _UNKNOWN:
            target = self._resolve(key, encoding)
        if target is not None:
            return target
        if self._checker.due(key, size):
            return self._checker.offer
        return None

    def _resolve(self, key: str, encoding: str) -> Callable[[RawSample], None] | None:
        with self._lock:
            if self._closed:
                return None
            try:
                type_name = type_name_of(encoding)
            except DecodeError:
                type_name = ""
            plan = self._plan_for(key, type_name)
            lane = None
            if plan is not None and plan.wants(type_name):
                lane = self._lanes.get(key)
                if lane is None:
                    lane = self._lanes[key] = Lane(key, plan, self, type_name)
                else:  # made when an interest named the key: now its type is known
                    lane.plan, lane.type_name = plan, type_name
            takers = tuple((c.name, c.on_raw) for c, s in self._raw if c.on_raw is not None
                           and key_matches(s.key_expr, key)
                           and (not s.type_name or s.type_name == type_name))
            target = _RawTakers(self, takers, lane) if takers else \
                lane.offer if lane is not None else None
            self._routes[(key, encoding)] = target
            return target

    # -- planning (any thread; the GUI's when panels change) -------------------------------------
    def _update(self, consumer: Consumer, interests: frozenset[Interest],
                closing: bool = False) -> None:
        with self._lock:
            if closing:
                self._consumers.pop(consumer, None)
            elif interests or consumer in self._consumers:
                self._consumers[consumer] = interests
            consumer.interests = interests
            self._replan()
        on_replan = self.on_replan
        if on_replan is not None:
            on_replan()

    def wanted(self) -> Wanted:
        """What the consumers hold now: keys named exactly, and streams on expressions."""
        with self._lock:
            keys = frozenset(k for k, plan in self._exact.items() if not plan.passive_only)
            return Wanted(keys, tuple(s for _, s in (*self._patterns, *self._raw)
                                      if not s.passive))

    def _replan(self) -> None:
        held = [(c, i) for c, interests in self._consumers.items() for i in interests]
        wanted = {i for _, i in held if not isinstance(i, Stream)}
        exact: dict[str, Plan] = {}
        patterns = []
        raw = []
        for consumer, interest in held:
            if isinstance(interest, Stream) and interest.raw:
                raw.append((consumer, interest))
                continue
            if isinstance(interest, Stream):
                if "*" in interest.key_expr or "$" in interest.key_expr:
                    patterns.append((consumer, interest))
                    continue
                plan = exact.get(interest.key_expr, Plan())
                exact[interest.key_expr] = dataclasses.replace(
                    plan, streams=(*plan.streams, (consumer, interest)))
                continue
            plan = exact.get(interest.key, Plan())
            if isinstance(interest, Latest):
                plan = dataclasses.replace(plan, latest=True)
            elif isinstance(interest, Series):
                plan = dataclasses.replace(plan, series=(*plan.series, interest))
                if interest not in self.series:
                    self.series[interest] = SeriesBuffer()
            elif isinstance(interest, Converted):
                plan = dataclasses.replace(plan, converted=(*plan.converted, interest))
            exact[interest.key] = plan
        self._exact, self._patterns, self._raw = exact, tuple(patterns), tuple(raw)
        for interest in [s for s in self.series if s not in wanted]:
            del self.series[interest]
        for interest in [c for c in self.converted if c not in wanted]:
            del self.converted[interest]
        for key in [k for k in self.latest if Latest(k) not in wanted]:
            del self.latest[key]
        for key, lane in list(self._lanes.items()):
            kept = self._plan_for(key, lane.type_name or None)
            if kept is None or not kept.wants(lane.type_name):
                lane.stop()
                del self._lanes[key]
            else:
                lane.plan = kept
        for key in exact:
            if key not in self._lanes:
                self._lanes[key] = Lane(key, exact[key], self)  # streams join at its first sample
        self._routes = {}

    def _plan_for(self, key: str, type_name: str | None = None) -> Plan | None:
        """What ``key`` is wanted for: the interests naming it, and the streams on
        expressions matching it (of its type, once known)."""
        plan = self._exact.get(key)
        matching = tuple(p for p in self._patterns if key_matches(p[1].key_expr, key) and (
            type_name is None or not p[1].type_name or p[1].type_name == type_name))
        if matching:
            plan = dataclasses.replace(plan or Plan(), streams=(*(plan or Plan()).streams,
                                                                 *matching))
        return plan

    def close(self) -> None:
        with self._lock:
            self._closed = True
            lanes, self._lanes, self._routes = list(self._lanes.values()), {}, {}
        for lane in lanes:
            lane.stop()
        self.runner.stop()
        self._checker.stop()
        for lane in lanes:
            lane.join(timeout=2)
        self.runner.join(timeout=2)


class _RawTakers:
    """A key's raw streams, on the receiving thread, then its lane if it has one, else a
    health check when one is due (its samples are copied for the takers anyway)."""

    __slots__ = ("_hub", "_lane", "_takers")

    def __init__(self, hub: FeedHub,
                 takers: tuple[tuple[str, Callable[[RawSample], None]], ...],
                 lane: Lane | None) -> None:
        self._hub, self._takers, self._lane = hub, takers, lane

    def __call__(self, sample: RawSample) -> None:
        for name, take in self._takers:
            try:
                take(sample)
            except Exception as exc:  # the consumer's bug: counted, the others still served
                self._hub.incidents.record(f"{name} on {sample.key}", exc)
        if self._lane is not None:
            self._lane.offer(sample)
        else:
            self._hub.check(sample)


_UNKNOWN: Any = object()

