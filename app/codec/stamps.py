"""When a message was made: its own stamp, else the zenoh timestamp, else arrival time."""

from __future__ import annotations

from typing import Any

from app.codec.errors import DecodeError, reading


def message_stamp(root: Any) -> float | None:
    """Unix seconds from the message's own stamp field, if its type has a known one and it
    can be read (a large message's bad pointer shows where the message is read in full)."""
    try:
        with reading():
            return _stamp(root)
    except DecodeError:
        return None


def _stamp(root: Any) -> float | None:
    fields = root.schema.fieldnames
    if "unixTimeMs" in fields:  # fleet envelopes
        return root.unixTimeMs / 1000.0 or None
    for name in ("timestamp", "stamp"):  # foxglove Time, autoware builtin_interfaces.Time
        if name in fields and root._has(name):
            return _time_struct(getattr(root, name))
    if "header" in fields and root._has("header") and "stamp" in root.header.schema.fieldnames:
        return _time_struct(root.header.stamp)
    return None


def _time_struct(stamp: Any) -> float | None:
    names = stamp.schema.fieldnames
    if "sec" not in names:
        return None
    nanos = stamp.nsec if "nsec" in names else getattr(stamp, "nanosec", 0)
    seconds = stamp.sec + nanos * 1e-9
    return seconds or None


def best_time(root: Any, source_time: float | None, arrival_wall: float) -> tuple[float, str]:
    """(unix seconds, which clock) in the order PROTOCOL.md asks for."""
    stamp = message_stamp(root)
    if stamp is not None:
        return stamp, "message"
    if source_time is not None:
        return source_time, "zenoh"
    return arrival_wall, "arrival"
