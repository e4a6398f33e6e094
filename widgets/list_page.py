"""A list panel's body: a top bar (a search field, the panel's own controls, a count of the
rows) over its list, and a hint in the list's place while there is nothing to list."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QStackedWidget, QVBoxLayout, QWidget


class ListPage:
    """Lays out ``owner``: the top bar, then ``view`` (or the hint). The owner connects the
    search field and writes the count and the hint's text."""

    def __init__(self, owner: QWidget, view: QWidget, placeholder: str,
                 controls: Sequence[QWidget] = ()) -> None:
        self.view = view
        self.search = QLineEdit()
        self.search.setPlaceholderText(placeholder)
        self.search.setClearButtonEnabled(True)
        self.count = QLabel()
        self.count.setContentsMargins(6, 0, 6, 0)
        self.hint = QLabel()
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setWordWrap(True)
        self.hint.setEnabled(False)
        self.pages = QStackedWidget()
        self.pages.addWidget(self.hint)
        self.pages.addWidget(view)

        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        for control in controls:
            top.addWidget(control)
        top.addWidget(self.count)
        layout = QVBoxLayout(owner)
        layout.setContentsMargins(2, 2, 2, 2)
        layout.addLayout(top)
        layout.addWidget(self.pages, 1)

    def show_list(self, shown: bool) -> None:
        """The list when ``shown``, else the hint in its place."""
        self.pages.setCurrentWidget(self.view if shown else self.hint)
