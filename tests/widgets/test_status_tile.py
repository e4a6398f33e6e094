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
