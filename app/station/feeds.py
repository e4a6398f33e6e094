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

import contextlib
import dataclasses
import functools
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from app.bus.keys import key_matches
from app.bus.subscription import RawSample
from app.codec.decode import DecodedMessage, decode, type_name_of
from app.codec.errors import DecodeError
from app.codec.fields import items_budget, plain
from app.codec.stamps import best_time
from app.convert.registry import ConversionError, UnknownConverter, get_converter
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
from app.station.lane_runner import LaneRunner
from app.station.listening import Wanted, is_heavy
from app.station.series import SeriesBuffer
from app.station.series_points import append_points

INSPECT_MAX_LIST = 16
PENDING_PER_KEY = 4096  # samples waiting for a series or stream on one lane...
PENDING_BYTES = 64 * 1024 * 1024  # ...and their bytes: a cloud key's backlog stays bounded
DEFAULT_TICK_S = 1 / 30  # the frame period; newest-wins work runs at most twice in one
CHECK_MAX_BYTES = 64 * 1024  # unwanted keys this small are still checked for decode errors
CHECK_PERIOD_S = 0.5  # ...at most this often per key

LIGHT_LANE_THREADS = 3  # the threads all light keys share (see app.station.lane_runner)
_IDLE, _READY, _WAITING = range(3)  # a lane's states

ErrorCounter = Callable[[str, DecodeError], None]


class Delivery:
    """One sample on its lane; decoded at most once, whoever asks first."""

    __slots__ = ("_count_error", "_result", "sample", "superseded")

    def __init__(self, sample: RawSample, count_error: ErrorCounter,
                 superseded: bool = False) -> None:
        self.sample = sample
        # A newer sample of this key was already waiting when this one was handed over: a
        # stream consumer that needs only the newest (a still camera image) may skip it.
        self.superseded = superseded
        self._count_error = count_error
        self._result: DecodedMessage | DecodeError | None = None

    @property
    def type_name(self) -> str:
        try:
            return type_name_of(self.sample.encoding)
        except DecodeError:
            return ""

    def message(self) -> DecodedMessage:
        """The decoded message; raises (and has counted on its topic) a DecodeError."""
        if self._result is None:
            try:
                self._result = decode(self.sample.encoding, self.sample.payload,
                                      self.sample.attachment)
            except DecodeError as exc:
                self._result = exc
                self._count_error(self.sample.key, exc)
        if isinstance(self._result, DecodeError):
            raise self._result
        return self._result


class Consumer:
    """Someone holding interests: a panel host, a controller, a monitor, a recorder. It
    lives until closed, across reconnects (the hub outlives sessions). Stream samples reach
    ``on_sample`` on the key's lane thread; it must not block for long."""

    def __init__(self, hub: FeedHub, name: str,
                 on_sample: Callable[[Delivery], None] | None = None) -> None:
        self.hub = hub
        self.name = name
        self.on_sample = on_sample
        self.interests: frozenset[Interest] = frozenset()

    def want(self, interests: Iterable[Interest]) -> None:
        """Replaces what this consumer wants."""
        self.hub._update(self, frozenset(interests))

    def close(self) -> None:
        self.hub._update(self, frozenset(), closing=True)


@dataclass(frozen=True)
class _Plan:
    """What one key's lane serves; replaced whole, never changed."""

    latest: bool = False
    series: tuple[Series, ...] = ()
    converted: tuple[Converted, ...] = ()
    streams: tuple[tuple[Consumer, Stream], ...] = ()

    @property
    def newest(self) -> bool:
        return self.latest or bool(self.converted)

    @property
    def every(self) -> bool:
        return bool(self.series or self.streams)

    def wants(self, type_name: str) -> bool:
        return self.newest or bool(self.series) or any(
            not s.type_name or s.type_name == type_name for _, s in self.streams)

    @property
    def passive_only(self) -> bool:
        """Only passive streams hold this key: it is served if heard, never listened for."""
        return not (self.newest or self.series) and all(s.passive for _, s in self.streams)


