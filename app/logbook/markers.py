"""The moments a timeline marks: critical faults raised, e-stops engaged or sent.

Qt-free. The log's status and fault channels are read through the same vitals book and
incident watch the live station uses, so a marker means what the live alert meant.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from app.bus.keys import robot_of
from app.codec.decode import decode
from app.codec.errors import DecodeError
from app.logbook.incident_watch import IncidentWatch
from app.record.reader import LogReader
from app.station.vitals import VitalsBook

WATCHED_SUFFIXES = ("/uplink/status", "/uplink/fault")
ESTOP_SUFFIX = "/command/estop"
ESTOP_REPEATS_NS = 2_000_000_000  # e-stops sent closer than this are one press, repeated


@dataclass(frozen=True)
class Marker:
    t_ns: int
    kind: str  # "fault" | "estop"
    text: str


def find_markers(reader: LogReader, root: str,
                 cancelled: Callable[[], bool] = lambda: False) -> list[Marker]:
    keys = [c.key for c in reader.channels()
            if c.key.endswith((*WATCHED_SUFFIXES, ESTOP_SUFFIX))]
    book, watch = VitalsBook(), IncidentWatch()
    watch.check(book.snapshot())
    markers: list[Marker] = []
    last_estop: dict[str, int] = {}
    for sample in reader.samples(keys=keys):
        if cancelled():
            break
        robot_id = robot_of(sample.key, root)
        if robot_id is None:
            continue
        if sample.key.endswith(ESTOP_SUFFIX):
            if sample.log_time_ns - last_estop.get(robot_id, -ESTOP_REPEATS_NS) >= \
                    ESTOP_REPEATS_NS:
                markers.append(Marker(sample.log_time_ns, "estop", f"{robot_id}: e-stop sent"))
            last_estop[robot_id] = sample.log_time_ns
            continue
        try:
            message = decode(sample.encoding, sample.payload, sample.attachment)
        except DecodeError:
            continue
        if book.offer(robot_id, message.type_name, message.root, sample.log_time_ns / 1e9):
            for text in watch.check(book.snapshot()):
                kind = "estop" if text.endswith("e-stop engaged") else "fault"
                markers.append(Marker(sample.log_time_ns, kind, text))
    return markers
