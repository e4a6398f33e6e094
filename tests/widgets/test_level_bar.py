"""The level bar cell, by its pixels: a bar filled as far as the value, in the colour of its
level (grey when the row is muted), the track beyond; the value's text beside it."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QTableView

from widgets.level_bar import BAR_HEIGHT, TRACK, LevelBarDelegate
from widgets.status_light import ALARM, OFFLINE, ONLINE, WARNING
from widgets.table import MUTED_ROLE, VALUE_ROLE

# (value, muted, the colour it is filled with)
LEVELS = [(80.0, False, ONLINE), (35.0, False, WARNING), (10.0, False, ALARM),
          (80.0, True, OFFLINE), (250.0, False, ONLINE)]


@pytest.fixture
def table(qtbot) -> QTableView:
    model = QStandardItemModel(len(LEVELS), 1)
    for row, (value, muted, _) in enumerate(LEVELS):
        item = QStandardItem(f"{value:.0f} %")
        item.setData(value, VALUE_ROLE)
        item.setData(muted, MUTED_ROLE)
        model.setItem(row, 0, item)
    view = QTableView()
    view.setModel(model)
    view.setItemDelegateForColumn(0, LevelBarDelegate(view))
    view.setColumnWidth(0, 240)
    view.resize(300, 260)
    qtbot.addWidget(view)
    view.show()
    qtbot.waitExposed(view)
    return view


def bar_row(image: QImage, cell: QRect) -> list[str]:
    """The colours along the middle line of the bar in ``cell``."""
    y = cell.top() + (cell.height() - BAR_HEIGHT) // 2 + BAR_HEIGHT // 2
    return [QColor(image.pixel(x, y)).name() for x in range(cell.left(), cell.right())]


def test_each_bar_is_filled_as_far_as_its_value_in_its_levels_colour(
        table: QTableView) -> None:
    image = table.viewport().grab().toImage()
    filled_lengths = []
    for row, (value, _, colour) in enumerate(LEVELS):
        line = bar_row(image, table.visualRect(table.model().index(row, 0)))
        filled = [x for x, c in enumerate(line) if c == colour]
        track = [x for x, c in enumerate(line) if c == TRACK.name()]
        assert filled, f"no {colour} in the bar of {value}"
        if value < 100:
            assert track and min(track) > max(filled), "the track lies beyond the fill"
            bar = max(track) - min(filled) + 1
            assert len(filled) / bar == pytest.approx(value / 100, abs=0.06)
        else:
            assert not track, "a value over 100 fills the whole bar"
        filled_lengths.append(len(filled))
    assert filled_lengths[0] > filled_lengths[1] > filled_lengths[2]
    assert filled_lengths[3] == filled_lengths[0]  # muted: the same length, in grey


def test_the_value_is_written_beside_its_bar(table: QTableView) -> None:
    image = table.viewport().grab().toImage()
    cell = table.visualRect(table.model().index(0, 0))
    line = bar_row(image, cell)
    track_end = max(x for x, c in enumerate(line) if c == TRACK.name())
    background = QColor(image.pixel(cell.right() - 1, cell.top() + 1)).name()
    text = {QColor(image.pixel(x, y)).name()
            for x in range(cell.left() + track_end + 2, cell.right())
            for y in range(cell.top(), cell.bottom())}
    assert text - {background}, "no text beside the bar"
