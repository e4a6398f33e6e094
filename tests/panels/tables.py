"""Reading a panel's table as a user sees it: the displayed text of each row, by key."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtWidgets import QTableView

from widgets.table import KEY_ROLE


def rows(view: QTableView) -> dict[str, list[str]]:
    """Displayed text of every visible row, keyed by the row's key, in display order."""
    model = view.model()
    return {model.index(r, 0).data(KEY_ROLE): [model.index(r, c).data() or ""
                                               for c in range(model.columnCount())]
            for r in range(model.rowCount())}


def cell(view: QTableView, key: str, column: int,
         role: Qt.ItemDataRole | int = Qt.ItemDataRole.DisplayRole) -> Any:
    index = index_of(view, key, column)
    return None if index is None else index.data(role)


def index_of(view: QTableView, key: str, column: int = 0) -> QModelIndex | None:
    model = view.model()
    for r in range(model.rowCount()):
        if model.index(r, 0).data(KEY_ROLE) == key:
            return model.index(r, column)
    return None
