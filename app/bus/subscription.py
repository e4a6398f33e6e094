"""Subscriptions that count traffic per key and hand on the samples someone wants.

The zenoh callback runs on a foreign thread: it counts the sample (no payload copy), then
copies the payload only if it is wanted — into the ring of the newest N samples, or to
whatever ``route`` returns for its key. Decoding happens when a consumer takes the samples
(:meth:`Subscription.decode` and :meth:`Subscription.record_error` count failures on the
sample's topic). A subscription may listen on several key expressions and change them while
it runs (:meth:`Subscription.listen`), without doubling a sample or losing one that
waited to be taken. A drained one
(``drain=True``) takes its samples on one thread for all its expressions
(``app.bus.drain``), but for those listened to as prompt (big samples: a camera's image is
not held back a few milliseconds).
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from app.bus.drain import Drain
from app.bus.session import BusSession
from app.bus.stats import TopicCounts, TopicStats
from app.codec.buffers import Attachment
from app.codec.decode import DecodedMessage, decode
from app.codec.errors import DecodeError


@dataclass(frozen=True)
class RawSample:
    key: str
    encoding: str
    payload: bytes
    attachment: Attachment | None  # HeldBuffers: said within this process
    arrival: float  # time.monotonic() at receipt
    received: float  # time.time() at receipt
    stamp: Any  # the zenoh Timestamp, when the publisher set one
    seq: int  # per-subscription arrival number

    @property
    def source_time(self) -> float | None:
        """The zenoh timestamp in unix seconds (converted only when someone asks)."""
        return self.stamp.get_time().timestamp() if self.stamp is not None else None


# key, encoding, payload + attachment bytes -> where the sample goes, or None (not copied)
Route = Callable[[str, str, int], Callable[[RawSample], None] | None]


class Subscription:
    def __init__(
        self,
        bus: BusSession,
        key_expr: str | Iterable[str],
        depth: int = 16,
        on_sample: Callable[[RawSample], None] | None = None,
        route: Route | None = None,
        drain: bool = False,
    ) -> None:
        """With ``route``, only routed samples are copied and there is no ring (``depth``
        and ``on_sample`` are not used)."""
        self.depth = depth
        self._prompt_cpu_s = 0.0  # CPU time of the callbacks of prompt expressions
        self._route = route
        self._ring: deque[RawSample] = deque(maxlen=depth)
        self._counts = TopicCounts()
        self._lock = self._counts.lock  # the ring and the counts change together
        self._seq = 0
        self._taken_seq = 0
        self._on_sample = on_sample
        self._bus = bus
        self._handles: dict[str, Any] = {}
        self._drained: set[str] = set()  # the expressions the drain takes, not a callback
        self._drain = Drain("subscription drain", self._receive) if drain else None
        self._listening: frozenset[str] = frozenset()
        self.listen([key_expr] if isinstance(key_expr, str) else key_expr)

    @property
    def key_exprs(self) -> frozenset[str]:
        return self._listening

    @property
    def callback_cpu_s(self) -> float:
        """CPU time spent taking this subscription's samples: its zenoh callbacks and its
        drain's thread."""
        drained = self._drain.cpu_s() if self._drain is not None else 0.0
        return self._prompt_cpu_s + drained

    def listen(self, key_exprs: Iterable[str], prompt: Iterable[str] = ()) -> None:
        """Listens on exactly ``key_exprs`` from now on (those also in ``prompt`` with a
        callback of their own, if drained; an expression keeps the way it was first declared
        while it is listened to). What waits in the rings of drained expressions that go is
        delivered first; then the new subscribers are declared before the old ones go, and a
        sample counts only through a subscriber still wanted, so one that both hear is taken
        once. Only a sample arriving while the new ones are being declared can be missed."""
        wanted = frozenset(key_exprs)
        prompt = frozenset(prompt) if self._drain is not None else wanted
        leaving = {e: self._handles[e] for e in self._drained - wanted}
        with self._drain.handover(leaving) if self._drain else contextlib.nullcontext():
            for expr in wanted - self._handles.keys():
                callback = functools.partial(self._receive_prompt, expr)
                self._handles[expr] = self._bus.declare_subscriber(
                    expr, callback if expr in prompt else Drain.handler())
                if expr not in prompt:
                    self._drained.add(expr)
            self._listening = wanted
            self._drained &= wanted
            if self._drain is not None:
                self._drain.drain({e: self._handles[e] for e in self._drained})
        for expr in [e for e in self._handles if e not in wanted]:
            self._bus.release(self._handles.pop(expr))

    def _receive_prompt(self, key_expr: str, sample: Any) -> None:
        """A zenoh callback (on zenoh-python's thread): timed here, the drain's thread as a
        whole."""
        started = time.thread_time()
        try:
            self._receive(key_expr, sample)
        finally:
            self._prompt_cpu_s += time.thread_time() - started

    def _receive(self, key_expr: str, sample: Any) -> None:
        if key_expr not in self._listening:
            return
        if self._route is None:
            self._keep(sample)
        else:
            self._hand_on(sample)

    def _keep(self, sample: Any) -> None:
        raw = _materialise(sample, 0)
        size = len(raw.payload) + (len(raw.attachment) if raw.attachment is not None else 0)
        with self._lock:
            self._seq += 1
            raw = dataclasses.replace(raw, seq=self._seq)
            if len(self._ring) == self.depth and self._ring[0].seq > self._taken_seq:
                self._counts.stats_for(self._ring[0].key).drops += 1
            self._ring.append(raw)
            stats = self._counts.stats_for(raw.key)
            stats.record(raw.arrival, size, raw.encoding)
            stats.copied_bytes += size
        if self._on_sample is not None:
            self._on_sample(raw)

    def _hand_on(self, sample: Any) -> None:
        # One string object per key and per encoding, however many samples hold them (a
        # black box keeps a minute of a depot's samples: 150 bytes each saved)
        key = sys.intern(str(sample.key_expr))
        encoding = sys.intern(str(sample.encoding))
        size = len(sample.payload) + (len(sample.attachment)
                                      if sample.attachment is not None else 0)
        self._count_and_route(key, encoding, size, lambda seq, arrival: _materialise(
            sample, seq, arrival, key, encoding))

    def offer(self, key: str, encoding: str, payload: bytes, attachment: Attachment | None,
              stamp: Any = None) -> None:
        """A sample said within this process (a ROS 2 robot's, translated): counted and
        handed on as if heard on ``key``, without the copies of a put and of its taking (a
        routed subscription only)."""
        if not self._listening:
            return  # closed
        size = len(payload) + (len(attachment) if attachment is not None else 0)
        self._count_and_route(key, encoding, size, lambda seq, arrival: RawSample(
            key, encoding, payload, attachment, arrival, time.time(), stamp, seq))

    def _count_and_route(self, key: str, encoding: str, size: int,
                         make: Callable[[int, float], RawSample]) -> None:
        """Counts a sample on its key; hands it, made by ``make(seq, arrival)`` only then, to
        where the route sends it."""
        arrival = time.monotonic()
        with self._lock:
            self._seq += 1
            seq = self._seq
            stats = self._counts.stats_for(key)
            stats.record(arrival, size, encoding)
        assert self._route is not None
        target = self._route(key, encoding, size)
        if target is None:
            return
        raw = make(seq, arrival)
        with self._lock:
            stats.copied_bytes += size
        target(raw)

    def take(self) -> list[RawSample]:
        """The samples that arrived since the last take, oldest first."""
        with self._lock:
            fresh = [s for s in self._ring if s.seq > self._taken_seq]
            self._taken_seq = self._seq
        return fresh

    def latest(self) -> RawSample | None:
        with self._lock:
            return self._ring[-1] if self._ring else None

    def stats(self) -> dict[str, TopicStats]:
        return self._counts.stats()

    def error_total(self) -> int:
        """Decode errors counted on every topic so far."""
        return self._counts.error_total

    def last_arrivals(self, prefix: str = "") -> dict[str, float]:
        """time.monotonic() of each key's newest sample, of the keys under ``prefix``."""
        return self._counts.last_arrivals(prefix)

    def decode(self, sample: RawSample) -> DecodedMessage:
        """Decodes one sample; a failure is counted on its topic and re-raised."""
        try:
            return decode(sample.encoding, sample.payload, sample.attachment)
        except DecodeError as exc:
            self.record_error(sample.key, exc)
            raise

    def record_error(self, key: str, exc: DecodeError) -> None:
        """Counts a decode failure of one of this subscription's samples on its topic."""
        self._counts.record_error(key, exc.kind, str(exc))

    def close(self) -> None:
        self._listening = frozenset()
        if self._drain is not None:
            self._drain.stop()
        for handle in self._handles.values():
            self._bus.release(handle)
        self._handles = {}


def _materialise(sample: Any, seq: int, arrival: float | None = None, key: str = "",
                 encoding: str = "") -> RawSample:
    """The one copy of a zenoh sample's bytes (zenoh's ZBytes offers no buffer view)."""
    arrival = time.monotonic() if arrival is None else arrival
    attachment = sample.attachment.to_bytes() if sample.attachment is not None else None
    return RawSample(key or str(sample.key_expr), encoding or str(sample.encoding),
                     sample.payload.to_bytes(), attachment, arrival, time.time(),
                     sample.timestamp, seq)
