"""An editable combo box whose choices can be refreshed while the user types in it."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QCompleter, QLineEdit, QWidget


class ChoiceBox(QComboBox):
    """Free text with suggestions (matched anywhere in the text, not only at its start)."""

    def __init__(self, placeholder: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setEditable(True)
        self.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.setMinimumContentsLength(18)
        self.lineEdit().setPlaceholderText(placeholder)
        completer = self.completer()
        assert completer is not None  # an editable combo box has one
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        completer.setCompletionMode(QCompleter.CompletionMode.PopupCompletion)

    def lineEdit(self) -> QLineEdit:
        """The box's line edit; never None (the box is editable from ``__init__``)."""
        line = super().lineEdit()
        assert line is not None
        return line

    def choices(self) -> list[str]:
        return [self.itemText(i) for i in range(self.count())]

    def set_choices(self, items: list[str], text: str | None = None) -> None:
        """Replaces the suggestions, keeping what is typed (or setting ``text``) and where
        the cursor is; leaves an open list alone unless ``text`` is given."""
        if text is None and (items == self.choices() or self.view().isVisible()):
            return
        line = self.lineEdit()
        keep, cursor = line.text(), line.cursorPosition()
        self.blockSignals(True)
        self.clear()
        self.addItems(items)
        self.blockSignals(False)
        if text is None:
            line.setText(keep)
            line.setCursorPosition(cursor)
        else:
            self.setEditText(text)
