"""The Layouts menu: the layouts by name (the current one checked), open, save, import and
export. Switching away from a layout the operator changed asks first: their added panels
and plot series are work, not Qt's window bytes."""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QFileDialog,
    QInputDialog,
    QMainWindow,
    QMenu,
    QMessageBox,
)

from app import resources
from app.layouts import DockRecord, Layout
from app.qt.window_host import LayoutHost


def same_arrangement(before: list[DockRecord], after: list[DockRecord]) -> bool:
    """Whether the operator left the docks as they were: the same panels in the same places
    showing the same things."""
    return len(before) == len(after) and all(
        (b.object_name, b.panel_id, b.area, b.tab_with, b.floating)
        == (a.object_name, a.panel_id, a.area, a.tab_with, a.floating)
        and _same_state(b.state, a.state) for b, a in zip(before, after, strict=True))


def _same_state(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Equal states, except that entries a panel added by itself to a table it keeps (the
    3D view's layers, one per topic as they appear) are not the operator's change."""
    if before.keys() != after.keys():
        return False
    for key, old in before.items():
        new = after[key]
        if isinstance(old, dict) and isinstance(new, dict):
            if old.keys() - new.keys() or any(old[k] != new[k] for k in old):
                return False
        elif old != new:
            return False
    return True


def fresh_name(taken: list[str]) -> str:
    """The first "Layout N" no layout has."""
    n = 1
    while f"Layout {n}" in taken:
        n += 1
    return f"Layout {n}"


def export_file_name(layout_name: str, now: float) -> str:
    """A name that does not overwrite the last export: the layout's, then the time."""
    stamp = time.strftime("%Y-%m-%d %H%M%S", time.localtime(now))
    return f"{layout_name or 'layout'} {stamp}.json"


class LayoutMenu:
    """The window's Layouts menu and which layout is current (the one last loaded or saved)."""

    def __init__(self, window: QMainWindow, host: LayoutHost, menu: QMenu) -> None:
        self.window = window  # the dialogs'
        self.host = host
        self.menu = menu
        self.name = ""
        self._baseline: list[DockRecord] = []
        self._group = QActionGroup(menu)
        self._group.setExclusive(True)
        self.fill()

    # -- which layout is current ----------------------------------------------------------
    def took(self, name: str, applied: Layout | None = None) -> None:
        """The window now shows layout `name`, as loaded (`applied`) or saved: nothing is
        unsaved. Qt groups tabs only once it lays the docks out, so a layout just applied
        says which docks share tabs."""
        self.name = name
        docks = copy.deepcopy(self.host.current_layout(name).docks)
        tabs = {d.object_name: d.tab_with for d in applied.docks} if applied else {}
        for dock in docks:
            dock.tab_with = tabs.get(dock.object_name, dock.tab_with)
        self._baseline = docks
        self.fill()

    def is_changed(self) -> bool:
        # A shown window groups tabs in its next layout pass: a layout applied a moment
        # ago reports none until then.
        QApplication.processEvents()
        return not same_arrangement(self._baseline, self.host.current_layout(self.name).docks)

    def names(self) -> list[str]:
        folder = self.host.layouts_dir()
        shipped = resources.default_layout_names()
        saved = sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
        return shipped + [n for n in saved if n not in shipped]

    def proposed_name(self) -> str:
        names = self.names()
        return self.name if self.name in names else fresh_name(names)

    # -- the menu -------------------------------------------------------------------------
    def fill(self) -> None:
        self.menu.clear()
        for action in self._group.actions():
            self._group.removeAction(action)
        for name in self.names():
            action = self._add(name, None, lambda _=False, n=name: self.switch_to(n))
            action.setCheckable(True)
            action.setChecked(name == self.name)
            self._group.addAction(action)
        self.menu.addSeparator()
        self._add("&Open layout…", QKeySequence.StandardKey.Open, self.open, "layout-open")
        self._add("&Save layout…", QKeySequence.StandardKey.Save, self.save_as, "layout-save")
        self._add("&Import layout…", "Ctrl+I", self.import_layout, "layout-import")
        self._add("&Export layout…", "Ctrl+E", self.export_layout, "layout-export")

    def _add(self, text: str, shortcut: Any, slot: Any, icon: str = "") -> QAction:
        path = resources.icon_path(icon) if icon else None
        action = QAction(QIcon(str(path)) if path and path.is_file() else QIcon(), text,
                         self.window)
        if shortcut is not None:
            action.setShortcut(QKeySequence(shortcut))
        action.triggered.connect(slot)
        self.menu.addAction(action)
        return action

    def _mark_current(self) -> None:
        """Checks the current layout again (a click on another that was cancelled moved it)."""
        for action in self._group.actions():
            action.setChecked(action.text() == self.name)

    # -- what the menu does ---------------------------------------------------------------
    def may_discard(self) -> bool:
        """True when the current arrangement may be replaced: unchanged, saved on request,
        or the operator chose to discard it."""
        if not self.is_changed():
            return True
        shown = f"“{self.name}”" if self.name in self.names() else "the current layout"
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self.window, "Unsaved layout changes",
            f"You changed {shown} (panels, their places or what they show).\n\n"
            "Save the changes before opening another layout?",
            buttons.Save | buttons.Discard | buttons.Cancel, buttons.Save)
        if answer == buttons.Save:
            return self.save_as()
        return answer == buttons.Discard

    def switch_to(self, name: str) -> bool:
        switched = self.may_discard() and self.host.load_named_layout(name)
        self._mark_current()
        return switched

    def open(self) -> None:
        names = self.names()
        current = names.index(self.name) if self.name in names else 0
        name, ok = QInputDialog.getItem(self.window, "Open layout", "Layout:", names, current,
                                        False)
        if ok and name:
            self.switch_to(name)

    def save_as(self) -> bool:
        name, ok = QInputDialog.getText(self.window, "Save layout", "Layout name:",
                                        text=self.proposed_name())
        if not (ok and name.strip()):
            return False
        self.host.save_named_layout(name.strip())
        return True

    def import_layout(self) -> None:
        """Opens a layout file and keeps it by its file's name, asking first (only once the
        file proved good) if that would discard changes."""
        path, _ = QFileDialog.getOpenFileName(self.window, "Import layout", "",
                                              "Layouts (*.json)")
        if not path:
            return
        try:
            text = Path(path).read_bytes()
        except OSError as exc:
            self.host.layout_refused(f"cannot read {path}: {exc.strerror or exc}")
            return
        layout = self.host.parsed_layout(text, Path(path).name)
        if layout is None or not self.may_discard():
            return
        self.host.apply_layout(layout)
        self.host.save_named_layout(Path(path).stem)
        self.took(Path(path).stem, layout)

    def export_layout(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self.window, "Export layout",
                                              export_file_name(self.name, time.time()),
                                              "Layouts (*.json)")
        if not path:
            return
        try:
            Path(path).write_text(self.host.current_layout(Path(path).stem).to_json())
        except OSError as exc:
            self.host.show_message(f"Layout not exported: {exc.strerror or exc}")
            if self.window.isVisible():
                QMessageBox.warning(self.window, "Layout not exported",
                                    f"{path}: {exc.strerror or exc}")
            return
        self.host.show_message(f"Layout exported to {path}")
