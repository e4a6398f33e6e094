"""Keyed rows of cells (what the row models of ``widgets.grouped_rows`` show), a
substring-or-glob filter, and the station's table view.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtCore import (
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QAbstractItemView, QHeaderView, QTableView, QTreeView

SORT_ROLE = Qt.ItemDataRole.UserRole + 1  # what the column sorts by (number or text)
KEY_ROLE = Qt.ItemDataRole.UserRole + 2  # the row's key
VALUE_ROLE = Qt.ItemDataRole.UserRole + 3  # a raw value for delegates (e.g. a level)
MUTED_ROLE = Qt.ItemDataRole.UserRole + 4  # the row is greyed out

MUTED_TEXT = QColor("#7d8590")
HIGHLIGHT = QColor("#1e3a57")
GLOB_CHARS = frozenset("*?[")

Index = QModelIndex | QPersistentModelIndex
View = TypeVar("View", QTableView, QTreeView)


@dataclass(frozen=True)
class Cell:
    text: str = ""
    sort: float | str | None = None  # defaults to the text
    tooltip: str = ""
    colour: str = ""  # text colour; wins over a muted row
    background: str = ""
    bold: bool = False
    light: str = ""  # colour of a status light shown before the text
    value: float | None = None
    numeric: bool = False  # right-aligned


@dataclass(frozen=True)
class Row:
    key: str
    cells: tuple[Cell, ...]
    muted: bool = False  # greyed (e.g. an offline robot)
    highlight: bool = False  # tinted and bold (e.g. the active robot)


class TextFilterProxy(QSortFilterProxyModel):
    """Sorts by SORT_ROLE; keeps rows where some of ``columns`` contains the filter text
    (case-insensitive), or matches it as a glob when it has ``*``, ``?`` or ``[``."""

    def __init__(self, columns: tuple[int, ...], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.columns = columns
        self.pattern = ""
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)

    def set_pattern(self, text: str) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.9+, where invalidateRowsFilter is deprecated
            self.beginFilterChange()
            self.pattern = text.strip().lower()
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.pattern = text.strip().lower()
            self.invalidateRowsFilter()

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if not self.pattern:
            return True
        model = self.sourceModel()
        texts = [str(model.index(source_row, c, source_parent).data() or "").lower()
                 for c in self.columns]
        if GLOB_CHARS & set(self.pattern):
            return any(fnmatch.fnmatchcase(t, self.pattern) for t in texts)
        return any(self.pattern in t for t in texts)


def set_up_view(view: View, model: QSortFilterProxyModel, widths: Sequence[int],
                stretch: int) -> View:
    """``view`` (a table or a tree) on ``model`` in the station's quiet style: read-only,
    row-selecting, sortable, unwrapped, rows in alternating colours; columns start
    ``widths`` characters wide, except ``stretch``, which takes the spare room."""
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSortingEnabled(True)
    view.setWordWrap(False)
    view.setAlternatingRowColors(True)
    header = view.horizontalHeader() if isinstance(view, QTableView) else view.header()
    header.setHighlightSections(False)
    header.setStretchLastSection(False)
    char = view.fontMetrics().averageCharWidth()
    for column, width in enumerate(widths):
        header.resizeSection(column, width * char + 16)
    header.setSectionResizeMode(stretch, QHeaderView.ResizeMode.Stretch)
    return view


def make_table_view(model: QSortFilterProxyModel, widths: Sequence[int],
                    stretch: int) -> QTableView:
    """A table set up by :func:`set_up_view`, without a grid or row numbers."""
    view = set_up_view(QTableView(), model, widths, stretch)
    view.setShowGrid(False)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(view.fontMetrics().height() + 8)
    return view


class FlooredStretch(QObject):
    """Keeps a view's stretch column (:func:`set_up_view`) at ``floor`` characters at least:
    with less spare room than that it stops stretching, keeps ``floor`` and the columns after
    it scroll into view (a stretch column alone is squeezed to a few pixels)."""

    def __init__(self, view: QTableView | QTreeView, column: int, floor: int) -> None:
        super().__init__(view)
        self.view = view
        self.column = column
        self.floor_px = floor * view.fontMetrics().averageCharWidth() + 16
        self.header = view.horizontalHeader() if isinstance(view, QTableView) else view.header()
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def fit(self) -> None:
        header = self.header
        others = sum(header.sectionSize(c) for c in range(header.count())
                     if c != self.column and not header.isSectionHidden(c))
        if self.view.viewport().width() - others >= self.floor_px:
            header.setSectionResizeMode(self.column, QHeaderView.ResizeMode.Stretch)
        else:
            header.setSectionResizeMode(self.column, QHeaderView.ResizeMode.Interactive)
            header.resizeSection(self.column, self.floor_px)


class ContentColumns(QObject):
    """Keeps a table's columns as wide as their content, ``first`` first: when the view is
    too narrow for all of them, ``first`` keeps its content width (or the view's, but not
    under ``floor`` characters) and the rest scroll into view; spare room widens ``first``.
    Refits when rows come or go (once for all that came in one go: measuring the content
    reads up to a thousand rows) and when the view is resized."""

    def __init__(self, view: QTableView, first: int, floor: int = 24) -> None:
        super().__init__(view)
        self.view = view
        self.first = first
        self.floor = floor
        header = view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        view.setHorizontalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self._refit = QTimer(self)
        self._refit.setSingleShot(True)
        self._refit.setInterval(0)
        self._refit.timeout.connect(self.fit)
        model = view.model()
        for signal in (model.rowsInserted, model.rowsRemoved, model.modelReset):
            signal.connect(self._refit.start)
        view.viewport().installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize:
            self.fit()
        return False

    def content_widths(self) -> list[int]:
        header = self.view.horizontalHeader()
        return [max(self.view.sizeHintForColumn(c), header.sectionSizeHint(c))
                for c in range(header.count())]

    def fit(self) -> None:
        widths = self.content_widths()
        if not widths:
            return
        room = self.view.viewport().width()
        others = sum(widths) - widths[self.first]
        floor = min(widths[self.first], self.floor * self.view.fontMetrics().averageCharWidth())
        widths[self.first] = max(room - others, min(widths[self.first], room), floor)
        header = self.view.horizontalHeader()
        for column, width in enumerate(widths):
            header.resizeSection(column, width)


def sort_state(view: QTableView | QTreeView) -> dict[str, Any]:
    header = view.header() if isinstance(view, QTreeView) else view.horizontalHeader()
    descending = header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    return {"sort_column": header.sortIndicatorSection(),
            "sort_order": "descending" if descending else "ascending"}


def restore_sort(view: QTableView | QTreeView, state: dict[str, Any], default_column: int) -> None:
    """Sorts as ``state`` says; a missing or bad entry falls back to the default."""
    state = state if isinstance(state, dict) else {}
    column = state.get("sort_column")
    columns = view.model().columnCount()
    if not isinstance(column, int) or isinstance(column, bool) or not 0 <= column < columns:
        column = default_column
    order = (Qt.SortOrder.DescendingOrder if state.get("sort_order") == "descending"
             else Qt.SortOrder.AscendingOrder)
    view.sortByColumn(column, order)
