"""The Help menu: the documentation, the keyboard shortcuts (read from the window's own
actions, so the list never disagrees with the menus), the data folder, and About."""

from __future__ import annotations

import platform
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import PySide6
from PySide6.QtCore import Qt, QUrl, qVersion
from PySide6.QtGui import QAction, QDesktopServices, QIcon, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QMainWindow,
    QMenu,
    QMessageBox,
    QTableWidget,
    QTableWidgetItem,
    QToolBar,
    QVBoxLayout,
)

from app import resources
from app.qt.safety_bar import SafetyBar

# Beside the packages from source, and in the bundle's data folder (packaging's spec).
ROOT = Path(__file__).resolve().parents[2]
DOCUMENTS = {"&User guide (README)": ROOT / "README.md",
             "&Robot protocol (schemas/README)": ROOT / "schemas" / "README.md"}


@dataclass(frozen=True)
class Shortcut:
    keys: str  # as the menus show them, e.g. "Ctrl+Shift+O"
    action: str  # what it does, e.g. "File ▸ Open log…"


def build_help_menu(window: QMainWindow, config_dir: Path) -> QMenu:
    menu = window.menuBar().addMenu("&Help")
    for title, path in DOCUMENTS.items():
        _add(menu, title, partial(open_path, path))
    _add(menu, "&Keyboard shortcuts", lambda: show_shortcuts(window),
         QKeySequence.StandardKey.HelpContents)
    _add(menu, "Open &data folder", lambda: open_data_folder(config_dir))
    menu.addSeparator()
    about = _add(menu, "&About Fieldstation",
                 lambda: QMessageBox.about(window, "About Fieldstation", about_text()))
    about.setIcon(QIcon(str(resources.icon_path("about"))))
    return menu


def _add(menu: QMenu, text: str, slot: Callable[[], object],
         keys: QKeySequence.StandardKey | None = None) -> QAction:
    action = menu.addAction(text)
    if keys is not None:
        action.setShortcut(QKeySequence(keys))
    action.triggered.connect(slot)
    return action


def open_path(path: Path) -> bool:
    """Opens a file or folder with the desktop's application for it (a browser, a file
    manager)."""
    return QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


def open_data_folder(config_dir: Path) -> bool:
    """The station's settings, layouts, log file, recordings and black boxes."""
    config_dir.mkdir(parents=True, exist_ok=True)
    return open_path(config_dir)


def shortcuts(window: QMainWindow) -> list[Shortcut]:
    """Every keyboard shortcut of the window's actions, named by where they are (``File ▸
    Open log…``, ``Recording ▸ ● Record``, else the action's own text), in menu order."""
    found: dict[tuple[str, str], Shortcut] = {}
    for action, name in _named_actions(window):
        for keys in action.shortcuts():
            text = keys.toString(QKeySequence.SequenceFormat.NativeText)
            if text and name:
                found[(text, name)] = Shortcut(text, name)
    return list(found.values())


def _named_actions(window: QMainWindow) -> Iterator[tuple[QAction, str]]:
    seen: set[QAction] = set()

    def walk(actions: list[QAction], where: list[str]) -> Iterator[tuple[QAction, str]]:
        for action in actions:
            seen.add(action)
            path = [*where, _plain(action.text())]
            submenu = action.menu()
            if isinstance(submenu, QMenu):
                yield from walk(submenu.actions(), path)
            yield action, " ▸ ".join(path)

    yield from walk(window.menuBar().actions(), [])
    for bar in [*window.findChildren(SafetyBar), *window.findChildren(QToolBar)]:
        yield from walk(bar.actions(), [bar.windowTitle()])
    for action in window.findChildren(QAction):  # the window's own, as the E-STOP's key
        if action not in seen:
            yield action, _plain(action.text())


def _plain(text: str) -> str:
    """A menu text without its mnemonic marks (``&File`` is File; ``&&`` is ``&``)."""
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def show_shortcuts(window: QMainWindow) -> None:
    shortcuts_dialog(window).open()


def shortcuts_dialog(window: QMainWindow) -> QDialog:
    dialog = QDialog(window)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.setWindowTitle("Keyboard shortcuts")
    rows = shortcuts(window)
    table = QTableWidget(len(rows), 2, dialog)
    table.setHorizontalHeaderLabels(["Action", "Keys"])
    for row, shortcut in enumerate(rows):
        table.setItem(row, 0, QTableWidgetItem(shortcut.action))
        table.setItem(row, 1, QTableWidgetItem(shortcut.keys))
    table.verticalHeader().hide()
    table.verticalHeader().setDefaultSectionSize(table.fontMetrics().height() + 8)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
    table.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
    buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, dialog)
    buttons.rejected.connect(dialog.reject)
    layout = QVBoxLayout(dialog)
    layout.addWidget(table)
    layout.addWidget(buttons)
    dialog.resize(520, 560)
    return dialog


def about_text() -> str:
    """What About says: the versions of Fieldstation and what it is built on."""
    import capnp
    import capnp.version as lib

    def dist(name: str) -> str:
        try:
            return version(name)
        except PackageNotFoundError:
            return "?"

    return (f"<b>Fieldstation {dist('fieldstation')}</b><br>"
            "Robot visualisation and teleoperation over Zenoh and Cap'n Proto.<br><br>"
            f"Qt {qVersion()} (PySide6 {PySide6.__version__})<br>"
            f"Zenoh {dist('eclipse-zenoh')}<br>"
            f"Cap'n Proto {lib.LIBCAPNP_VERSION_MAJOR}.{lib.LIBCAPNP_VERSION_MINOR}."
            f"{lib.LIBCAPNP_VERSION_MICRO} (pycapnp {capnp.__version__})<br>"
            f"Python {platform.python_version()}")
