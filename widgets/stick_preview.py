"""Live previews of a gamepad's sticks and triggers with the profile's dead zones drawn, so
the operator sees where a reading starts to count.

Values use SDL's layout: a stick's x and y in -1..1 (right +, down +), a trigger 0..1.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import QWidget

from widgets.status_light import ONLINE

BASE = QColor("#2d3139")
RIM = QColor("#4a505a")
DEAD_ZONE = QColor("#3a404a")
DEAD_ZONE_RIM = QColor("#d0d6de")
IDLE = QColor("#8b949e")
TEXT = QColor("#d0d6de")


def _unit(value: float, low: float = -1.0) -> float:
    return min(max(float(value), low), 1.0) if math.isfinite(value) else 0.0


class StickPreview(QWidget):
    """One stick: its position as a dot (bright outside the dead zone) over a dashed circle
    of the dead zone's radius, with its name below."""

    def __init__(self, name: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._x = self._y = 0.0
        self._dead_zone = 0.0
        self.setMinimumSize(64, 76)

    def sizeHint(self) -> QSize:
        return QSize(96, 110)

    def value(self) -> tuple[float, float]:
        return self._x, self._y

    @property
    def dead_zone(self) -> float:
        return self._dead_zone

    def set_value(self, x: float, y: float) -> None:
        x, y = _unit(x), _unit(y)
        if (x, y) != (self._x, self._y):
            self._x, self._y = x, y
            self.update()

    def set_dead_zone(self, radius: float) -> None:
        radius = _unit(radius, 0.0)
        if radius != self._dead_zone:
            self._dead_zone = radius
            self.update()

    def outside_dead_zone(self) -> bool:
        return math.hypot(self._x, self._y) > self._dead_zone

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        label_h = painter.fontMetrics().height() + 2
        side = max(8.0, min(self.width(), self.height() - label_h) - 4.0)
        centre = QPointF(self.width() / 2, 2 + side / 2)
        travel = side / 2
        painter.setPen(QPen(RIM, 1.5))
        painter.setBrush(BASE)
        painter.drawEllipse(centre, travel, travel)
        dead = travel * self._dead_zone
        painter.setBrush(DEAD_ZONE)
        painter.setPen(QPen(DEAD_ZONE_RIM, 1, Qt.PenStyle.DashLine))
        if dead > 0:
            painter.drawEllipse(centre, dead, dead)
        painter.setPen(QPen(RIM, 1))
        painter.drawLine(QPointF(centre.x() - travel, centre.y()),
                         QPointF(centre.x() + travel, centre.y()))
        painter.drawLine(QPointF(centre.x(), centre.y() - travel),
                         QPointF(centre.x(), centre.y() + travel))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(ONLINE) if self.outside_dead_zone() else IDLE)
        painter.drawEllipse(QPointF(centre.x() + self._x * travel, centre.y() + self._y * travel),
                            max(3.0, travel * 0.12), max(3.0, travel * 0.12))
        painter.setPen(TEXT)
        painter.drawText(QRectF(0, side + 4, self.width(), label_h),
                         Qt.AlignmentFlag.AlignCenter, self.name)
        painter.end()


class TriggerPreview(QWidget):
    """One trigger as a vertical bar filling upwards, the dead zone marked by a dashed line."""

    def __init__(self, name: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._value = 0.0
        self._dead_zone = 0.0
        self.setMinimumSize(28, 76)

    def sizeHint(self) -> QSize:
        return QSize(32, 110)

    def value(self) -> float:
        return self._value

    @property
    def dead_zone(self) -> float:
        return self._dead_zone

    def set_value(self, value: float) -> None:
        value = _unit(value, 0.0)
        if value != self._value:
            self._value = value
            self.update()

    def set_dead_zone(self, dead_zone: float) -> None:
        dead_zone = _unit(dead_zone, 0.0)
        if dead_zone != self._dead_zone:
            self._dead_zone = dead_zone
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        label_h = painter.fontMetrics().height() + 2
        track = QRectF(self.width() / 2 - 7, 2, 14, max(8.0, self.height() - label_h - 6))
        painter.setPen(QPen(RIM, 1))
        painter.setBrush(BASE)
        painter.drawRect(track)
        filled = track.height() * self._value
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(ONLINE) if self._value > self._dead_zone else IDLE)
        painter.drawRect(QRectF(track.left(), track.bottom() - filled, track.width(), filled))
        if self._dead_zone > 0:
            y = track.bottom() - track.height() * self._dead_zone
            painter.setPen(QPen(DEAD_ZONE_RIM, 1, Qt.PenStyle.DashLine))
            painter.drawLine(QPointF(track.left() - 3, y), QPointF(track.right() + 3, y))
        painter.setPen(TEXT)
        painter.drawText(QRectF(0, track.bottom() + 2, self.width(), label_h),
                         Qt.AlignmentFlag.AlignCenter, self.name)
        painter.end()


class SignedBar(QWidget):
    """A command as a bar from the centre (0) towards -limit (left) or +limit (right), with
    its value written on it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._fraction = 0.0
        self._text = ""
        self.setMinimumSize(80, 16)

    def sizeHint(self) -> QSize:
        return QSize(140, 18)

    def fraction(self) -> float:
        return self._fraction

    def text(self) -> str:
        return self._text

    def set_value(self, fraction: float, text: str) -> None:
        """``fraction`` of the limit, -1..1 (clamped)."""
        fraction = _unit(fraction)
        if (fraction, text) != (self._fraction, self._text):
            self._fraction, self._text = fraction, text
            self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        track = QRectF(self.rect()).adjusted(0.5, 0.5, -0.5, -0.5)
        painter.setPen(QPen(RIM, 1))
        painter.setBrush(BASE)
        painter.drawRect(track)
        centre = track.center().x()
        width = track.width() / 2 * self._fraction
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(ONLINE))
        painter.drawRect(QRectF(min(centre, centre + width), track.top() + 2, abs(width),
                                track.height() - 4))
        painter.setPen(QPen(DEAD_ZONE_RIM, 1))
        painter.drawLine(QPointF(centre, track.top()), QPointF(centre, track.bottom()))
        painter.setPen(TEXT)
        painter.drawText(track, Qt.AlignmentFlag.AlignCenter, self._text)
        painter.end()
