"""Overlays matched to an image by time: each overlay topic keeps a short history, and the
one nearest the image's stamp is drawn — marked not in sync when it is further away than
the tolerance."""

from __future__ import annotations

import threading
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from app.convert.camera.model import ImageOverlay

if TYPE_CHECKING:
    from app.station.lane import Delivery

HISTORY = 64  # overlays kept per topic: a few seconds of detections
SYNC_TOLERANCE_S = 0.05


@dataclass(frozen=True)
class Matched:
    overlay: ImageOverlay
    in_sync: bool
    offset_s: float  # overlay stamp - image stamp


class OverlayHistory:
    """The recent overlays of one topic; written by its lane, read by the GUI thread."""

    def __init__(self) -> None:
        self._items: deque[tuple[float, ImageOverlay]] = deque(maxlen=HISTORY)
        self._lock = threading.Lock()
        self.error = ""
        self.version = 0

    def add(self, stamp: float, overlay: ImageOverlay) -> None:
        with self._lock:
            if self._items and stamp < self._items[-1][0]:  # late: keep time order
                items = sorted([*self._items, (stamp, overlay)], key=lambda i: i[0])
                self._items.clear()
                self._items.extend(items[-HISTORY:])
            else:
                self._items.append((stamp, overlay))
            self.error = ""
            self.version += 1

    def fail(self, error: str) -> None:
        self.error = error
        self.version += 1

    def nearest(self, stamp: float, tolerance_s: float = SYNC_TOLERANCE_S) -> Matched | None:
        with self._lock:
            items = list(self._items)
        if not items:
            return None
        best_stamp, best = min(items, key=lambda item: abs(item[0] - stamp))
        offset = best_stamp - stamp
        return Matched(best, abs(offset) <= tolerance_s, offset)


def take_overlay(history: OverlayHistory, delivery: Delivery) -> None:
    """Converts one overlay sample on its lane into ``history`` (or notes why it cannot)."""
    from app.codec.errors import DecodeError
    from app.codec.stamps import best_time
    from app.convert.registry import ConversionError, get_converter

    sample = delivery.sample
    try:
        message = delivery.message()
        overlay = cast(ImageOverlay, get_converter("camera.overlay")(message))
    except (DecodeError, ConversionError) as exc:
        history.fail(str(exc))
        return
    stamp = overlay.stamp or best_time(message.root, sample.source_time, sample.received)[0]
    history.add(stamp, overlay)
