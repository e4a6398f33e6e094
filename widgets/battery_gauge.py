"""A battery gauge: a level bar coloured by warning/critical thresholds with its state in
words (never colour alone), the pack's readings and a sparkline of the recent charge."""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from widgets.status_light import ALARM, OFFLINE, ONLINE, WARNING

TRACK = QColor("#2d3139")
HISTORY_S = 300.0  # the sparkline's span
HISTORY_MAX = 2000


WARNING_PCT, CRITICAL_PCT = 30.0, 15.0  # default thresholds (the panel can change them)

@dataclass(frozen=True)
class BatteryReading:
    """Plain values; None = unknown. ``current_a`` is negative while discharging."""

    percentage: float | None
    voltage_v: float | None = None
    current_a: float | None = None
    temperature_c: float | None = None
    status: str = ""
    health: str = ""
    technology: str = ""
    runtime_s: float | None = None


def level_state(percentage: float | None, warning: float, critical: float) -> tuple[str, str]:
    """(state word, colour) of a charge against the thresholds."""
    if percentage is None or not math.isfinite(percentage):
        return "UNKNOWN", OFFLINE
    if percentage <= critical:
        return "CRITICAL", ALARM
    if percentage <= warning:
        return "LOW", WARNING
    return "OK", ONLINE


def current_text(current_a: float | None) -> str:
    if current_a is None:
        return "—"
    if current_a > 0:
        return f"{current_a:.1f} A charging"
    if current_a < 0:
        return f"{-current_a:.1f} A discharging"
    return "0.0 A idle"


