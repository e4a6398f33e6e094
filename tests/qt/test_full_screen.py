"""Full screen works on every desktop: F11 always, and the desktop's own key as well."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QApplication


def full_screen_action(window) -> QAction:
    return next(a for a in window.findChildren(QAction) if a.text() == "&Full screen")


def test_f11_toggles_full_screen(make_main_window, qtbot) -> None:
    window = make_main_window(show=True)
    qtbot.waitExposed(window)
    window.activateWindow()  # a shortcut reaches the active window only
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    qtbot.keyClick(window, Qt.Key.Key_F11)
    qtbot.waitUntil(window.isFullScreen, timeout=5_000)
    qtbot.keyClick(window, Qt.Key.Key_F11)
    qtbot.waitUntil(lambda: not window.isFullScreen(), timeout=5_000)


def test_the_desktops_own_full_screen_key_works_too(make_main_window) -> None:
    shortcuts = full_screen_action(make_main_window()).shortcuts()
    assert shortcuts[0] == QKeySequence("F11")
    standard = QKeySequence.keyBindings(QKeySequence.StandardKey.FullScreen)
    assert set(standard) <= set(shortcuts)
    assert len(shortcuts) == len(set(shortcuts))  # F11 once, even where it is the standard key