class Lane:
    """One key's work: its samples in order, its newest sample, served by a runner."""

    def __init__(self, key: str, plan: _Plan, hub: FeedHub, type_name: str = "") -> None:
        self.key = key
        self.plan = plan
        self.type_name = type_name  # of the sample that made the lane, if one did
        self._hub = hub
        self._lock = threading.Lock()
        self._queue: deque[RawSample] = deque()
        self._queued_bytes = 0
        self._newest: RawSample | None = None
        self._next_at = 0.0
        self._frame_at = -1  # the hub's frame count when this lane last published
        self._checked_at = 0.0  # arrival of the last sample decoded only to check it
        self._stopped = False
        # IDLE: nothing to do; READY: handed to a runner (or being served); WAITING: its
        # newest sample waits for the next frame or half a tick (a timer with this token).
        self._state = _IDLE
        self._token = 0
        self._runner: LaneRunner | None = None  # the one serving it since it left IDLE
        self._own: LaneRunner | None = None  # a heavy lane's own thread
        self.done = self.dropped = self.errors = 0
        self.busy_s = 0.0

    # -- the zenoh thread ------------------------------------------------------------------
    def offer(self, sample: RawSample) -> None:
        plan = self.plan
        with self._lock:
            if plan.every:
                self._queue.append(sample)
                self._queued_bytes += _size(sample)
                while len(self._queue) > PENDING_PER_KEY or (
                        self._queued_bytes > PENDING_BYTES and len(self._queue) > 1):
                    self._queued_bytes -= _size(self._queue.popleft())
                    self.dropped += 1
            if plan.newest:
                if self._newest is not None and not plan.every:
                    self.dropped += 1  # superseded before its turn
                self._newest = sample
            hand_over = self._schedule(time.monotonic())
        if hand_over is not None:
            hand_over()

    def frame_taken(self) -> None:
        with self._lock:
            hand_over = self._schedule(time.monotonic()) if self._state == _WAITING else None
        if hand_over is not None:
            hand_over()

    def _schedule(self, now: float) -> Callable[[], None] | None:
        """What hands this lane to a runner, if it has work and none holds it yet (called
        holding the lock; the caller hands it over after letting go)."""
        if self._stopped or self._state == _READY:
            return None
        if self._due(now):
            runner = self._runner_now()
            self._state = _READY
            return functools.partial(runner.ready, self)
        if self._newest is not None and self._state == _IDLE:
            runner = self._runner_now()
            self._state, self._token = _WAITING, self._token + 1
            return functools.partial(self._wait_for_frame, runner, self._next_at, self._token)
        return None

    def _wait_for_frame(self, runner: LaneRunner, due: float, token: int) -> None:
        self._hub.waiting_for_frame(self)
        runner.later(self, due, token)

    def _due(self, now: float) -> bool:
        return bool(self._queue) or self._newest_due(now)

    def _newest_due(self, now: float) -> bool:
        # Newest-wins work runs once the consumers took the last result (a frame went by),
        # else half a tick after the last: a sample that comes just after a conversion still
        # makes the next frame (waiting for the frame itself would show it a frame late), and
        # conversions stay within two per frame.
        return self._newest is not None and (
            now >= self._next_at or self._hub.frames != self._frame_at)

    def _runner_now(self) -> LaneRunner:
        """The runner of a lane leaving IDLE: the shared one, or a heavy lane's own."""
        if self._state != _IDLE and self._runner is not None:
            return self._runner
        if not (self.plan.converted or is_heavy(self.type_name)):
            self._runner = self._hub.runner
        else:
            if self._own is None:
                self._own = LaneRunner(f"lane {self.key}", 1)
            self._runner = self._own
        return self._runner

    # -- a runner's thread -------------------------------------------------------------------
    def serve(self) -> None:
        with self._lock:
            if self._stopped:
                return
            batch, newest = self._take(time.monotonic())
            plan = self.plan
        if batch or newest is not None:
            started = time.thread_time()
            try:
                self._work(plan, batch, newest)
            except Exception as exc:  # a bug must not end the lane: log, count, go on
                self.errors += 1
                self._hub.incidents.record(f"lane {self.key}", exc)
            self.busy_s += time.thread_time() - started
        with self._lock:
            self._state = _IDLE
            hand_over = self._schedule(time.monotonic())
        if hand_over is not None:
            hand_over()

    def timer_fired(self, token: int) -> bool:
        with self._lock:
            if self._state != _WAITING or token != self._token or self._stopped:
                return False
            self._state = _READY
            return True

    def _take(self, now: float) -> tuple[list[RawSample], RawSample | None]:
        batch = list(self._queue)
        self._queue.clear()
        self._queued_bytes = 0
        newest = None
        if self._newest_due(now):
            newest, self._newest = self._newest, None
            self._next_at = now + self._hub.tick_s / 2
            self._frame_at = self._hub.frames
        return batch, newest

    def stop(self) -> None:
        with self._lock:
            self._stopped = True
            own = self._own
        if own is not None:
            own.stop()

    def join(self, timeout: float) -> None:
        if self._own is not None:
            self._own.join(timeout)

    def stats(self) -> LaneStats:
        return LaneStats(self.key, self.done, self.dropped, self.errors, self.busy_s)

    def _work(self, plan: _Plan, batch: list[RawSample], newest: RawSample | None) -> None:
        last = len(batch) - 1
        deliveries = [Delivery(s, self._hub.count_error, i < last) for i, s in enumerate(batch)]
        for delivery in deliveries:
            self._every(plan, delivery)
        if newest is not None:
            delivery = next((d for d in deliveries if d.sample is newest), None) \
                or Delivery(newest, self._hub.count_error)
            if plan.latest:
                self._publish_latest(delivery)
            for interest in plan.converted:
                self._publish_converted(interest, delivery)
        self.done += len(batch)
        if newest is not None and all(sample is not newest for sample in batch):
            self.done += 1
    def _every(self, plan: _Plan, delivery: Delivery) -> None:
        if plan.series:
            self._append_series(plan.series, delivery)
        elif not plan.newest:
            self._check(delivery)
        for consumer, stream in plan.streams:
            if stream.type_name and stream.type_name != delivery.type_name:
                continue
            if consumer.on_sample is None:
                continue
            try:
                consumer.on_sample(delivery)
            except Exception as exc:  # the consumer's bug: counted, the lane goes on
                self.errors += 1
                self._hub.incidents.record(f"{consumer.name} on {self.key}", exc)

    def _check(self, delivery: Delivery) -> None:
        """A key only streamed (recorded, say) is read by nobody here: its small samples are
        still decoded now and then, so its topic shows decode errors as an unwanted key's
        does (a consumer that decoded it already leaves nothing to do)."""
        sample = delivery.sample
        if _size(sample) > CHECK_MAX_BYTES or sample.arrival - self._checked_at < \
                CHECK_PERIOD_S:
            return
        self._checked_at = sample.arrival
        with contextlib.suppress(DecodeError):  # counted on its topic by the delivery
            delivery.message()

    def _append_series(self, wanted: tuple[Series, ...], delivery: Delivery) -> None:
        targets = [(s.path, buffer) for s in wanted
                   if (buffer := self._hub.series.get(s)) is not None]
        sample = delivery.sample
        append_points(targets, delivery.message, sample.source_time, sample.received)

    def _publish_latest(self, delivery: Delivery) -> None:
        sample = delivery.sample
        try:
            message = delivery.message()
            stamp, clock = best_time(message.root, sample.source_time, sample.received)
            tree = plain(message.root, max_list=INSPECT_MAX_LIST,
                         max_items=items_budget(message.size))
        except DecodeError as exc:
            previous = self._hub.latest.get(self.key)
            if previous is not None and self.plan.latest:
                self._hub.latest[self.key] = dataclasses.replace(previous, error=str(exc))
            return
        if self.plan.latest:
            self._hub.latest[self.key] = LatestValue(
                self.key, message.type_name, tree, stamp, clock, len(sample.payload), sample.seq)

    def _publish_converted(self, interest: Converted, delivery: Delivery) -> None:
        sample = delivery.sample
        previous = self._hub.converted.get(interest)
        version = previous.version + 1 if previous is not None else 1
        try:
            message = delivery.message()
            value = get_converter(interest.converter)(message, **dict(interest.options))
            if interest.voxel_m > 0:
                from app.convert.decimate import voxel_decimated  # numpy: when first needed

                value = voxel_decimated(value, interest.voxel_m)
            stamp, _ = best_time(message.root, sample.source_time, sample.received)
        except (DecodeError, ConversionError, UnknownConverter) as exc:
            self.errors += 1
            result = ConvertedValue(interest.key, interest.converter,
                                    previous.value if previous is not None else None,
                                    previous.stamp if previous is not None else 0.0,
                                    sample.seq, version, str(exc) or type(exc).__name__)
        except Exception as exc:  # a converter's bug: shown on the value, logged, counted
            self.errors += 1
            self._hub.incidents.record(f"converter {interest.converter} on {self.key}", exc)
            result = ConvertedValue(interest.key, interest.converter,
                                    previous.value if previous is not None else None,
                                    previous.stamp if previous is not None else 0.0,
                                    sample.seq, version, f"internal error: {exc!r}")
        else:
            result = ConvertedValue(interest.key, interest.converter, value, stamp,
                                    sample.seq, version)
        if interest in self.plan.converted:
            self._hub.converted[interest] = result
            if interest.prompt:
                self._hub.wake()


