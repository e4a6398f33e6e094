"""Menus as a user meets them: every shortcut distinct, icons from resources/, the quick
panel chooser, the About box's versions."""

from __future__ import annotations

import capnp
from PySide6.QtCore import QEvent, qVersion
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QInputDialog

from app import resources
from app.qt.help_menu import about_text


def menu_actions(window) -> list[QAction]:
    found = []
    pending = [a.menu() for a in window.menuBar().actions()]
    while pending:
        menu = pending.pop()
        for action in menu.actions():
            if action.menu():
                pending.append(action.menu())
            elif not action.isSeparator():
                found.append(action)
    return found


def test_every_shortcut_is_distinct_even_after_the_layouts_menu_refills(
        make_main_window) -> None:
    window = make_main_window()
    window.save_named_layout("mine")
    window.layouts.fill()
    window.layouts.fill()
    QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)
    shortcuts = [a.shortcut().toString() for a in window.findChildren(QAction)
                 if not a.shortcut().isEmpty()]
    assert len(shortcuts) == len(set(shortcuts)), shortcuts
    assert {"Ctrl+K", "Ctrl+O", "Ctrl+S", "Ctrl+I", "Ctrl+E", "Ctrl+T", "Ctrl+1"} <= set(shortcuts)
    assert "mine" in [a.text() for a in menu_actions(window)]


def test_actions_and_docks_carry_icons(make_main_window) -> None:
    window = make_main_window()
    by_text = {a.text(): a for a in menu_actions(window)}
    for text in ("&Connect…", "&Open layout…", "&Save layout…", "&Import layout…",
                 "&Export layout…", "Add &panel…", "&Full screen", "&About Fieldstation"):
        assert not by_text[text].icon().isNull(), text
    for cls in window.registry.classes():
        assert resources.icon_path(cls.panel_id).is_file()
        window.open_panel(cls.panel_id)
    for name in window.panels():
        assert not window.findChild(type(window._docks[name]), name).windowIcon().isNull()
    assert not window.windowIcon().isNull()
    assert window.windowIcon().pixmap(16, 16).width() == 16  # the SVG renders small too


def test_add_panel_chooser_opens_the_chosen_panel(make_main_window, monkeypatch) -> None:
    window = make_main_window()
    titles = [c.title for c in window.registry.classes()]
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: (titles[-1], True))
    window._choose_panel()
    assert [p.title for p in window.panels().values()] == [titles[-1]]
    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("", False))
    window._choose_panel()
    assert len(window.panels()) == 1


def test_open_layout_chooser_lists_defaults_and_saved(make_main_window, monkeypatch) -> None:
    window = make_main_window()
    window.open_panel("plot")
    window.save_named_layout("one plot")
    offered: list[list[str]] = []

    def get_item(parent, title, label, items, *args, **kwargs):
        offered.append(list(items))
        return "Teleop station", True

    monkeypatch.setattr(QInputDialog, "getItem", get_item)
    window.layouts.open()
    assert offered == [["Field laptop", "Teleop station", "one plot"]]
    assert "robots#1" in window.panels()


def test_about_names_the_versions() -> None:
    text = about_text()
    assert f"Qt {qVersion()}" in text
    assert "Zenoh 1." in text
    assert f"pycapnp {capnp.__version__}" in text and "Cap'n Proto " in text
