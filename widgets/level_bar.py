"""A table cell drawn as a level bar (battery, fill, charge): 0-100, coloured by level."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRect, QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from widgets.status_light import ALARM, OFFLINE, ONLINE, WARNING
from widgets.table import MUTED_ROLE, MUTED_TEXT, VALUE_ROLE

LOW, MEDIUM = 20.0, 50.0
TRACK = QColor("#2d3139")
BAR_HEIGHT = 8  # px
BARS_KEPT = 1024  # bars drawn and kept; more, and they are drawn afresh
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter


def level_colour(percent: float) -> str:
    if percent < LOW:
        return ALARM
    if percent < MEDIUM:
        return WARNING
    return ONLINE


class LevelBarDelegate(QStyledItemDelegate):
    """Paints VALUE_ROLE (0-100, None = unknown) as a bar with the cell's text beside it,
    coloured by ``colour_of`` (default: by level)."""

    def __init__(self, parent: QObject | None = None,
                 colour_of: Callable[[float], str] = level_colour) -> None:
        super().__init__(parent)
        self._colour_of = colour_of
        # A table of a thousand robots paints a few dozen bars a frame, of a few widths:
        # each bar is drawn once, by its width, filled pixels, colour and pixel ratio.
        self._bars: dict[tuple[int, int, str, float], QPixmap] = {}

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        value = index.data(VALUE_ROLE)
        if value is None:
            super().paint(painter, option, index)
            return
        muted = index.data(MUTED_ROLE)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        widget = opt.widget
        if widget is not None:
            widget.style().drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter,
                                       widget)
        percent = min(100.0, max(0.0, float(value)))
        rect, metrics = opt.rect, opt.fontMetrics
        left, right = rect.left() + 4, rect.right() - 4
        text_width = max(metrics.horizontalAdvance("100 %"), metrics.horizontalAdvance(text)) + 6
        width = max(8, right - left - text_width)
        colour = OFFLINE if muted else self._colour_of(percent)
        painter.drawPixmap(left, rect.top() + (rect.height() - BAR_HEIGHT) // 2,
                           self._bar(width, round(width * percent / 100), colour,
                                     painter.device().devicePixelRatioF()))
        if opt.state & QStyle.StateFlag.State_Selected:
            painter.setPen(opt.palette.color(QPalette.ColorRole.HighlightedText))
        else:
            painter.setPen(MUTED_TEXT if muted else opt.palette.color(QPalette.ColorRole.Text))
        painter.drawText(QRect(left + width + 4, rect.top(), right - left - width - 4,
                               rect.height()), RIGHT, text)

    def _bar(self, width: int, filled: int, colour: str, ratio: float) -> QPixmap:
        key = (width, filled, colour, ratio)
        bar = self._bars.get(key)
        if bar is None:
            if len(self._bars) >= BARS_KEPT:
                self._bars.clear()
            bar = QPixmap(round(width * ratio), round(BAR_HEIGHT * ratio))
            bar.setDevicePixelRatio(ratio)
            bar.fill(Qt.GlobalColor.transparent)
            painter = QPainter(bar)
            painter.setRenderHint(QPainter.RenderHint.Antialiasing)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(TRACK)
            painter.drawRoundedRect(QRectF(0, 0, width, BAR_HEIGHT), 3, 3)
            painter.setBrush(QColor(colour))
            painter.drawRoundedRect(QRectF(0, 0, filled, BAR_HEIGHT), 3, 3)
            painter.end()
            self._bars[key] = bar
        return bar
