"""A lane: one wanted key's work, its samples in order and its newest one, served by a runner.

The hub (``app.station.feeds``) makes a lane per wanted key and hands it a :class:`Plan`,
what that key is wanted for; the zenoh thread offers the key's samples to it. A light key's
lane is served by the hub's shared runner, a heavy key's (a cloud, a JPEG: anything
converted) by a thread of its own. On its lane a sample is decoded at most once
(:class:`Delivery`), whoever needs it; the newest sample wins for latest values and
conversions (at most two per tick, superseded ones counted as dropped); series and streams
see every sample in order.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from app.bus.subscription import RawSample
from app.codec.decode import DecodedMessage, decode, type_name_of
from app.codec.errors import DecodeError
from app.codec.fields import items_budget, plain
from app.codec.stamps import best_time
from app.convert.registry import ConversionError, UnknownConverter, get_converter
from app.station.interests import (
    Converted,
    ConvertedValue,
    LaneStats,
    LatestValue,
    Series,
    Stream,
)
from app.station.lane_runner import LaneRunner
from app.station.listening import is_heavy
from app.station.series_points import append_points

if TYPE_CHECKING:
    from app.station.feeds import Consumer, FeedHub

INSPECT_MAX_LIST = 16
PENDING_PER_KEY = 4096  # samples waiting for a series or stream on one lane...
PENDING_BYTES = 64 * 1024 * 1024  # ...and their bytes: a cloud key's backlog stays bounded
CHECK_MAX_BYTES = 64 * 1024  # unwanted keys this small are still checked for decode errors
CHECK_PERIOD_S = 0.5  # ...at most this often per key
CHECKS_PER_S = 100  # ...and this often for the whole station (a thousand robots' keys)

_IDLE, _READY, _WAITING = range(3)  # a lane's states

ErrorCounter = Callable[[str, DecodeError], None]


class HealthChecks:
    """Which samples of keys nobody reads are decoded only to check them (so their topics
    still show decode errors): small ones, each key at most every CHECK_PERIOD_S, and at most
    ``per_s`` for the whole station (a token bucket, in bursts of a second's worth)."""

    def __init__(self, per_s: float = CHECKS_PER_S) -> None:
        self._per_s = per_s
        self._tokens = per_s
        self._at: float | None = None  # the newest time asked at; full until then
        self._checked_at: dict[str, float] = {}
        self._lock = threading.Lock()

    def due(self, key: str, size: int, now: float) -> bool:
        """Whether to check this sample of ``key`` now (``now``: time.monotonic()); a yes
        counts as the key's check."""
        if size > CHECK_MAX_BYTES or now - self._checked_at.get(key, -math.inf) < CHECK_PERIOD_S:
            return False  # (read without the lock: every sample asks, most are not due)
        with self._lock:
            if now - self._checked_at.get(key, -math.inf) < CHECK_PERIOD_S:
                return False
            if self._at is None or now > self._at:
                elapsed = 0.0 if self._at is None else now - self._at
                self._tokens = min(self._per_s, self._tokens + elapsed * self._per_s)
                self._at = now
            if self._tokens < 1:
                return False
            self._tokens -= 1
            self._checked_at[key] = now
            return True


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


@dataclass(frozen=True)
class Plan:
    """What one key's lane serves; replaced whole, never changed."""

    latest: bool = False
    series: tuple[Series, ...] = ()
    converted: tuple[Converted, ...] = ()
    streams: tuple[tuple[Consumer, Stream], ...] = ()

    @property
    def newest(self) -> bool:
        """Its newest sample is wanted whatever its type (a latest value, a conversion)."""
        return self.latest or bool(self.converted)

    @property
    def keeps_newest(self) -> bool:
        """Its newest sample is kept for its turn: for the above, or for newest streams."""
        return self.newest or any(stream.newest for _, stream in self.streams)

    @property
    def every(self) -> bool:
        return bool(self.series) or any(not stream.newest for _, stream in self.streams)

    def wants(self, type_name: str) -> bool:
        return self.newest or bool(self.series) or any(
            not s.type_name or s.type_name == type_name for _, s in self.streams)

    @property
    def passive_only(self) -> bool:
        """Only passive streams hold this key: it is served if heard, never listened for."""
        return not (self.newest or self.series) and all(s.passive for _, s in self.streams)


class Lane:
    """One key's work: its samples in order, its newest sample, served by a runner."""

    def __init__(self, key: str, plan: Plan, hub: FeedHub, type_name: str = "") -> None:
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
        self._stopped = False
        # IDLE: nothing to do; READY: handed to a runner (or being served); WAITING: its
        # newest sample waits for the next frame or half a tick (a timer with this token).
        self._state = _IDLE
        self._token = 0
        self._runner: LaneRunner | None = None  # the one serving it since it left IDLE
        self._own: LaneRunner | None = None  # a heavy lane's own thread
        self.done = self.dropped = self.errors = 0

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
            if plan.keeps_newest:
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
                self._own = LaneRunner(f"lane {self.key}", 1, self._hub.clocks)
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
            try:
                self._work(plan, batch, newest)
            except Exception as exc:  # a bug must not end the lane: log, count, go on
                self.errors += 1
                self._hub.incidents.record(f"lane {self.key}", exc)
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
        return LaneStats(self.key, self.done, self.dropped, self.errors)

    def _work(self, plan: Plan, batch: list[RawSample], newest: RawSample | None) -> None:
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
            self._hand_to(plan, delivery, newest=True)
        self.done += len(batch)
        if newest is not None and all(sample is not newest for sample in batch):
            self.done += 1
    def _every(self, plan: Plan, delivery: Delivery) -> None:
        if plan.series:
            self._append_series(plan.series, delivery)
        elif not plan.newest:
            self._check(delivery)
        self._hand_to(plan, delivery, newest=False)

    def _hand_to(self, plan: Plan, delivery: Delivery, newest: bool) -> None:
        """To the consumers of the plan's streams that take every sample, or (``newest``)
        those that take only the newest."""
        for consumer, stream in plan.streams:
            if stream.newest != newest or consumer.on_sample is None:
                continue
            if stream.type_name and stream.type_name != delivery.type_name:
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
        if not self._hub.health_checks.due(self.key, _size(sample), sample.arrival):
            return
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
