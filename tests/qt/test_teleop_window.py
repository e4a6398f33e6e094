"""The window owns driving: the operator's devices, the arming banner and the e-stop, in
every state of the window (no Teleop panel, a modal dialog open, a long status message),
against the simulated rover on real zenoh, with SDL's virtual game controller and real X
input (xdotool) where Qt's modality decides what a click reaches."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from PySide6.QtCore import QPoint, QRect, Qt, QTimer
from PySide6.QtWidgets import QApplication, QMessageBox, QWidget

from app.qt.main_window import MainWindow
from app.sim.fleet import SimFleet
from app.station.connection import ConnectionChoice
from app.teleop.arming import Arming
from tests.conftest import free_port
from tests.inputs.virtual_gamepad import VirtualGamepad
from tests.qt.conftest import rover_estop
from tests.qt.test_teleop_panel import armed_by_keyboard
from tests.teleop.heard import LATCHED, Heard

pytestmark = pytest.mark.slow
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")


@pytest.fixture
def window(rover_window: MainWindow, qtbot: Any) -> MainWindow:
    qtbot.waitUntil(lambda: rover_window.teleop().status().link.live, timeout=8_000)
    return rover_window


@pytest.fixture
def pad(window: MainWindow, qtbot: Any) -> Iterator[VirtualGamepad]:
    qtbot.waitUntil(lambda: window.operator.gamepad is not None
                    and window.operator.gamepad.running, timeout=5_000)
    pad = VirtualGamepad("Operator pad")
    try:
        qtbot.waitUntil(lambda: window.operator.driving_source() == "gamepad", timeout=5_000)
        yield pad
    finally:
        if pad.plugged:
            pad.unplug()


def drive_forward(window: MainWindow, pad: VirtualGamepad, qtbot: Any,
                  shown: Callable[[], bool] = lambda: True) -> None:
    """Armed with the stick forward (and ``shown`` true meanwhile)."""
    pad.set_axis("lefty", -1.0)
    pad.press("leftshoulder")

    def armed() -> bool:
        teleop = window.teleop().status().teleop
        if teleop.reason == LATCHED:  # a block came with the press: press again, as told
            pad.release("leftshoulder")
            qtbot.waitUntil(lambda: window.teleop().status().teleop.reason != LATCHED)
            pad.press("leftshoulder")
        return teleop.state is Arming.ARMED and shown()

    qtbot.waitUntil(armed, timeout=10_000)


def test_the_window_drives_and_shows_it_with_no_teleop_panel_open(
        window: MainWindow, pad: VirtualGamepad, qtbot: Any) -> None:
    assert not any(p.panel_id == "teleop" for p in window.panels().values())
    drive_forward(window, pad, qtbot,
                  lambda: window.safety_bar.banner.full_text().startswith("ARMED"))
    assert "rover-1" in window.safety_bar.banner.full_text()
    pad.press("back")  # the pad's e-stop, with no panel anywhere
    qtbot.waitUntil(lambda: rover_estop(window) is True, timeout=5_000)
    qtbot.waitUntil(lambda: window.safety_bar.banner.full_text().startswith("ESTOP"))


def test_the_input_is_the_keyboard_when_no_pad_is_plugged(window: MainWindow,
                                                          qtbot: Any) -> None:
    assert window.operator.source == "auto"
    qtbot.waitUntil(lambda: window.operator.gamepad is not None, timeout=5_000)
    assert window.operator.driving_source() == "keyboard"
    qtbot.waitUntil(lambda: window.teleop().status().teleop.device == "keyboard")
    # fresh: the GUI's timer reads the keyboard every 20 ms (a loaded machine may stall the
    # GUI past the 50 ms bound for a moment, which the banner then rightly says)
    qtbot.waitUntil(lambda: "STALE" not in window.safety_bar.banner.full_text(),
                    timeout=5_000)


def test_the_input_choice_survives_a_layout_switch(window: MainWindow, qtbot: Any) -> None:
    window.operator.set_source("stick")
    window.load_named_layout("Teleop station")
    assert window.operator.source == "stick"
    assert window.operator.driving_source() == "stick"


def modal_box(window: MainWindow) -> QMessageBox:
    box = QMessageBox(QMessageBox.Icon.Question, "Save layout", "A modal question",
                      QMessageBox.StandardButton.Close, window)
    box.setModal(True)
    return box


def run_modal(box: QMessageBox, while_open: Callable[[], None]) -> None:
    """Opens ``box`` modally (as the app's dialogs do) and runs ``while_open`` inside it."""
    def inside() -> None:
        try:
            while_open()
        finally:
            box.done(0)

    QTimer.singleShot(0, box, inside)
    box.exec()


def overlay_of(box: QWidget) -> QWidget | None:
    return box.findChild(QWidget, "estop-overlay")


def test_a_modal_dialog_stops_driving_and_the_e_stop_still_works_over_it(
        window: MainWindow, pad: VirtualGamepad, qtbot: Any) -> None:
    drive_forward(window, pad, qtbot)
    box = modal_box(window)
    seen: dict[str, Any] = {}

    def while_open() -> None:
        qtbot.waitUntil(lambda: window.teleop().status().teleop.state is not Arming.ARMED,
                        timeout=10_000)
        seen["reason"] = window.teleop().status().teleop.reason
        qtbot.waitUntil(lambda: "dialog" in window.safety_bar.banner.full_text())
        seen["banner"] = window.safety_bar.banner.full_text()
        qtbot.waitUntil(lambda: overlay_of(box) is not None
                        and overlay_of(box).isVisible(), timeout=10_000)
        overlay = overlay_of(box)
        assert overlay is not None
        button = window._estop_button
        seen["placed"] = overlay.geometry().topLeft() == \
            button.mapToGlobal(button.rect().topLeft())
        click_for_real(overlay)  # through X: Qt's modality decides whether it lands
        qtbot.waitUntil(lambda: rover_estop(window) is True, timeout=5_000)

    run_modal(box, while_open)
    assert seen["reason"] == "window lost focus" and seen["placed"]
    assert "a dialog is open" in seen["banner"]
    assert window.teleop().status().teleop.state is Arming.ESTOP


def test_the_e_stop_key_works_while_a_modal_dialog_is_open(window: MainWindow,
                                                           qtbot: Any) -> None:
    box = modal_box(window)

    def while_open() -> None:
        qtbot.waitUntil(lambda: overlay_of(box) is not None, timeout=10_000)
        qtbot.keyClick(box, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
        qtbot.waitUntil(lambda: rover_estop(window) is True, timeout=5_000)

    run_modal(box, while_open)


def click_for_real(widget: QWidget) -> None:
    """A click through the X server, as a mouse gives it (QTest's clicks skip modality)."""
    xdotool = shutil.which("xdotool")
    assert xdotool, "xdotool is installed by scripts/bootstrap.sh test"
    centre = widget.mapToGlobal(widget.rect().center())
    subprocess.run([xdotool, "mousemove", str(centre.x()), str(centre.y()), "click", "1"],
                   check=True, timeout=10)


def test_the_e_stop_button_keeps_its_size_and_place_in_every_state(
        window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    button = window._estop_button
    width = window.width()
    place = button.mapTo(window, button.rect().topLeft())
    size = button.size()
    window.engage_estop()
    qtbot.waitUntil(lambda: window.estop_action.text() == "E-STOP ENGAGED", timeout=10_000)
    qtbot.waitUntil(window.release_estop_action.isEnabled)
    assert button.size() == size and button.mapTo(window, button.rect().topLeft()) == place
    text_width = button.fontMetrics().horizontalAdvance("E-STOP ENGAGED")
    assert button.contentsRect().width() >= text_width  # the label fits, never "E-S…GED"
    window.show_message("connect failed: " + "a very long reason " * 40)
    window.safety_bar.show_state(Arming.STALE, "rover-1", "link lost: " + "x" * 400, "")
    QApplication.processEvents()
    assert window.width() == width
    assert button.size() == size and button.mapTo(window, button.rect().topLeft()) == place


def test_the_banner_keeps_the_cause_of_the_stop_until_the_operator_drives_again(
        window: MainWindow) -> None:
    bar = window.safety_bar
    bar.show_state(Arming.ARMED, "rover-1", "", "keyboard")
    bar.show_state(Arming.STALE, "rover-1", "input stale: no reading for 0.3 s", "keyboard")
    bar.show_state(Arming.DISARMED, "rover-1",
                   "release the deadman and press it again to drive", "keyboard")
    text = bar.banner.full_text()
    assert "window was too busy" in text and "0.3 s" in text and "press it again" in text
    bar.show_state(Arming.ARMED, "rover-1", "", "keyboard")
    bar.show_state(Arming.DISARMED, "rover-1", "deadman released", "keyboard")
    assert "busy" not in bar.banner.full_text()


def test_playback_disables_the_e_stop_and_says_why(window: MainWindow) -> None:
    window.safety_bar.show_estop(False, [], playback=True)
    assert not window.estop_action.isEnabled()
    assert "nothing is sent" in window.estop_action.toolTip()
    window.safety_bar.show_estop(False, [], playback=False)
    assert window.estop_action.isEnabled()
    assert "not a safety-rated" in window.estop_action.toolTip()


def test_an_e_stop_stays_with_its_robot_across_a_switch_and_the_window_says_which(
        window: MainWindow, qtbot: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    window.engage_estop()
    qtbot.waitUntil(lambda: rover_estop(window) is True, timeout=5_000)
    window.set_active_robot("humanoid-1")
    qtbot.waitUntil(lambda: window.estop_action.text() == "E-STOP", timeout=10_000)
    assert not window.release_estop_action.isEnabled()  # the humanoid is not e-stopped
    assert window.safety_bar.estopped.full_text() == "E-stopped: rover-1"
    assert rover_estop(window) is True
    window.set_active_robot("rover-1")
    qtbot.waitUntil(lambda: window.estop_action.text() == "E-STOP ENGAGED", timeout=10_000)
    monkeypatch.setattr(QMessageBox, "question",
                        lambda *_: QMessageBox.StandardButton.Yes)
    assert window.release_estop()
    qtbot.waitUntil(lambda: rover_estop(window) is False, timeout=5_000)
    qtbot.waitUntil(lambda: window.safety_bar.estopped.full_text() == "", timeout=10_000)


def test_reconnecting_while_driving_stops_the_robot_first(window: MainWindow, fleet: SimFleet,
                                                          pad: VirtualGamepad,
                                                          qtbot: Any) -> None:
    heard = Heard(fleet)
    drive_forward(window, pad, qtbot)
    qtbot.waitUntil(lambda: any(c.what == "teleop" and c.moving
                                for c in heard.of("rover-1")), timeout=10_000)
    window.reconnect(ConnectionChoice(simulation=False,
                                      endpoints=[f"tcp/127.0.0.1:{free_port}"]))
    def teleop() -> list[Any]:
        return [c for c in heard.of("rover-1") if c.what == "teleop"]

    qtbot.waitUntil(lambda: not teleop()[-1].moving, timeout=10_000)  # its last word: a stop
    moving_at = max(i for i, c in enumerate(teleop()) if c.moving)
    assert all(not c.moving for c in teleop()[moving_at + 1:])


def test_a_file_dialog_is_qt_s_own_with_the_e_stop_over_it(window: MainWindow,
                                                           qtbot: Any) -> None:
    """A desktop's native file dialog would take the keys and clicks outside Qt."""
    assert QApplication.testAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs)
    seen: dict[str, Any] = {}

    def inspect() -> None:
        dialog = QApplication.activeModalWidget()
        seen["dialog"] = type(dialog).__name__
        try:
            qtbot.waitUntil(lambda: overlay_of(dialog) is not None, timeout=10_000)
            seen["overlay"] = True
        finally:
            dialog.reject()

    QTimer.singleShot(200, window, inspect)
    window.playback.choose_log()
    assert seen == {"dialog": "QFileDialog", "overlay": True}


def test_a_frozen_window_stops_keyboard_driving_within_one_period(
        window: MainWindow, fleet: SimFleet, qtbot: Any) -> None:
    heard = Heard(fleet)
    panel = window.open_panel("teleop")
    panel.set_source("keyboard")
    session = window.teleop()
    qtbot.mouseClick(panel.drive, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(panel.drive.hasFocus)
    qtbot.waitUntil(lambda: session.status().teleop.reason == "deadman released")
    qtbot.keyPress(panel.drive, Qt.Key.Key_W)
    qtbot.keyPress(panel.drive, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: armed_by_keyboard(panel, qtbot), timeout=8_000)
    qtbot.waitUntil(lambda: any(c.moving for c in heard.of("rover-1")), timeout=8_000)
    frozen_at = time.monotonic()
    time.sleep(1.0)  # the GUI thread frozen: no key event, no reading, for a second
    thawed_at = time.monotonic()
    qtbot.keyRelease(panel.drive, Qt.Key.Key_Space)
    qtbot.keyRelease(panel.drive, Qt.Key.Key_W)
    during = [c for c in heard.of("rover-1", since=frozen_at)
              if c.what == "teleop" and c.at < thawed_at]
    period = 1.0 / session.status().teleop.rate_hz
    # sent, not heard: a loaded machine may deliver a command sent in time a little late
    late_moving = [c for c in during if c.moving and c.sent > frozen_at + 2 * period]
    assert not late_moving  # one period of motion at most (plus one in flight)
    assert any(not c.moving for c in during)  # and the stops came while it was frozen


@pytest.mark.parametrize("width", [1280, 1366, 1920])
def test_the_e_stop_and_the_arming_banner_are_drawn_inside_the_window(
        make_main_window: Any, qtbot: Any, width: int) -> None:
    window = make_main_window(show=True)
    window.resize(width, 760)
    button, banner = window._estop_button, window.safety_bar.banner
    qtbot.waitUntil(lambda: window.width() == width and button.isVisible()
                    and banner.isVisible(), timeout=10_000)
    for widget in (button, banner):
        drawn = QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())
        assert window.rect().contains(drawn), (width, widget.objectName(), drawn)
