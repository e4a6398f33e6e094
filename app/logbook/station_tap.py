"""Feeds a recorder or the black box from the station, as one of its consumers.

Qt-free. Every sample of the chosen keys comes as the station receives it (a raw stream:
never decoded for the sink, no lane), in order per key, byte for byte (commands too: the
station hears what it publishes). Presence and catalogs come from the
station's robots: a robot coming or going is written as a liveliness event, a catalog as a
``transport.Catalog`` sample on ``fleet/<robotId>/catalog``, so a log plays back with its
robots present and described.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Protocol

from app.bus.catalog import CATALOG_TYPE
from app.bus.keys import catalog_key, robot_key
from app.bus.subscription import RawSample
from app.codec.buffers import Attachment
from app.record.format import LivelinessEvent, LoggedSample
from app.station.interests import Stream
from app.station.robots import RobotInfo
from app.station.station import Station

CATALOG_ENCODING = f"application/capnp;{CATALOG_TYPE}"


class Sink(Protocol):
    """A Recorder or a BlackBox."""

    def offer_sample(self, sample: RawSample) -> bool: ...

    def offer(self, key: str, encoding: str, payload: bytes, attachment: Attachment | None,
              received_s: float, source_time_s: float | None) -> bool: ...

    def offer_liveliness(self, key: str, alive: bool, received_s: float) -> None: ...


class StationTap:
    def __init__(self, station: Station, sink: Sink, key_exprs: Iterable[str] = (),
                 name: str = "recorder", max_sample_bytes: int | None = None,
                 passive: bool = False) -> None:
        """``key_exprs``: what to take (every key of the station's root when empty);
        ``max_sample_bytes``: larger samples are left out (the black box's heavy sensors);
        ``passive``: take only what the station hears anyway (see ``Stream.passive``)."""
        self.station = station
        self.sink = sink
        self.max_sample_bytes = max_sample_bytes
        self.left_out = 0
        self.key_exprs = tuple(key_exprs) or (f"{station.root}/**",)
        self._root = station.root
        self._described: dict[str, object] = {}  # robot id -> the catalog written last
        self._unwatch = station.watch_robots(self._on_robot)
        for info in station.robots():  # the robots there before the tap, written first
            self._on_robot(info)
        self._consumer = station.consumer(name, on_raw=self._on_sample)
        self._consumer.want({Stream(expr, passive=passive, raw=True)
                             for expr in self.key_exprs})

    def _on_sample(self, sample: RawSample) -> None:
        if self.max_sample_bytes is not None and \
                len(sample.payload) + len(sample.attachment or b"") > self.max_sample_bytes:
            self.left_out += 1
            return
        self.sink.offer_sample(sample)

    def _on_robot(self, info: RobotInfo) -> None:
        now = time.time()
        self.sink.offer_liveliness(robot_key(info.robot_id, self._root), info.online, now)
        catalog = info.catalog
        if catalog is not None and not catalog.discovered and \
                self._described.get(info.robot_id) is not catalog:
            self._described[info.robot_id] = catalog
            self.sink.offer(catalog_key(info.robot_id, self._root), CATALOG_ENCODING,
                            catalog.to_bytes(), None, now, None)

    def head(self) -> list[LivelinessEvent | LoggedSample]:
        """Each robot's presence and catalog as they stand now: what a part of the log
        that starts here needs to play alone."""
        now_ns = time.time_ns()
        head: list[LivelinessEvent | LoggedSample] = []
        for info in self.station.robots():
            head.append(LivelinessEvent(robot_key(info.robot_id, self._root), info.online,
                                        now_ns))
            if info.catalog is not None and not info.catalog.discovered:
                head.append(LoggedSample(catalog_key(info.robot_id, self._root),
                                         CATALOG_ENCODING, info.catalog.to_bytes(), None,
                                         now_ns, now_ns))
        return head

    def close(self) -> None:
        self._unwatch()
        self._consumer.close()
