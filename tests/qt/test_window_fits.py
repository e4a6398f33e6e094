"""The window never grows past its screen: a panel the operator adds joins a tab group, and
long status text is cut (its tooltip has it whole)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QApplication

from app.qt.main_window import MainWindow


def test_a_panel_added_from_the_menu_tabs_in_and_the_window_keeps_its_size(
        make_main_window: Callable[..., MainWindow], qtbot: Any) -> None:
    window = make_main_window(show=True)
    window.load_named_layout("Teleop station")
    QApplication.processEvents()
    size = window.size()
    add_mission = next(a for a in window.findChildren(type(window.estop_action))
                       if a.text() == "Mission")
    add_mission.trigger()
    mission = [d for name, d in window._docks.items() if name.startswith("mission#")]
    assert len(mission) == 1
    qtbot.waitUntil(lambda: bool(window.tabifiedDockWidgets(mission[0])))
    qtbot.waitUntil(lambda: not mission[0].widget().visibleRegion().isEmpty())  # on top
    QApplication.processEvents()
    assert window.size() == size


def test_long_status_text_never_widens_the_window(
        make_main_window: Callable[..., MainWindow]) -> None:
    window = make_main_window(show=True)
    QApplication.processEvents()
    width = window.width()
    window.status_strip.session_label.setText("error — " + "the router refused the session " * 20)
    window.status_strip.alert_label.setText("⚠ " + "TILT_LIMIT: the robot is tilting " * 20)
    window.status_strip.alert_label.show()
    QApplication.processEvents()
    assert window.width() == width


def test_a_resized_window_gives_each_panel_its_share_of_the_new_size(
        make_main_window: Callable[..., MainWindow], qtbot: Any) -> None:
    """Field laptop laid out at 1366×768, then maximised to 1920×1080: the 3D view keeps
    its share of the height instead of Qt giving all the new room to the bottom row."""
    window = make_main_window(show=True)
    window.resize(1366, 768)
    assert window.load_named_layout("Field laptop")
    view = next(d for name, d in window._docks.items() if name.startswith("scene3d"))
    qtbot.waitUntil(lambda: view in window._shares, timeout=5_000)  # measured, settled

    def share() -> float:
        return view.height() / window.height()

    before = share()
    assert before > 0.3
    window.resize(1920, 1080)
    qtbot.waitUntil(lambda: window.height() == 1080 and abs(share() - before) < 0.03,
                    timeout=5_000)
    assert view.height() > 0.3 * 1080
