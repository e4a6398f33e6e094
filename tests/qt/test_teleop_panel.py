"""Teleop in the window: the E-STOP button and its confirmed release against the simulated
rover, and the teleop panel driving it from a (virtual) game controller and the keyboard."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from app.qt.main_window import MainWindow
from app.teleop.arming import Arming
from panels.teleop import TeleopPanel
from tests.inputs.virtual_gamepad import VirtualGamepad
from tests.qt.conftest import rover_estop
from tests.teleop.heard import LATCHED

pytestmark = pytest.mark.slow
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture
def window(rover_window: MainWindow) -> MainWindow:
    return rover_window


def answer(monkeypatch: pytest.MonkeyPatch, button: QMessageBox.StandardButton) -> list[str]:
    asked: list[str] = []

    def question(parent: Any, title: str, text: str, *args: Any) -> QMessageBox.StandardButton:
        asked.append(text)
        return button

    monkeypatch.setattr(QMessageBox, "question", question)
    return asked


def test_the_e_stop_button_stops_the_rover_and_only_a_confirmed_release_frees_it(
        window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    assert not window.release_estop_action.isEnabled()
    qtbot.mouseClick(window._estop_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: rover_estop(window) is True, timeout=5_000)
    assert window.teleop().status().teleop.state is Arming.ESTOP
    assert window.estop_action.text() == "E-STOP ENGAGED"
    assert window.release_estop_action.isEnabled()

    asked = answer(monkeypatch, QMessageBox.StandardButton.Cancel)
    window.release_estop_action.trigger()
    assert asked and "rover-1" in asked[0]
    qtbot.wait(600)  # the e-stop keeps being sent: the rover stays stopped
    assert rover_estop(window) is True and window.teleop().status().teleop.estop

    answer(monkeypatch, QMessageBox.StandardButton.Yes)
    window.release_estop_action.trigger()
    qtbot.waitUntil(lambda: rover_estop(window) is False, timeout=5_000)
    assert window.estop_action.text() == "E-STOP"


def test_the_e_stop_shortcut_works_wherever_the_focus_is(window: MainWindow, qtbot: Any) -> None:
    panel = window.open_panel("teleop")
    panel.set_source("keyboard")
    assert window.estop_action.shortcut().toString() == "Ctrl+Space"
    # an operator's window is the active one (a loaded X server may take a while to say so)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is not None, timeout=5_000)
    qtbot.keyClick(panel.drive, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: "rover-1" in window.estopped_robots(), timeout=5_000)  # sent
    qtbot.waitUntil(lambda: rover_estop(window) is True, timeout=15_000)  # and reported


@pytest.fixture
def pad_panel(window: MainWindow, qtbot: Any) -> Iterator[tuple[TeleopPanel, VirtualGamepad]]:
    panel = window.open_panel("teleop")
    assert isinstance(panel, TeleopPanel)
    qtbot.waitUntil(lambda: panel.gamepad is not None and panel.gamepad.running)
    pad = VirtualGamepad("Operator pad")
    try:
        qtbot.waitUntil(lambda: window.teleop().status().teleop.device == "Operator pad",
                        timeout=5_000)
        qtbot.waitUntil(lambda: window.teleop().status().link.live, timeout=8_000)
        yield panel, pad
    finally:
        if pad.plugged:
            pad.unplug()


def hold_deadman_until_armed(panel: TeleopPanel, pad: VirtualGamepad, qtbot: Any) -> None:
    pad.press("leftshoulder")  # the deadman

    def armed() -> bool:
        if LATCHED in panel.state_label.text():  # a loaded machine's late tick: regrip,
            pad.release("leftshoulder")  # as the operator is told to
            qtbot.waitUntil(lambda: LATCHED not in panel.state_label.text(), timeout=10_000)
            pad.press("leftshoulder")
        return panel.state_label.text().startswith("ARMED")

    qtbot.waitUntil(armed, timeout=8_000)


def test_the_panel_shows_armed_with_the_deadman_held_and_why_not_once_released(
        window: MainWindow, pad_panel: tuple[TeleopPanel, VirtualGamepad], qtbot: Any) -> None:
    panel, pad = pad_panel
    pad.set_axis("lefty", -1.0)  # stick up: forward
    hold_deadman_until_armed(panel, pad, qtbot)
    assert "rover-1" in panel.state_label.text()
    qtbot.waitUntil(lambda: panel.output_bars["linear"].fraction() > 0.5)
    assert panel.previews["left"].value()[1] == pytest.approx(-1.0, abs=0.01)
    assert "fleet/rover-1/command/teleop" in panel.stats["output"].text()
    assert panel.stats["rate"].text().startswith("20 Hz")

    pad.release("leftshoulder")
    qtbot.waitUntil(lambda: not panel.state_label.text().startswith("ARMED"), timeout=10_000)
    assert "deadman" in panel.state_label.text()
    qtbot.waitUntil(lambda: panel.output_bars["linear"].fraction() == 0.0)
    assert panel.ranges()["lefty"][0] == pytest.approx(-1.0, abs=0.01)  # calibration page
    row = list(panel.ranges_table.verticalHeaderItem(r).text()
               for r in range(panel.ranges_table.rowCount())).index("lefty")
    assert panel.ranges_table.item(row, 0).text() == "-1.000"


def test_the_keyboard_drives_while_the_drive_view_has_focus(window: MainWindow,
                                                            qtbot: Any) -> None:
    panel = window.open_panel("teleop")
    assert isinstance(panel, TeleopPanel)
    session = window.teleop()
    panel.set_source("keyboard")
    qtbot.waitUntil(lambda: session.status().link.live, timeout=8_000)
    panel.drive.clearFocus()
    qtbot.waitUntil(lambda: session.status().teleop.state is not Arming.ARMED)
    qtbot.mouseClick(panel.drive, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(panel.drive.hasFocus)
    # the keyboard is a device that came: the station must see its deadman up first
    qtbot.waitUntil(lambda: session.status().teleop.reason == "deadman released")
    qtbot.keyPress(panel.drive, Qt.Key.Key_W)
    qtbot.keyPress(panel.drive, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: armed_by_keyboard(panel, qtbot), timeout=10_000)
    qtbot.waitUntil(lambda: (m := session.status().teleop.motion) is not None
                    and m.linear > 0.1, timeout=10_000)
    assert session.status().teleop.device == "keyboard"

    qtbot.keyRelease(panel.drive, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: session.status().teleop.state is not Arming.ARMED, timeout=10_000)
    qtbot.waitUntil(lambda: "deadman" in panel.state_label.text())


def test_automatic_input_with_no_pad_names_the_keyboard_not_an_unplugged_controller(
        window: MainWindow, qtbot: Any) -> None:
    panel = window.open_panel("teleop")
    assert isinstance(panel, TeleopPanel)
    panel.set_source("auto")
    assert not window.operator.pads()
    session = window.teleop()
    qtbot.waitUntil(lambda: session.status().link.live, timeout=8_000)
    panel.drive.clearFocus()
    says = "click the Teleop panel's drive view"
    qtbot.waitUntil(lambda: says in panel.state_label.text(), timeout=10_000)
    qtbot.waitUntil(lambda: says in window.safety_bar.banner.full_text(), timeout=10_000)
    for shown in (panel.state_label.text(), window.safety_bar.banner.full_text()):
        assert shown.startswith("DISARMED") and "unplugged" not in shown


def armed_by_keyboard(panel: TeleopPanel, qtbot: Any) -> bool:
    """Whether the keyboard drives; told to press the deadman again (the window was too
    busy to read the keyboard for a moment, on a loaded machine), it does as an operator."""
    teleop = panel.session.status().teleop
    if teleop.reason == LATCHED:
        qtbot.keyRelease(panel.drive, Qt.Key.Key_Space)
        qtbot.waitUntil(lambda: panel.session.status().teleop.reason != LATCHED)
        qtbot.keyPress(panel.drive, Qt.Key.Key_Space)
    return teleop.state is Arming.ARMED


def test_a_refused_profile_file_shows_why_and_the_editor_changes_the_profile(
        make_main_window: Callable[..., MainWindow], qtbot: Any) -> None:
    window = make_main_window()
    folder = window.config_dir / "teleop-profiles"
    folder.mkdir(parents=True)
    (folder / "broken.json").write_text(json.dumps(
        {"format": "fieldstation.teleop-profile", "version": 1, "deadman": "trigger"}))
    panel = window.open_panel("teleop", {"source": "stick"})
    assert isinstance(panel, TeleopPanel)
    assert [panel.profile_box.itemText(i) for i in range(panel.profile_box.count())] == \
        ["default", "broken"]
    panel.choose_profile("broken")
    assert "refused" in panel.profile_reason.text() and "deadman" in panel.profile_reason.text()
    assert panel.profile.name == "default"

    panel.dead_zone_box.setValue(0.3)
    panel.limit_boxes["linear"].setValue(0.8)
    assert panel.profile.axes["linear"].deadzone == pytest.approx(0.3)
    assert panel.profile.limits.normal.linear == pytest.approx(0.8)
    assert panel.previews["left"].dead_zone == pytest.approx(0.3)  # drawn live
    (folder / "thumb.json").write_text(json.dumps(
        {"format": "fieldstation.teleop-profile", "version": 1, "name": "thumb",
         "deadman": "leftstick"}))
    panel.refresh_profiles()
    panel.choose_profile("thumb")
    assert panel.profile_reason.text() == "" and panel.profile.deadman == "leftstick"
    panel.keyboard.set_focus(True)
    panel.keyboard.press("space")  # the keyboard's deadman reads as the profile's
    assert panel.keyboard.reading().buttons == {"leftstick"}

    panel.save_name.setText("mine")
    panel.save_profile()
    assert (folder / "mine.json").is_file()
    assert "mine" in [panel.profile_box.itemText(i) for i in range(panel.profile_box.count())]


def test_the_session_outlives_the_panel_and_closes_with_the_window(
        make_main_window: Callable[..., MainWindow], qtbot: Any) -> None:
    window = make_main_window()
    panel = window.open_panel("teleop", {"source": "stick"})
    session = window.teleop()
    assert isinstance(panel, TeleopPanel) and panel.session is session
    window.close_all_panels()
    assert window.teleop() is session
    window.set_active_robot("rover-1")
    qtbot.waitUntil(lambda: session.status().link.selected == "rover-1")
    window.close()
    assert window._teleop is None


def test_the_profile_editor_stays_within_the_caps_and_is_locked_while_armed(
        window: MainWindow, pad_panel: tuple[TeleopPanel, VirtualGamepad], qtbot: Any) -> None:
    panel, pad = pad_panel
    box = panel.limit_boxes["angular"]
    box.setValue(1e6)  # typed past the cap: held at it, and the loader accepts the result
    assert panel.profile.limits.normal.angular == box.maximum() <= 10.0
    panel.save_name.setText("fast")
    panel.save_profile()
    assert panel.profile_reason.text() == ""
    hold_deadman_until_armed(panel, pad, qtbot)
    qtbot.waitUntil(lambda: not panel.editor.isEnabled())
    pad.release("leftshoulder")
    qtbot.waitUntil(panel.editor.isEnabled, timeout=10_000)
