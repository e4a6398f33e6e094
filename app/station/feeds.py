"""Feeds: decoded data for what visible panels want, coalesced to the frame rate.

Panels declare interests (the latest message of a key; a numeric field of a key as a
time series). The zenoh thread only files raw samples for keys someone wants; a decode
thread turns them into display values; the GUI thread's frame tick takes a snapshot.
Keys nobody wants are never decoded: hidden panels cost nothing.
"""

from __future__ import annotations

import math
import threading
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Any

from app.bus.subscription import RawSample
from app.codec.decode import DecodedMessage, decode
from app.codec.errors import DecodeError
from app.codec.fields import get_path, plain
from app.codec.stamps import best_time
from app.station.series import SeriesBuffer

INSPECT_MAX_LIST = 16
PENDING_PER_KEY = 4096  # raw samples waiting for the series decoder, per key


@dataclass(frozen=True)
class Latest:
    """Wants the newest message of ``key``, as a plain tree for display."""

    key: str


@dataclass(frozen=True)
class Series:
    """Wants a numeric field of every message of ``key`` over time."""

    key: str
    path: str


Interest = Latest | Series


@dataclass
class LatestValue:
    key: str
    type_name: str
    tree: dict[str, Any]
    stamp: float
    clock: str
    size: int
    seq: int
    error: str = ""  # the last decode failure on this key, shown instead of stale data


@dataclass
class _KeyState:
    latest_raw: RawSample | None = None
    latest_done: int = 0
    pending: deque[RawSample] = field(default_factory=lambda: deque(maxlen=PENDING_PER_KEY))


class FeedHub:
    def __init__(self) -> None:
        self._interests: dict[Interest, int] = defaultdict(int)
        self._keys: dict[str, _KeyState] = {}
        self._series_keys: dict[str, list[Series]] = {}
        self.latest: dict[str, LatestValue] = {}
        self.series: dict[Series, SeriesBuffer] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="feed-decoder", daemon=True)
        self._thread.start()

    # -- interests (GUI thread) ----------------------------------------------------------
    def set_interests(self, wanted: set[Interest]) -> None:
        """Replaces what is wanted; data for keys no longer wanted is dropped."""
        with self._lock:
            self._interests = defaultdict(int, dict.fromkeys(wanted, 1))
            keys = {i.key for i in wanted}
            self._keys = {k: self._keys.get(k) or _KeyState() for k in keys}
            self._series_keys = defaultdict(list)
            for interest in wanted:
                if isinstance(interest, Series):
                    self._series_keys[interest.key].append(interest)
                    self.series.setdefault(interest, SeriesBuffer())
            for stale in [s for s in self.series if s not in wanted]:
                del self.series[stale]
            for stale in [k for k in self.latest if Latest(k) not in wanted]:
                del self.latest[stale]

    # -- the zenoh thread --------------------------------------------------------------
    def offer(self, sample: RawSample) -> None:
        state = self._keys.get(sample.key)
        if state is None:
            return
        state.latest_raw = sample
        if sample.key in self._series_keys:
            state.pending.append(sample)
        self._wake.set()

    # -- the decode thread -----------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            with self._lock:
                keys = list(self._keys.items())
                series_keys = {k: list(v) for k, v in self._series_keys.items()}
            for key, state in keys:
                self._decode_key(key, state, series_keys.get(key, []))

    def _decode_key(self, key: str, state: _KeyState, wanted: list[Series]) -> None:
        """Each sample is decoded once, whether a series, the latest value or both need it."""
        newest = state.latest_raw
        if newest is None or newest.seq == state.latest_done or Latest(key) not in self._interests:
            newest = None
        newest_result: DecodedMessage | DecodeError | None = None
        while state.pending:
            sample = state.pending.popleft()
            result = _decode(sample)
            if newest is not None and sample.seq == newest.seq:
                newest_result = result
            if isinstance(result, DecodeError):
                for buffer in filter(None, map(self.series.get, wanted)):
                    buffer.error = str(result)
                continue
            stamp, _ = best_time(result.root, sample.source_time, sample.received)
            for interest in wanted:
                self._append(interest, result, stamp)
        if newest is not None:
            state.latest_done = newest.seq
            self._set_latest(key, newest, newest_result or _decode(newest))

    def _set_latest(self, key: str, sample: RawSample,
                    result: DecodedMessage | DecodeError) -> None:
        if isinstance(result, DecodeError):
            previous = self.latest.get(key)
            if previous is not None:
                previous.error = str(result)
            return
        stamp, clock = best_time(result.root, sample.source_time, sample.received)
        try:
            tree = plain(result.root, max_list=INSPECT_MAX_LIST)
        except DecodeError as exc:  # a large message's fault surfaces as it is read
            self._set_latest(key, sample, exc)
            return
        self.latest[key] = LatestValue(key, result.type_name, tree, stamp, clock,
                                       len(sample.payload), sample.seq)

    def _append(self, interest: Series, message: DecodedMessage, stamp: float) -> None:
        buffer = self.series.get(interest)
        if buffer is None:
            return
        try:
            value = get_path(message.root, interest.path)
        except DecodeError as exc:
            buffer.error = str(exc)
            return
        if isinstance(value, bool | int | float) and math.isfinite(float(value)):
            buffer.append(stamp, float(value))

    def close(self) -> None:
        self._stop.set()
        self._wake.set()
        self._thread.join(timeout=2)


def _decode(sample: RawSample) -> DecodedMessage | DecodeError:
    try:
        return decode(sample.encoding, sample.payload, sample.attachment)
    except DecodeError as exc:
        return exc