def _size(sample: RawSample) -> int:
    return len(sample.payload) + (len(sample.attachment) if sample.attachment else 0)


class _Checker:
    """Decodes, now and then, the newest sample of small keys nobody wants, so their
    decode errors are still counted on their topics."""

    def __init__(self, hub: FeedHub) -> None:
        self._hub = hub
        self._pending: dict[str, RawSample] = {}
        self._checked_at: dict[str, float] = {}
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._run, name="topic check", daemon=True)
        self._thread.start()

    def due(self, key: str, size: int) -> bool:
        return size <= CHECK_MAX_BYTES and \
            time.monotonic() - self._checked_at.get(key, 0.0) >= CHECK_PERIOD_S

    def offer(self, sample: RawSample) -> None:
        with self._cond:
            self._checked_at[sample.key] = sample.arrival
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
                    return
                samples, self._pending = list(self._pending.values()), {}
            for sample in samples:
                try:
                    decode(sample.encoding, sample.payload, sample.attachment)
                except DecodeError as exc:
                    self._hub.count_error(sample.key, exc)
                except Exception as exc:
                    self._hub.incidents.record(f"topic check of {sample.key}", exc)


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
        self._exact: dict[str, _Plan] = {}  # plans of keys named exactly
        self._patterns: tuple[tuple[Consumer, Stream], ...] = ()  # streams on key expressions
        self._lanes: dict[str, Lane] = {}
        self.runner = LaneRunner("lanes", LIGHT_LANE_THREADS)
        self._frame_waiters: set[Lane] = set()  # lanes whose newest sample waits for a frame
        self._waiters_lock = threading.Lock()
        self._routes: dict[tuple[str, str], Lane | None] = {}
        self._lock = threading.RLock()
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
    def consumer(self, name: str,
                 on_sample: Callable[[Delivery], None] | None = None) -> Consumer:
        return Consumer(self, name, on_sample)

    def set_interests(self, wanted: set[Interest]) -> None:
        """What the panels on screen want (the window's consumer)."""
        self._panels.want(wanted)

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

    def count_error(self, key: str, exc: DecodeError) -> None:
        if self._count_error is not None:
            self._count_error(key, exc)

    # -- the zenoh thread --------------------------------------------------------------------
    def route(self, key: str, encoding: str, size: int) -> Callable[[RawSample], None] | None:
        """Where a sample of ``key`` goes; None: nobody wants it (it is not even copied)."""
        lane = self._routes.get((key, encoding), _UNKNOWN)
        if lane is _UNKNOWN:
            lane = self._resolve(key, encoding)
        if lane is not None:
            return lane.offer
        if self._checker.due(key, size):
            return self._checker.offer
        return None

    def _resolve(self, key: str, encoding: str) -> Lane | None:
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
            self._routes[(key, encoding)] = lane
            return lane

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
            return Wanted(keys, tuple(s for _, s in self._patterns if not s.passive))

    def _replan(self) -> None:
        held = [(c, i) for c, interests in self._consumers.items() for i in interests]
        wanted = {i for _, i in held if not isinstance(i, Stream)}
        exact: dict[str, _Plan] = {}
        patterns = []
        for consumer, interest in held:
            if isinstance(interest, Stream):
                if "*" in interest.key_expr or "$" in interest.key_expr:
                    patterns.append((consumer, interest))
                    continue
                plan = exact.get(interest.key_expr, _Plan())
                exact[interest.key_expr] = dataclasses.replace(
                    plan, streams=(*plan.streams, (consumer, interest)))
                continue
            plan = exact.get(interest.key, _Plan())
            if isinstance(interest, Latest):
                plan = dataclasses.replace(plan, latest=True)
            elif isinstance(interest, Series):
                plan = dataclasses.replace(plan, series=(*plan.series, interest))
                if interest not in self.series:
                    self.series[interest] = SeriesBuffer()
            elif isinstance(interest, Converted):
                plan = dataclasses.replace(plan, converted=(*plan.converted, interest))
            exact[interest.key] = plan
        self._exact, self._patterns = exact, tuple(patterns)
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

    def _plan_for(self, key: str, type_name: str | None = None) -> _Plan | None:
        """What ``key`` is wanted for: the interests naming it, and the streams on
        expressions matching it (of its type, once known)."""
        plan = self._exact.get(key)
        matching = tuple(p for p in self._patterns if key_matches(p[1].key_expr, key) and (
            type_name is None or not p[1].type_name or p[1].type_name == type_name))
        if matching:
            plan = dataclasses.replace(plan or _Plan(), streams=(*(plan or _Plan()).streams,
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


_UNKNOWN: Any = object()

