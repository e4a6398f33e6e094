"""A one-line label that never widens its window: text too long for its width is cut with
"…" (at the right, or at the left for keys and paths), and the whole text is its tooltip."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QLabel, QSizePolicy, QWidget


class ElidedLabel(QLabel):
    def __init__(self, text: str = "", parent: QWidget | None = None, *,
                 elide: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
                 min_chars: int = 8) -> None:
        super().__init__(parent)
        self._full = ""
        self._tooltip: str | None = None
        self._elide = elide
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setMinimumWidth(self.fontMetrics().averageCharWidth() * min_chars)
        self.set_full_text(text)

    def full_text(self) -> str:
        return self._full

    def set_full_text(self, text: str, tooltip: str | None = None) -> None:
        """Shows ``text`` (cut to fit); the tooltip is ``tooltip`` or, when cut, the text."""
        if text == self._full and tooltip is None:
            return
        self._full = text
        self._tooltip = tooltip
        self._fit()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._fit()

    def _fit(self) -> None:
        room = max(0, self.contentsRect().width())
        shown = self.fontMetrics().elidedText(self._full, self._elide, room)
        if shown != self.text():
            self.setText(shown)
        tip = self._tooltip if self._tooltip is not None else \
            (self._full if shown != self._full else "")
        if tip != self.toolTip():
            self.setToolTip(tip)

    def sizeHint(self) -> QSize:
        """Wide enough for the whole text; the layout may give it less (then it is cut)."""
        hint = super().sizeHint()
        hint.setWidth(self.fontMetrics().horizontalAdvance(self._full) + 8)
        return hint
