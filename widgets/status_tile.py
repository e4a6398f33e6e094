"""A large, readable tile: a small caption over a big value, with a coloured edge and a
state word for what is not normal (never colour alone). A value wider than the tile is set
in a smaller type, never cut; the caption and the state word wrap."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QResizeEvent
from PySide6.QtWidgets import QFrame, QLabel, QSizePolicy, QVBoxLayout, QWidget

from widgets.status_light import OFFLINE

VALUE_SCALE = 2.2  # the value's type, in the caption's sizes
SMALLEST_SCALE = 1.0  # as small as it gets to fit the tile


class StatusTile(QFrame):
    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tile")
        self.caption = QLabel(caption.upper())
        self.value = QLabel("—")
        self.detail = QLabel("")
        self._base_points = self.value.font().pointSizeF()
        font = self.value.font()
        font.setBold(True)
        self.value.setFont(font)
        for label in (self.caption, self.value, self.detail):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.caption.setWordWrap(True)
        self.detail.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setSpacing(0)
        layout.addWidget(self.caption)
        layout.addWidget(self.value, 1)
        layout.addWidget(self.detail)
        self.colour = ""
        self.set("—", "", OFFLINE)

    def set(self, value: str, detail: str = "", colour: str = "", fill: bool = False) -> None:
        """``fill`` paints the whole tile (an alarm seen across the room)."""
        if (value, detail, colour, fill) == (self.value.text(), self.detail.text(),
                                             self.colour, self._fill):
            return
        self.value.setText(value)
        self._fit_value()
        self.detail.setText(detail)
        self.detail.setVisible(bool(detail))
        if (colour, fill) == (self.colour, self._fill):
            return  # a new style sheet re-styles the tile: milliseconds, so only on a change
        self.colour, self._fill = colour, fill
        edge = colour or OFFLINE
        background = f"background:{edge};" if fill else ""
        text = "color:#ffffff;" if fill else (f"color:{colour};" if colour else "")
        self.setStyleSheet(f"QFrame#tile{{border:2px solid {edge};border-radius:6px;"
                           f"{background}}}")
        self.value.setStyleSheet(text)

    _fill = False

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit_value()

    def _fit_value(self) -> None:
        """The largest type, up to VALUE_SCALE, in which the value fits the tile's width."""
        room = self.contentsRect().width() - 12
        font = self.value.font()
        scale = VALUE_SCALE
        while scale > SMALLEST_SCALE:
            font.setPointSizeF(self._base_points * scale)
            if QFontMetrics(font).horizontalAdvance(self.value.text()) <= room:
                break
            scale -= 0.1
        else:
            font.setPointSizeF(self._base_points * SMALLEST_SCALE)
        if font != self.value.font():
            self.value.setFont(font)
