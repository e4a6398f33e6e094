"""Subscriptions that keep the newest N raw samples and count traffic per key.

The zenoh callback runs on a foreign thread: it only copies the sample into the ring and
updates counters, under a lock held for microseconds. Decoding happens when a consumer
takes the samples (:meth:`Subscription.decode` counts failures on the sample's topic).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.bus.session import BusSession
from app.bus.stats import TopicStats
from app.codec.decode import DecodedMessage, decode
from app.codec.errors import DecodeError


@dataclass(frozen=True)
class RawSample:
    key: str
    encoding: str
    payload: bytes
    attachment: bytes | None
    arrival: float  # time.monotonic() at receipt
    received: float  # time.time() at receipt
    stamp: Any  # the zenoh Timestamp, when the publisher set one
    seq: int  # per-subscription arrival number

    @property
    def source_time(self) -> float | None:
        """The zenoh timestamp in unix seconds (converted only when someone asks)."""
        return self.stamp.get_time().timestamp() if self.stamp is not None else None


class Subscription:
    def __init__(
        self,
        bus: BusSession,
        key_expr: str,
        depth: int = 16,
        on_sample: Callable[[RawSample], None] | None = None,
    ) -> None:
        self.key_expr = key_expr
        self.depth = depth
        self._ring: deque[RawSample] = deque(maxlen=depth)
        self._stats: dict[str, TopicStats] = {}
        self._lock = threading.Lock()
        self._seq = 0
        self._taken_seq = 0
        self._on_sample = on_sample
        self._bus = bus
        self._handle = bus.declare_subscriber(key_expr, self._receive)

    def _receive(self, sample: Any) -> None:
        arrival = time.monotonic()
        received = time.time()
        key = str(sample.key_expr)
        encoding = str(sample.encoding)
        payload = sample.payload.to_bytes()
        attachment = sample.attachment.to_bytes() if sample.attachment is not None else None
        stamp = sample.timestamp
        with self._lock:
            self._seq += 1
            raw = RawSample(
                key, encoding, payload, attachment, arrival, received, stamp, self._seq
            )
            if len(self._ring) == self.depth and self._ring[0].seq > self._taken_seq:
                self._stats_for(self._ring[0].key).drops += 1
            self._ring.append(raw)
            size = len(payload) + (len(attachment) if attachment is not None else 0)
            self._stats_for(key).record(arrival, size, encoding)
        if self._on_sample is not None:
            self._on_sample(raw)

    def _stats_for(self, key: str) -> TopicStats:
        stats = self._stats.get(key)
        if stats is None:
            stats = self._stats[key] = TopicStats(key)
        return stats

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
        with self._lock:
            return {key: stats.snapshot() for key, stats in self._stats.items()}

    def decode(self, sample: RawSample) -> DecodedMessage:
        """Decodes one sample; a failure is counted on its topic and re-raised."""
        try:
            return decode(sample.encoding, sample.payload, sample.attachment)
        except DecodeError as exc:
            with self._lock:
                self._stats_for(sample.key).record_error(exc.kind, str(exc))
            raise

    def close(self) -> None:
        self._bus.release(self._handle)
