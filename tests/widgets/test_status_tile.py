"""A status tile shows its value and state colour; a new value alone keeps the colour."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from widgets.status_light import ALARM, ONLINE
from widgets.status_tile import StatusTile


def test_the_value_changes_under_its_colour_and_a_new_state_recolours_it(
        qtbot: QtBot) -> None:
    tile = StatusTile("data age")
    qtbot.addWidget(tile)
    tile.set("0.1 s", "live", ONLINE)
    assert ONLINE in tile.styleSheet() and ONLINE in tile.value.styleSheet()
    tile.set("0.2 s", "live", ONLINE)
    assert tile.value.text() == "0.2 s" and ONLINE in tile.styleSheet()
    tile.set("5.0 s", "stale", ALARM, fill=True)
    assert tile.value.text() == "5.0 s" and tile.detail.text() == "stale"
    assert ALARM in tile.styleSheet() and "background" in tile.styleSheet()
    tile.set("0.1 s", "live", ONLINE)
    assert ONLINE in tile.styleSheet() and "background" not in tile.styleSheet()


def test_a_value_wider_than_the_tile_is_set_smaller_not_cut(qtbot: QtBot) -> None:
    tile = StatusTile("e-stop")
    qtbot.addWidget(tile)
    tile.resize(400, 90)
    tile.show()
    tile.set("released", "", ONLINE)
    qtbot.waitUntil(lambda: tile.value.width() > 300)
    big = tile.value.font().pointSizeF()
    tile.resize(90, 90)  # a narrow dock: four tiles abreast

    def fits() -> bool:
        shown = tile.value.fontMetrics().horizontalAdvance(tile.value.text())
        return shown <= tile.value.contentsRect().width()

    qtbot.waitUntil(lambda: tile.value.width() < 90)
    assert fits() and tile.value.font().pointSizeF() < big
    tile.resize(400, 90)
    qtbot.waitUntil(lambda: tile.value.font().pointSizeF() == big)
