"""An on-screen thumb stick for mouse and touch: drag the knob, let go and it springs back.

It reports x and y in -1..1 with SDL's signs (right +, down +: pushing up gives y = -1),
clamped to the unit circle, as a gamepad stick would. The dead zone is only drawn (the
teleop profile applies it), so the operator sees where the stick starts to count.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QEvent, QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QTouchEvent
from PySide6.QtWidgets import QWidget

from widgets.status_light import ONLINE

BASE = QColor("#2d3139")
RIM = QColor("#4a505a")
DEAD_ZONE = QColor("#3a404a")
DEAD_ZONE_RIM = QColor("#d0d6de")
KNOB = QColor("#8b949e")
KNOB_RATIO = 0.25  # knob radius / travel


class VirtualStick(QWidget):
    """``moved(x, y)`` on every change of position; ``held_changed(held)`` when a finger or
    the mouse takes or leaves the knob (the panel may treat holding it as the deadman)."""

    moved = Signal(float, float)
    held_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None, *, dead_zone: float = 0.1) -> None:
        super().__init__(parent)
        self._x = 0.0
        self._y = 0.0
        self._held = False
        self._dead_zone = 0.0
        self.set_dead_zone(dead_zone)
        self.setAttribute(Qt.WidgetAttribute.WA_AcceptTouchEvents)
        self.setMinimumSize(80, 80)

    def sizeHint(self) -> QSize:
        return QSize(160, 160)

    def value(self) -> tuple[float, float]:
        return self._x, self._y

    def is_held(self) -> bool:
        return self._held

    @property
    def dead_zone(self) -> float:
        return self._dead_zone

    def set_dead_zone(self, radius: float) -> None:
        """The radius drawn as the dead zone, as a fraction of the stick's travel (0..1)."""
        radius = float(radius)
        self._dead_zone = min(max(radius, 0.0), 1.0) if math.isfinite(radius) else 0.0
        self.update()

    def release(self) -> None:
        """Let go of the knob: it springs back to the centre and reports (0, 0)."""
        self._set_held(False)
        self._move_to(0.0, 0.0)

    # Geometry: the knob's centre travels over a circle of ``_travel()`` pixels.
    def _centre(self) -> QPointF:
        return QRectF(self.rect()).center()

    def _travel(self) -> float:
        return max(1.0, min(self.width(), self.height()) / 2 / (1 + KNOB_RATIO) - 2)

    def _drag_to(self, point: QPointF) -> None:
        centre, travel = self._centre(), self._travel()
        x, y = (point.x() - centre.x()) / travel, (point.y() - centre.y()) / travel
        length = math.hypot(x, y)
        if length > 1.0:
            x, y = x / length, y / length
        self._move_to(x, y)

    def _move_to(self, x: float, y: float) -> None:
        if (x, y) == (self._x, self._y):
            return
        self._x, self._y = x, y
        self.update()
        self.moved.emit(x, y)

    def _set_held(self, held: bool) -> None:
        if held != self._held:
            self._held = held
            self.update()
            self.held_changed.emit(held)

    def _press(self, point: QPointF) -> bool:
        reach = self._travel() * (1 + KNOB_RATIO)
        offset = point - self._centre()
        if math.hypot(offset.x(), offset.y()) > reach:
            return False
        self._set_held(True)
        self._drag_to(point)
        return True

    # Mouse
    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton and self._press(event.position()):
            event.accept()
        else:
            event.ignore()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._held:
            self._drag_to(event.position())

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.release()

    # Touch (accepted, so Qt synthesises no mouse events from it)
    def event(self, event: QEvent) -> bool:
        kind = event.type()
        if isinstance(event, QTouchEvent) and kind in (
                QEvent.Type.TouchBegin, QEvent.Type.TouchUpdate, QEvent.Type.TouchEnd,
                QEvent.Type.TouchCancel):
            points = event.points()
            if kind in (QEvent.Type.TouchEnd, QEvent.Type.TouchCancel) or not points:
                self.release()
            elif kind == QEvent.Type.TouchBegin:
                if not self._press(points[0].position()):
                    event.ignore()
                    return False
            elif self._held:
                self._drag_to(points[0].position())
            event.accept()
            return True
        if kind in (QEvent.Type.Hide, QEvent.Type.EnabledChange) and self._held:
            self.release()  # a stick nobody can see or touch must not stay pushed
        return super().event(event)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        centre, travel = self._centre(), self._travel()
        knob = travel * KNOB_RATIO
        painter.setPen(QPen(RIM, 1.5))
        painter.setBrush(BASE)
        painter.drawEllipse(centre, travel + knob, travel + knob)
        dead = travel * self._dead_zone
        if dead > 0:
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(DEAD_ZONE)
            painter.drawEllipse(centre, dead, dead)
        painter.setPen(QPen(RIM, 1))
        painter.drawLine(QPointF(centre.x() - travel, centre.y()),
                         QPointF(centre.x() + travel, centre.y()))
        painter.drawLine(QPointF(centre.x(), centre.y() - travel),
                         QPointF(centre.x(), centre.y() + travel))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(ONLINE) if self._held else KNOB)
        painter.drawEllipse(QPointF(centre.x() + self._x * travel, centre.y() + self._y * travel),
                            knob, knob)
        if dead > 0:  # its rim over the knob too: at rest the knob covers a small dead zone
            painter.setPen(QPen(DEAD_ZONE_RIM, 1.5, Qt.PenStyle.DashLine))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawEllipse(centre, dead, dead)
        painter.end()
