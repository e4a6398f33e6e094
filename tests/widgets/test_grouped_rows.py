"""The grouped rows model answers every role as the plain RowsModel does, and moves rows
between groups without a reset."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex

from widgets.grouped_rows import GROUP_ROLE, Group, GroupedRowsModel, GroupedRowsProxy
from widgets.table import KEY_ROLE, Cell, Row, RowsModel

HEADERS = ("Name", "Level", "Note")
ROLES = [*range(32), *range(256, 276)]  # Qt's roles and ours (UserRole + n)

ROWS = [
    Row("a", (Cell("Alpha", light="#2ea043", tooltip="first"), Cell("12 %", sort=12.0,
                                                                     value=12.0, numeric=True),
              Cell("hot", colour="#ff0000", bold=True)), muted=True),
    Row("b", (Cell("Beta"), Cell("—", sort=-1.0), Cell("", background="#b62324")),
        highlight=True),
]


def test_every_role_of_every_cell_is_what_rows_model_says(qapp) -> None:
    plain, grouped = RowsModel(HEADERS), GroupedRowsModel(HEADERS)
    plain.set_rows(ROWS)
    grouped.set_rows(ROWS, None)
    for r in range(len(ROWS)):
        for c in range(len(HEADERS)):
            for role in ROLES:
                want = plain.index(r, c).data(role)
                got = grouped.index(r, c).data(role)
                if role == 1:  # DecorationRole: the same cached icon
                    assert (want is None) == (got is None)
                elif role != 2:  # EditRole: a QStandardItem's is its text (not editable)
                    assert got == want, (r, c, role)


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
