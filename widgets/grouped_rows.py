"""Keyed rows shown flat (:class:`RowsModel`) or under group rows ("Fault (3)"), updated in
place, and the proxy and tree view that sort and filter them.

The rows live in a QStandardItemModel, so painting and sorting run in C++ and never call
Python per cell. :meth:`GroupedRowsModel.set_rows` touches only what differs (changed cells
with one dataChanged per group, rows moved between groups, rows and groups that come or
go), so a view keeps its selection, scroll position and collapsed groups; only
:meth:`GroupedRowsModel.reset_rows` (a new way of grouping) resets the model, and reuses
the rows' items. Groups keep their own order whatever column and order the rows are
sorted by.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import (
    Q_ARG,
    QMetaObject,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
)
from PySide6.QtGui import QColor, QFont, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QTreeView

from widgets.status_light import light_icon
from widgets.table import (
    HIGHLIGHT,
    KEY_ROLE,
    MUTED_ROLE,
    MUTED_TEXT,
    SORT_ROLE,
    VALUE_ROLE,
    Cell,
    Row,
    set_up_view,
)

GROUP_ROLE = Qt.ItemDataRole.UserRole + 10  # a group row's group key; None on a row
R = Qt.ItemDataRole
RIGHT = Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter
MAX_RUNS = 8  # dataChanged signals per group and update; more are joined into one

Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class Group:
    key: str
    label: str  # shown as it is (the caller puts the counts in)
    order: tuple[Any, ...]  # groups sort by it, whatever the sort column and order


class GroupedRowsModel(QStandardItemModel):
    """Rows at the top level (flat), or under one group row per group (grouped)."""

    def __init__(self, headers: tuple[str, ...], parent: QObject | None = None) -> None:
        super().__init__(0, len(headers), parent)
        self.setHorizontalHeaderLabels(list(headers))
        self.headers = headers
        self.grouped = False
        self._rows: dict[str, Row] = {}
        self._items: dict[str, list[QStandardItem]] = {}  # a row's items, by key
        self._group_of: dict[str, str] = {}  # a row's group key, by key ("" when flat)
        self._groups: dict[str, Group] = {}
        self._heads: dict[str, QStandardItem] = {}  # a group's item in column 0, by key
        self._descending = False
        self._bold = QFont()
        self._bold.setBold(True)

    # -- updating ------------------------------------------------------------------------
    def reset_rows(self, rows: Sequence[Row], groups: Mapping[str, Group] | None) -> None:
        """Regroups everything (a reset, the rows' items reused): ``groups`` maps each
        row's key to its group; None shows the rows flat."""
        self.beginResetModel()
        self.blockSignals(True)  # one reset, not a signal per row moved
        try:
            taken: dict[str, list[QStandardItem]] = {}  # the rows' items; groups dropped
            for key, items in self._items.items():
                parent = items[0].parent() or self.invisibleRootItem()
                taken[key] = parent.takeRow(items[0].row())
            self.setRowCount(0)
            self._groups, self._heads, self._items, self._group_of = {}, {}, {}, {}
            self.grouped = groups is not None
            for row in rows:
                items = taken.get(row.key) or [QStandardItem() for _ in self.headers]
                self._fill(items, self._rows.get(row.key), row)
                self._rows[row.key], self._items[row.key] = row, items
                group = groups[row.key] if groups is not None else None
                self._group_of[row.key] = group.key if group else ""
                parent = self._head(group) if group is not None else self.invisibleRootItem()
                parent.appendRow(items)
            self._rows = {row.key: row for row in rows}
        finally:
            self.blockSignals(False)
            self.endResetModel()

    def set_rows(self, rows: Sequence[Row], groups: Mapping[str, Group] | None = None) -> None:
        """Changes in place what differs from the rows shown; a change between flat and
        grouped resets."""
        if (groups is not None) != self.grouped:
            self.reset_rows(rows, groups)
        else:
            self._update(rows, groups)

    def _update(self, rows: Sequence[Row], groups: Mapping[str, Group] | None) -> None:
        wanted = {row.key for row in rows}
        for key in [k for k in self._rows if k not in wanted]:
            items = self._items.pop(key)
            del self._rows[key]
            del self._group_of[key]
            (items[0].parent() or self.invisibleRootItem()).removeRow(items[0].row())
        if groups is not None:
            self._relabel(groups)
        # by parent: (parent, [(row, first column, last column)])
        changed: dict[int, tuple[QStandardItem, list[tuple[int, int, int]]]] = {}
        for row in rows:
            old = self._rows.get(row.key)
            group = groups[row.key] if groups is not None else None
            if old is row and self._group_of[row.key] == (group.key if group else ""):
                continue  # the same row in the same place: nothing to compare
            parent = self._head(group) if group is not None else self.invisibleRootItem()
            if old is None:
                self._add(row, parent, group)
                continue
            items = self._items[row.key]
            if self._group_of[row.key] != (group.key if group else ""):
                # another group: taken out and put in (the panel selects it again)
                old_parent = items[0].parent() or self.invisibleRootItem()
                parent.appendRow(old_parent.takeRow(items[0].row()))
                self._group_of[row.key] = group.key if group else ""
            if row != old:
                self._rows[row.key] = row
                self.blockSignals(True)  # one dataChanged per run of rows below, not per role
                try:
                    first, last = self._fill(items, old, row)
                finally:
                    self.blockSignals(False)
                changed.setdefault(id(parent), (parent, []))[1].append(
                    (items[0].row(), first, last))
        for parent, spans in changed.values():
            parent_index = parent.index()  # invalid for the root
            for top, bottom, first, last in _runs(spans):
                self._data_changed(self.index(top, first, parent_index),
                                   self.index(bottom, last, parent_index))
        for key in [k for k, head in self._heads.items() if not head.hasChildren()]:
            head = self._heads.pop(key)
            del self._groups[key]
            self.removeRow(head.row())

    def _add(self, row: Row, parent: QStandardItem, group: Group | None) -> None:
        self._rows[row.key] = row
        self._group_of[row.key] = group.key if group else ""
        items = self._items[row.key] = [QStandardItem() for _ in self.headers]
        self._fill(items, None, row)
        parent.appendRow(items)

    def _fill(self, items: list[QStandardItem], old: Row | None, new: Row) -> tuple[int, int]:
        """Sets the roles of each cell that changed; returns the first and last column set."""
        if old == new:
            return 0, 0
        look = old is None or old.muted != new.muted or old.highlight != new.highlight
        changed = [c for c, cell in enumerate(new.cells)
                   if look or old is None or not (old.cells[c] is cell or old.cells[c] == cell)]
        for column in changed:
            item = items[column]
            cell = new.cells[column]
            if old is None or look:
                for role, value in self._roles(new, column).items():
                    if value is not None or old is not None:  # a new item has none set
                        item.setData(value, role)
            else:  # only what the cell's change touches: a rate's text and sort value, say
                for role in _touched(old.cells[column], cell):
                    item.setData(CELL_ROLES[role](new, cell, self._bold), role)
            if old is None:
                item.setEditable(False)
        return (changed[0], changed[-1]) if changed else (0, 0)

    def _roles(self, row: Row, column: int) -> dict[int, Any]:
        """Every role of one cell at once."""
        cell = row.cells[column]
        return {**{role: value(row, cell, self._bold) for role, value in CELL_ROLES.items()},
                KEY_ROLE: row.key, MUTED_ROLE: row.muted}

    def _relabel(self, groups: Mapping[str, Group]) -> None:
        for group in {g.key: g for g in groups.values()}.values():
            known = self._groups.get(group.key)
            if known is not None and known.label != group.label:
                self._groups[group.key] = group
                self._heads[group.key].setText(group.label)

    def _head(self, group: Group) -> QStandardItem:
        head = self._heads.get(group.key)
        if head is None:
            head = self._heads[group.key] = QStandardItem(group.label)
            head.setData(group.key, GROUP_ROLE)
            head.setFont(self._bold)
            row = [head, *(QStandardItem() for _ in self.headers[1:])]
            for item in row:
                item.setEditable(False)
                item.setSelectable(False)  # a heading: clicking it selects nothing
            self._groups[group.key] = group
            self._order_groups(row)
            self.appendRow(row)
        return head

    def order_groups(self, descending: bool) -> None:
        """Gives the group rows sort values that keep them in their order, for sorting
        ``descending`` or not (the proxy sorts them by the sort column like any row)."""
        self._descending = descending
        self._order_groups()

    def _order_groups(self, new_row: list[QStandardItem] | None = None) -> None:
        ranked = sorted(self._groups.values(), key=lambda g: g.order)
        position = {g.key: -i if self._descending else i for i, g in enumerate(ranked)}
        self.blockSignals(True)  # sort values only: the proxy reads them when it sorts
        try:
            for key, head in self._heads.items():
                row = new_row if new_row is not None and new_row[0] is head else \
                    [self.item(head.row(), c) for c in range(len(self.headers))]
                for item in row:
                    item.setData(float(position[key]), SORT_ROLE)
        finally:
            self.blockSignals(False)

    def _data_changed(self, first: QModelIndex, last: QModelIndex) -> None:
        # Not self.dataChanged.emit(): in PySide6 6.12.0 (CPython 3.11) every SignalInstance
        # .emit() drops a reference to True, and a few hundred ticks later the interpreter
        # aborts. Emitting through the meta-object has no such leak.
        QMetaObject.invokeMethod(self, "dataChanged", Qt.ConnectionType.DirectConnection,
                                 Q_ARG(QModelIndex, first), Q_ARG(QModelIndex, last))

    # -- reading ----------------------------------------------------------------------------
    def index_of(self, key: str) -> QModelIndex:
        """The index (column 0) of the row with that key; invalid if there is none."""
        items = self._items.get(key)
        return items[0].index() if items is not None else QModelIndex()

    def row_at(self, index: Index) -> Row | None:
        """The row an index is on; None on a group row."""
        return self._rows.get(index.data(KEY_ROLE)) if index.isValid() else None

def _touched(old: Cell, new: Cell) -> list[int]:
    """The roles that differ between two cells of the same row look (muted, highlighted)."""
    roles: list[int] = []
    if old.text != new.text:
        roles.append(R.DisplayRole)
    if (old.text if old.sort is None else old.sort) != (new.text if new.sort is None
                                                         else new.sort):
        roles.append(SORT_ROLE)
    touched: tuple[tuple[int, bool], ...] = (
        (R.ToolTipRole, old.tooltip != new.tooltip),
        (R.ForegroundRole, old.colour != new.colour),
        (R.BackgroundRole, old.background != new.background),
        (R.FontRole, old.bold != new.bold),
        (R.DecorationRole, old.light != new.light),
        (R.TextAlignmentRole, old.numeric != new.numeric),
        (VALUE_ROLE, old.value != new.value))
    for role, changed in touched:
        if changed:
            roles.append(role)
    return roles


def _foreground(row: Row, cell: Cell, _bold: QFont) -> QColor | None:
    if cell.colour:
        return QColor(cell.colour)
    return MUTED_TEXT if row.muted else None


def _background(row: Row, cell: Cell, _bold: QFont) -> QColor | None:
    if cell.background:
        return QColor(cell.background)
    return HIGHLIGHT if row.highlight else None


# Each role a cell sets, from its row and itself (and the model's bold font).
CELL_ROLES: dict[int, Callable[[Row, Cell, QFont], Any]] = {
    R.DisplayRole: lambda row, cell, bold: cell.text,
    SORT_ROLE: lambda row, cell, bold: cell.text if cell.sort is None else cell.sort,
    R.ToolTipRole: lambda row, cell, bold: cell.tooltip or None,
    R.ForegroundRole: _foreground,
    R.BackgroundRole: _background,
    R.FontRole: lambda row, cell, bold: bold if cell.bold or row.highlight else None,
    R.DecorationRole: lambda row, cell, bold: light_icon(cell.light) if cell.light else None,
    R.TextAlignmentRole: lambda row, cell, bold: RIGHT if cell.numeric else None,
    VALUE_ROLE: lambda row, cell, bold: cell.value,
}


def _runs(spans: list[tuple[int, int, int]]) -> list[tuple[int, int, int, int]]:
    """(top, bottom, first column, last column) of each run of adjacent changed rows, from
    (row, first column, last column) of each: a proxy re-sorts and re-filters only those.
    Past MAX_RUNS runs, one span over them all: each dataChanged that moves rows costs the
    proxy and the view a pass over every row (layoutChanged), more than the rows between."""
    runs: list[list[int]] = []
    for row, first, last in sorted(spans):
        if runs and runs[-1][1] + 1 == row:
            run = runs[-1]
            run[1], run[2], run[3] = row, min(run[2], first), max(run[3], last)
        else:
            runs.append([row, row, first, last])
    if len(runs) > MAX_RUNS:
        runs = [[runs[0][0], runs[-1][1], min(r[2] for r in runs), max(r[3] for r in runs)]]
    return [(top, bottom, first, last) for top, bottom, first, last in runs]


class RowsModel(GroupedRowsModel):
    """Keyed rows, flat. Painting and sorting never call Python: a table model answering
    ``data()`` in Python took the GIL for every role of every cell it painted, and with a
    fleet's traffic on other threads each of those waits made a repaint cost tens of ms."""

    def row_of(self, key: str) -> int | None:
        index = self.index_of(key)
        return index.row() if index.isValid() else None


class GroupedRowsProxy(QSortFilterProxyModel):
    """Sorts rows by SORT_ROLE within their group, the groups in their own order; shows the
    rows ``accepts`` says yes to, and a group while one of its rows shows."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.accepts: Callable[[str], bool] | None = None
        self.setSortRole(SORT_ROLE)
        self.setDynamicSortFilter(True)
        self.setRecursiveFilteringEnabled(True)

    def set_filter(self, accepts: Callable[[str], bool] | None) -> None:
        if hasattr(self, "beginFilterChange"):  # Qt 6.9+: invalidateRowsFilter is deprecated
            self.beginFilterChange()
            self.accepts = accepts
            self.endFilterChange(QSortFilterProxyModel.Direction.Rows)
        else:
            self.accepts = accepts
            self.invalidateRowsFilter()

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        model = self.sourceModel()
        if isinstance(model, GroupedRowsModel):
            model.order_groups(order == Qt.SortOrder.DescendingOrder)
        super().sort(column, order)

    def filterAcceptsRow(self, source_row: int, source_parent: Index) -> bool:
        if self.accepts is None:
            return True
        key = self.sourceModel().index(source_row, 0, source_parent).data(KEY_ROLE)
        # a group (no key) shows while a row in it does: recursive filtering
        return key is not None and self.accepts(key)


def make_tree_view(model: QSortFilterProxyModel, widths: Sequence[int],
                   stretch: int) -> QTreeView:
    """A tree set up by :func:`widgets.table.set_up_view`, whose group rows span the whole
    width and open as they come."""
    view = set_up_view(QTreeView(), model, widths, stretch)
    view.setUniformRowHeights(True)
    view.setRootIsDecorated(False)
    view.setAllColumnsShowFocus(True)

    def open_groups(parent: QModelIndex, first: int, last: int) -> None:
        if parent.isValid():
            return
        for row in range(first, last + 1):
            if model.hasChildren(model.index(row, 0)):
                view.setFirstColumnSpanned(row, QModelIndex(), True)
                view.expand(model.index(row, 0))

    def open_all() -> None:
        open_groups(QModelIndex(), 0, model.rowCount() - 1)

    # spans and expansion follow their rows through sorts (persistent indexes): set them once
    model.rowsInserted.connect(open_groups)
    model.modelReset.connect(open_all)
    return view
