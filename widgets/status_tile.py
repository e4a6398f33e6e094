"""A large, readable tile: a small caption over a big value, with a coloured edge and a
state word for what is not normal (never colour alone)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QLabel, QVBoxLayout, QWidget

from widgets.status_light import OFFLINE


class StatusTile(QFrame):
    def __init__(self, caption: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("tile")
        self.caption = QLabel(caption.upper())
        self.value = QLabel("—")
        self.detail = QLabel("")
        font = self.value.font()
        font.setPointSizeF(font.pointSizeF() * 2.2)
        font.setBold(True)
        self.value.setFont(font)
        for label in (self.caption, self.value, self.detail):
            label.setAlignment(Qt.AlignmentFlag.AlignCenter)
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
