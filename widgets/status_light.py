"""Status lights: small coloured dots for online, offline and alarm states."""

from __future__ import annotations

import functools

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap, QRadialGradient

ONLINE = "#3fb950"
OFFLINE = "#6e7681"
WARNING = "#d29922"
ALARM = "#f85149"


@functools.cache
def light_icon(colour: str, size: int = 12) -> QIcon:
    """A lit dot of ``colour`` (one icon per colour and size, drawn once; needs a
    QGuiApplication). Drawn at 2x so it stays sharp on high-DPI screens."""
    scale = 2
    pixmap = QPixmap(size * scale, size * scale)
    pixmap.setDevicePixelRatio(scale)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    base = QColor(colour)
    centre = QPointF(size / 2, size / 2)
    radius = size / 2 - 1
    glow = QRadialGradient(centre - QPointF(radius / 3, radius / 3), radius * 1.4)
    glow.setColorAt(0.0, base.lighter(150))
    glow.setColorAt(1.0, base.darker(120))
    painter.setBrush(glow)
    painter.setPen(QPen(base.darker(170), 1))
    painter.drawEllipse(centre, radius, radius)
    painter.end()
    return QIcon(pixmap)