def duration_text(seconds: float | None) -> str:
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "—"
    minutes = int(seconds // 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{minutes} min"


def _number(value: float | None, unit: str, digits: int = 1) -> str:
    return "—" if value is None or not math.isfinite(value) else f"{value:.{digits}f} {unit}"


class BatteryGauge(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.warning = WARNING_PCT
        self.critical = CRITICAL_PCT
        self.reading: BatteryReading | None = None
        self.stale = False
        self._history: deque[tuple[float, float]] = deque(maxlen=HISTORY_MAX)
        self.setMinimumSize(220, 150)

    # -- plain data in ----------------------------------------------------------------------
    def set_thresholds(self, warning: float, critical: float) -> None:
        self.warning, self.critical = warning, min(critical, warning)
        self.update()

    def set_reading(self, reading: BatteryReading | None, stale: bool = False) -> None:
        self.reading, self.stale = reading, stale
        self.update()

    def add_history(self, t: float, percentage: float | None) -> None:
        """Adds a point of the sparkline (``t`` in seconds, any clock); unknowns are skipped."""
        if percentage is not None and math.isfinite(percentage):
            if self._history and t <= self._history[-1][0]:
                return
            self._history.append((t, percentage))
            while self._history and self._history[0][0] < t - HISTORY_S:
                self._history.popleft()

    def clear_history(self) -> None:
        self._history.clear()

    def history(self) -> list[tuple[float, float]]:
        return list(self._history)

    # -- what it says ---------------------------------------------------------------------
    def state(self) -> tuple[str, str]:
        """(state word, colour): OK, LOW, CRITICAL, UNKNOWN; NO DATA without a reading."""
        if self.reading is None:
            return "NO DATA", OFFLINE
        word, colour = level_state(self.reading.percentage, self.warning, self.critical)
        return (f"{word} (STALE)", OFFLINE) if self.stale else (word, colour)

    def headline(self) -> str:
        word, _ = self.state()
        pct = self.reading.percentage if self.reading else None
        if pct is None or not math.isfinite(pct):
            return word
        return f"{pct:.0f} % · {word}"

    def details(self) -> list[tuple[str, str]]:
        r = self.reading
        if r is None:
            return []
        return [
            ("Voltage", _number(r.voltage_v, "V", 2)),
            ("Current", current_text(r.current_a)),
            ("Temperature", _number(r.temperature_c, "°C")),
            ("Status", r.status or "—"),
            ("Health", r.health or "—"),
            ("Technology", r.technology or "—"),
            ("Runtime left", duration_text(r.runtime_s)),
        ]

    # -- painting ---------------------------------------------------------------------------
    def sizeHint(self) -> QSize:
        return QSize(320, 220)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        rect = QRectF(self.rect()).adjusted(8, 8, -8, -8)
        _, colour = self.state()
        big = QFont(self.font())
        big.setPointSizeF(self.font().pointSizeF() * 1.8)
        big.setBold(True)
        painter.setFont(big)
        line = painter.fontMetrics().height()
        painter.setPen(QColor(colour))
        painter.drawText(QRectF(rect.left(), rect.top(), rect.width(), line),
                         int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                         self.headline())
        bar = QRectF(rect.left(), rect.top() + line + 4, rect.width(), 14)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(TRACK)
        painter.drawRoundedRect(bar, 4, 4)
        pct = self.reading.percentage if self.reading else None
        if pct is not None and math.isfinite(pct):
            painter.setBrush(QColor(colour))
            fill = min(100.0, max(0.0, pct)) / 100.0
            painter.drawRoundedRect(QRectF(bar.left(), bar.top(), bar.width() * fill,
                                           bar.height()), 4, 4)
        self._paint_thresholds(painter, bar)
        painter.setFont(self.font())
        small = painter.fontMetrics().height()
        y = bar.bottom() + 6
        details = self.details()
        half = rect.width() / 2
        painter.setPen(self.palette().color(self.palette().ColorRole.Text))
        for i, (name, value) in enumerate(details):
            x = rect.left() + (i % 2) * half
            row = y + (i // 2) * small
            painter.drawText(QRectF(x, row, half - 4, small),
                             int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                             f"{name}: {value}")
        top = y + ((len(details) + 1) // 2) * small + 6
        self._paint_sparkline(painter, QRectF(rect.left(), top, rect.width(),
                                              max(0.0, rect.bottom() - top)))
        painter.end()

    def _paint_thresholds(self, painter: QPainter, bar: QRectF) -> None:
        for level, colour in ((self.warning, WARNING), (self.critical, ALARM)):
            x = bar.left() + bar.width() * min(100.0, max(0.0, level)) / 100.0
            painter.setPen(QPen(QColor(colour), 2))
            painter.drawLine(QPointF(x, bar.top() - 2), QPointF(x, bar.bottom() + 2))

    def sparkline_labels(self) -> tuple[str, str, str, str]:
        """The sparkline's axes as drawn: charge at its top and bottom, the time its left
        edge stands for, and its right edge's."""
        span = self._history[-1][0] - max(self._history[0][0], self._history[-1][0]
                                          - HISTORY_S) if self._history else 0.0
        ago = f"−{span / 60:.1f} min" if span >= 60 else f"−{span:.0f} s"
        return "100 %", "0 %", ago, "now"

    def _paint_sparkline(self, painter: QPainter, whole: QRectF) -> None:
        line = painter.fontMetrics().height()
        if whole.height() < 12 + line or len(self._history) < 2:
            return
        area = QRectF(whole.left(), whole.top(), whole.width(), whole.height() - line)
        painter.setPen(QPen(TRACK, 1))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawRect(area)
        top, bottom, ago, now = self.sparkline_labels()
        painter.setPen(self.palette().color(self.palette().ColorRole.PlaceholderText))
        left, right = Qt.AlignmentFlag.AlignLeft, Qt.AlignmentFlag.AlignRight
        for text, box, side in (
                (top, QRectF(area.left() + 3, area.top(), area.width(), line), left),
                (bottom, QRectF(area.left() + 3, area.bottom() - line, area.width(), line),
                 left),
                (ago, QRectF(area.left(), area.bottom(), area.width(), line), left),
                (now, QRectF(area.left(), area.bottom(), area.width(), line), right)):
            painter.drawText(box, int(side | Qt.AlignmentFlag.AlignVCenter), text)
        t_end = self._history[-1][0]
        t_start = max(self._history[0][0], t_end - HISTORY_S)
        span = max(1e-6, t_end - t_start)
        points = QPolygonF([
            QPointF(area.left() + area.width() * (t - t_start) / span,
                    area.bottom() - area.height() * min(100.0, max(0.0, p)) / 100.0)
            for t, p in self._history if t >= t_start])
        _, colour = self.state()
        painter.setPen(QPen(QColor(colour), 1.5))
        painter.drawPolyline(points)
