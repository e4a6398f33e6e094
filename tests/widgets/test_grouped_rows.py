"""The row models answer each role of a cell as its row says, sort through a proxy, and move
rows between groups without a reset."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtGui import QColor

from widgets.grouped_rows import (
    GROUP_ROLE,
    RIGHT,
    Group,
    GroupedRowsModel,
    GroupedRowsProxy,
    RowsModel,
)
from widgets.table import (
    HIGHLIGHT,
    KEY_ROLE,
    MUTED_ROLE,
    MUTED_TEXT,
    SORT_ROLE,
    VALUE_ROLE,
    Cell,
    Row,
)

R = Qt.ItemDataRole

HEADERS = ("Name", "Level", "Note")

ROWS = [
    Row("a", (Cell("Alpha", light="#2ea043", tooltip="first"), Cell("12 %", sort=12.0,
                                                                     value=12.0, numeric=True),
              Cell("hot", colour="#ff0000", bold=True)), muted=True),
    Row("b", (Cell("Beta"), Cell("—", sort=-1.0), Cell("", background="#b62324")),
        highlight=True),
]


def test_each_cell_answers_what_its_row_says(qapp) -> None:
    model = RowsModel(HEADERS)
    model.set_rows(ROWS)

    def at(key: str, column: int, role: int) -> object:
        row = model.row_of(key)
        assert row is not None
        return model.index(row, column).data(role)

    assert at("a", 0, R.DisplayRole) == "Alpha" and at("a", 0, R.ToolTipRole) == "first"
    assert at("a", 0, R.DecorationRole) is not None  # the status light
    assert at("a", 0, R.ForegroundRole) == MUTED_TEXT  # a muted row is greyed...
    assert at("a", 2, R.ForegroundRole) == QColor("#ff0000")  # ...unless a cell has a colour
    assert at("a", 2, R.FontRole).bold()
    assert at("a", 1, SORT_ROLE) == 12.0 and at("a", 1, VALUE_ROLE) == 12.0
    assert at("a", 0, SORT_ROLE) == "Alpha"  # no sort value: the text
    assert at("a", 1, R.TextAlignmentRole) == RIGHT
    assert at("a", 0, MUTED_ROLE) is True and at("a", 0, KEY_ROLE) == "a"
    assert at("b", 0, R.BackgroundRole) == HIGHLIGHT and at("b", 0, R.FontRole).bold()
    assert at("b", 2, R.BackgroundRole) == QColor("#b62324")
    assert at("b", 0, R.ForegroundRole) is None and at("b", 0, R.ToolTipRole) is None
    assert model.row_of("zzz") is None


def test_a_sorting_proxy_orders_rows_by_their_sort_values(qapp) -> None:
    model = RowsModel(HEADERS)
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    proxy.setSortRole(SORT_ROLE)
    proxy.setDynamicSortFilter(True)
    proxy.sort(1, Qt.SortOrder.AscendingOrder)
    model.set_rows(ROWS)
    assert [proxy.index(r, 0).data(KEY_ROLE) for r in range(2)] == ["b", "a"]  # -1 < 12
    model.set_rows([ROWS[0], Row("b", (Cell("Beta"), Cell("99 %", sort=99.0), Cell("")))])
    assert [proxy.index(r, 0).data(KEY_ROLE) for r in range(2)] == ["a", "b"]


def test_a_row_changing_group_moves_without_a_reset_and_empty_groups_go(qapp) -> None:
    model = GroupedRowsModel(HEADERS)
    proxy = GroupedRowsProxy()
    proxy.setSourceModel(model)
    hot, cold = Group("hot", "Hot (1)", (0,)), Group("cold", "Cold (1)", (1,))
    model.set_rows(ROWS, {"a": hot, "b": cold})
    resets: list[bool] = []
    model.modelReset.connect(lambda: resets.append(True))
    both_cold = Group("cold", "Cold (2)", (1,))
    model.set_rows(ROWS, {"a": both_cold, "b": both_cold})
    assert resets == []
    assert model.rowCount() == 1
    head = model.index(0, 0)
    assert head.data() == "Cold (2)" and head.data(GROUP_ROLE) == "cold"
    assert sorted(model.index(r, 0, head).data(KEY_ROLE) for r in range(2)) == ["a", "b"]
    assert model.index_of("a").parent() == head
    assert model.index_of("zzz") == QModelIndex()
