"""A table cell drawn as a level bar (battery, fill, charge): 0-100, coloured by level."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex, QObject, QPersistentModelIndex, QRectF, Qt
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem

from widgets.status_light import ALARM, OFFLINE, ONLINE, WARNING
from widgets.table import MUTED_ROLE, MUTED_TEXT, VALUE_ROLE

LOW, MEDIUM = 20.0, 50.0
TRACK = QColor("#2d3139")


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

    def paint(self, painter: QPainter, option: QStyleOptionViewItem,
              index: QModelIndex | QPersistentModelIndex) -> None:
        value = index.data(VALUE_ROLE)
        if value is None:
            super().paint(painter, option, index)
            return
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        text, opt.text = opt.text, ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        percent = min(100.0, max(0.0, float(value)))
        rect = QRectF(opt.rect).adjusted(4, 0, -4, 0)
        text_width = max(opt.fontMetrics.horizontalAdvance("100 %"),
                         opt.fontMetrics.horizontalAdvance(text)) + 6
        bar = QRectF(rect.left(), rect.center().y() - 4,
                     max(8.0, rect.width() - text_width), 8)
        colour = QColor(OFFLINE if index.data(MUTED_ROLE) else self._colour_of(percent))
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(TRACK)
        painter.drawRoundedRect(bar, 3, 3)
        painter.setBrush(colour)
        painter.drawRoundedRect(QRectF(bar.left(), bar.top(), bar.width() * percent / 100,
                                       bar.height()), 3, 3)
        if opt.state & QStyle.StateFlag.State_Selected:
            painter.setPen(opt.palette.color(opt.palette.ColorRole.HighlightedText))
        else:
            painter.setPen(MUTED_TEXT if index.data(MUTED_ROLE)
                           else opt.palette.color(opt.palette.ColorRole.Text))
        text_rect = QRectF(bar.right() + 4, opt.rect.top(), rect.right() - bar.right() - 4,
                           opt.rect.height())
        painter.drawText(text_rect, int(Qt.AlignmentFlag.AlignRight
                                        | Qt.AlignmentFlag.AlignVCenter), text)
        painter.restore()
