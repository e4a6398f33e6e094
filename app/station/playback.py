"""A log as the station's source: its samples counted and routed as a live session's are.

Qt-free. :class:`LogTraffic` stands where the live :class:`~app.bus.subscription.Subscription`
stands: it counts each played sample per key (rate, bytes, age, decode errors) and hands the
ones someone wants to the feeds, so every panel behaves as it does live. Catalogs recorded on
``fleet/<robotId>/catalog`` become the robots' catalogs instead of traffic.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from app.bus.catalog import CATALOG_TYPE, Catalog
from app.bus.keys import robot_of
from app.bus.stats import TopicCounts, TopicStats
from app.bus.subscription import RawSample, Route
from app.codec.decode import decode
from app.codec.errors import DecodeError, reading
from app.record.format import LoggedSample

CATALOG_ENCODING = f"application/capnp;{CATALOG_TYPE}"


class LogStamp:
    """A recorded zenoh timestamp, read as a live sample's ``stamp`` is."""

    __slots__ = ("_unix_s",)

    def __init__(self, unix_ns: int) -> None:
        self._unix_s = unix_ns / 1e9

    def get_time(self) -> datetime:
        return datetime.fromtimestamp(self._unix_s, UTC)


class LogTraffic:
    def __init__(self, route: Route, root: str,
                 on_catalog: Callable[[str, Catalog], None]) -> None:
        self.callback_cpu_s = 0.0
        self._route = route
        self._root = root
        self._on_catalog = on_catalog
        self._counts = TopicCounts()
        self._seq = 0

    def deliver(self, logged: LoggedSample) -> None:
        """One sample of the log, now (on the player's thread)."""
        started = time.thread_time()
        try:
            if logged.encoding == CATALOG_ENCODING and logged.key.endswith("/catalog"):
                self._catalog(logged)
                return
            arrival = time.monotonic()
            size = len(logged.payload) + len(logged.attachment or b"")
            with self._counts.lock:
                self._seq += 1
                seq = self._seq
                stats = self._counts.stats_for(logged.key)
                stats.record(arrival, size, logged.encoding)
            target = self._route(logged.key, logged.encoding, size)
            if target is None:
                return
            with self._counts.lock:
                stats.copied_bytes += size
            target(RawSample(logged.key, logged.encoding, logged.payload, logged.attachment,
                             arrival, logged.log_time_ns / 1e9,
                             LogStamp(logged.publish_time_ns), seq))
        finally:
            self.callback_cpu_s += time.thread_time() - started

    def _catalog(self, logged: LoggedSample) -> None:
        robot_id = robot_of(logged.key, self._root)
        if robot_id is None:
            return
        try:
            message = decode(logged.encoding, logged.payload, logged.attachment)
            with reading():
                catalog = Catalog.from_reader(message.root)
        except DecodeError as exc:
            self.record_error(logged.key, exc)
            return
        self._on_catalog(robot_id, catalog)

    def stats(self) -> dict[str, TopicStats]:
        return self._counts.stats()

    def last_arrivals(self, prefix: str = "") -> dict[str, float]:
        return self._counts.last_arrivals(prefix)

    def record_error(self, key: str, exc: DecodeError) -> None:
        self._counts.record_error(key, exc.kind, str(exc))

    def close(self) -> None:
        """Nothing to undeclare: the player that feeds it is closed by the station."""
