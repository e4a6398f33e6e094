"""The playback bar: play / pause, step, a track to seek on with markers, speed and loop."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSizePolicy,
    QStyle,
    QToolButton,
    QWidget,
)

SPEEDS = (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0)
MARKER_COLOURS = {"fault": QColor("#f85149"), "estop": QColor("#ff7b72")}
TRACK = QColor("#30363d")
PLAYED = QColor("#388bfd")
HANDLE = QColor("#e6edf3")


@dataclass(frozen=True)
class TimelineMarker:
    fraction: float  # 0..1 along the log
    kind: str  # "fault" | "estop"
    text: str


def clock_text(seconds: float) -> str:
    seconds = max(0.0, seconds)
    minutes, rest = divmod(seconds, 60.0)
    hours, minutes = divmod(int(minutes), 60)
    return f"{hours}:{minutes:02d}:{rest:04.1f}" if hours else f"{minutes:02d}:{rest:04.1f}"


class TimelineTrack(QWidget):
    """Where the log is, what has played, and its markers; click or drag to seek."""

    seek = Signal(float)  # a fraction of the log

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fraction = 0.0
        self.markers: tuple[TimelineMarker, ...] = ()
        self.setMinimumSize(200, 22)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.setMouseTracking(True)
        self.setCursor(Qt.CursorShape.PointingHandCursor)

    def set_fraction(self, fraction: float) -> None:
        fraction = min(max(fraction, 0.0), 1.0)
        if fraction != self.fraction:
            self.fraction = fraction
            self.update()

    def set_markers(self, markers: tuple[TimelineMarker, ...]) -> None:
        self.markers = markers
        self.update()

    def _x(self, fraction: float) -> float:
        return 6.0 + fraction * (self.width() - 12.0)

    def fraction_at(self, x: float) -> float:
        return min(max((x - 6.0) / max(1.0, self.width() - 12.0), 0.0), 1.0)

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        mid = self.height() / 2
        track = QRectF(6.0, mid - 3, self.width() - 12.0, 6)
        painter.fillRect(track, TRACK)
        painter.fillRect(QRectF(6.0, mid - 3, self._x(self.fraction) - 6.0, 6), PLAYED)
        for marker in self.markers:
            x = self._x(marker.fraction)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(MARKER_COLOURS.get(marker.kind, QColor("#d29922")))
            painter.drawPolygon(QPolygonF([QPointF(x - 4, 1), QPointF(x + 4, 1),
                                           QPointF(x, mid - 3)]))
        painter.setPen(QPen(QColor("#0d1117"), 1))
        painter.setBrush(HANDLE)
        painter.drawEllipse(QPointF(self._x(self.fraction), mid), 6, 6)
        painter.end()

    def marker_near(self, x: float) -> TimelineMarker | None:
        return next((m for m in self.markers if abs(self._x(m.fraction) - x) <= 4), None)

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self.seek.emit(self.fraction_at(event.position().x()))

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.seek.emit(self.fraction_at(event.position().x()))
        marker = self.marker_near(event.position().x())
        self.setToolTip(marker.text if marker is not None else "")


class TimelineBar(QWidget):
    play_pause = Signal()
    step = Signal()
    seek = Signal(float)
    speed_changed = Signal(float)
    loop_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._play_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPlay)
        self._pause_icon = self.style().standardIcon(QStyle.StandardPixmap.SP_MediaPause)
        self.play_button = QToolButton(self)
        self.play_button.setIcon(self._play_icon)
        self.play_button.setToolTip("Play / pause")
        self.play_button.clicked.connect(self.play_pause)
        self.step_button = QToolButton(self)
        self.step_button.setIcon(
            self.style().standardIcon(QStyle.StandardPixmap.SP_MediaSkipForward))
        self.step_button.setToolTip("Step: play the next 0.1 s")
        self.step_button.clicked.connect(self.step)
        self.track = TimelineTrack(self)
        self.track.seek.connect(self.seek)
        self.time_label = QLabel("00:00.0 / 00:00.0", self)
        self.time_label.setMinimumWidth(130)
        self.speed = QComboBox(self)
        for speed in SPEEDS:
            self.speed.addItem(f"{speed:g}x", speed)
        self.speed.setCurrentIndex(SPEEDS.index(1.0))
        self.speed.setToolTip("Playback speed")
        self.speed.currentIndexChanged.connect(
            lambda i: self.speed_changed.emit(float(self.speed.itemData(i))))
        self.playing = False
        self.loop = QCheckBox("Loop", self)
        self.loop.toggled.connect(self.loop_changed)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 0, 4, 0)
        for widget in (self.play_button, self.step_button, self.track, self.time_label,
                       self.speed, self.loop):
            layout.addWidget(widget)

    def show_state(self, fraction: float, position_s: float, duration_s: float,
                   playing: bool) -> None:
        self.track.set_fraction(fraction)
        self.playing = playing
        self.play_button.setIcon(self._pause_icon if playing else self._play_icon)
        text = f"{clock_text(position_s)} / {clock_text(duration_s)}"
        if self.time_label.text() != text:
            self.time_label.setText(text)

    def set_markers(self, markers: tuple[TimelineMarker, ...]) -> None:
        self.track.set_markers(markers)
