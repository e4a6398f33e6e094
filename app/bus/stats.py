"""Per-topic traffic statistics: rate, bandwidth, age, decode errors and drops."""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field

RATE_WINDOW_S = 5.0


@dataclass
class TopicStats:
    key: str
    encoding: str = ""
    count: int = 0
    bytes: int = 0
    drops: int = 0
    copied_bytes: int = 0  # bytes taken out of zenoh because something wanted them
    errors: Counter[str] = field(default_factory=Counter)
    last_error: str = ""
    last_arrival: float = 0.0
    listening: bool = True  # False: a topic the station knows of but does not listen to now
    _window: deque[tuple[float, int]] = field(default_factory=deque, repr=False)

    def record(self, arrival: float, size: int, encoding: str) -> None:
        self.count += 1
        self.bytes += size
        self.last_arrival = arrival
        self.encoding = encoding
        self._window.append((arrival, size))
        self._trim(arrival)

    def snapshot(self) -> TopicStats:
        """A copy safe to read while the subscriber thread keeps counting."""
        return TopicStats(
            self.key, self.encoding, self.count, self.bytes, self.drops, self.copied_bytes,
            Counter(self.errors), self.last_error, self.last_arrival, self.listening,
            deque(self._window),
        )

    def record_error(self, kind: str, message: str) -> None:
        self.errors[kind] += 1
        self.last_error = message

    def _trim(self, now: float) -> None:
        while self._window and self._window[0][0] < now - RATE_WINDOW_S:
            self._window.popleft()

    def rate_hz(self, now: float | None = None) -> float:
        """From the mean period of the samples in the window, while they keep coming."""
        now = time.monotonic() if now is None else now
        self._trim(now)
        count = len(self._window)
        if count >= 2:
            first, last = self._window[0][0], self._window[-1][0]
            period = (last - first) / (count - 1)
            if period > 0 and now - last <= 2 * period:
                return 1.0 / period
        return count / RATE_WINDOW_S

    def bandwidth_bps(self, now: float | None = None) -> float:
        now = time.monotonic() if now is None else now
        rate = self.rate_hz(now)
        if not self._window:
            return 0.0
        return rate * sum(size for _, size in self._window) / len(self._window)

    def age_s(self, now: float | None = None) -> float | None:
        if not self.count:
            return None
        return (time.monotonic() if now is None else now) - self.last_arrival

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    @property
    def type_name(self) -> str:
        prefix = "application/capnp;"
        return self.encoding[len(prefix) :] if self.encoding.startswith(prefix) else self.encoding


class TopicCounts:
    """Every key's TopicStats behind one lock (which the owner may hold for its own state
    too), read as snapshots: what a live subscription and a played log count alike."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self._stats: dict[str, TopicStats] = {}

    def stats_for(self, key: str) -> TopicStats:
        """The key's counts, made on first use; call with ``lock`` held."""
        stats = self._stats.get(key)
        if stats is None:
            stats = self._stats[key] = TopicStats(key)
        return stats

    def stats(self) -> dict[str, TopicStats]:
        with self.lock:
            return {key: stats.snapshot() for key, stats in self._stats.items()}

    def last_arrivals(self, prefix: str = "") -> dict[str, float]:
        """time.monotonic() of each key's newest sample, of the keys under ``prefix``."""
        with self.lock:
            return {key: stats.last_arrival for key, stats in self._stats.items()
                    if key.startswith(prefix)}

    def record_error(self, key: str, kind: str, message: str) -> None:
        with self.lock:
            self.stats_for(key).record_error(kind, message)
