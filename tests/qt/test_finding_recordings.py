"""Recordings are easy to find: the toolbar shows a recording's rate and the disk it has
left, names the file after Stop with a way to open its folder; file dialogs start where
the files are; Help has the docs, the keyboard shortcuts (the README's list is the
menus') and the data folder."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QUrl
from PySide6.QtGui import QAction, QDesktopServices
from PySide6.QtWidgets import QApplication, QFileDialog, QTableWidget

from app.qt import help_menu
from app.qt.main_window import MainWindow
from app.sim.fleet import SimFleet

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The paths the desktop was asked to open (a browser, a file manager)."""
    urls: list[Path] = []

    def open_url(url: QUrl) -> bool:
        urls.append(Path(url.toLocalFile()))
        return True

    monkeypatch.setattr(QDesktopServices, "openUrl", open_url)
    return urls


@pytest.fixture
def open_log_folder(monkeypatch: pytest.MonkeyPatch) -> Callable[[MainWindow], Path]:
    """Where *File ▸ Open log…* starts (the dialog cancelled)."""
    asked: list[str] = []
    def get_open_file_name(_parent: object, _title: str, folder: str,
                           _filter: str) -> tuple[str, str]:
        asked.append(folder)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", get_open_file_name)

    def folder(window: MainWindow) -> Path:
        action(window, "Open &log…").trigger()
        return Path(asked.pop())

    return folder


def action(window: MainWindow, text: str) -> QAction:
    return next(a for a in window.findChildren(QAction) if a.text() == text)


@pytest.mark.slow
def test_a_recording_shows_its_rate_and_disk_then_where_it_went(
        make_main_window: Callable[..., MainWindow], fleet: SimFleet, qtbot: Any,
        opened: list[Path], open_log_folder: Callable[[MainWindow], Path],
        monkeypatch: pytest.MonkeyPatch) -> None:
    window = make_main_window(show=True)
    qtbot.waitUntil(lambda: bool(window.station.robots()), timeout=15_000)
    assert open_log_folder(window) == window.config_dir  # nothing recorded yet
    window.recording.record_action.trigger()
    label = window.recording.label

    def shown() -> str:
        window.recording.refresh()
        return label.text()

    # e.g. "● REC 00:03  25.1 KB  0.0 MB/s  41.2 GB free (~38 days)"
    qtbot.waitUntil(lambda: re.search(r"\d+\.\d MB/s  [\d.]+ [KMG]?B free \(~\d",
                                      shown()) is not None, timeout=10_000)
    free_gb = shutil.disk_usage(window.config_dir).free / 1024**3
    shown_gb = re.search(r"([\d.]+) GB free", shown())
    # the disk's free space moves while others write to it: the same to within 0.5 GB
    assert (shown_gb is not None and abs(float(shown_gb.group(1)) - free_gb) < 0.5) \
        or "MB free" in shown()

    total = shutil.disk_usage(window.config_dir).total
    monkeypatch.setattr("app.qt.recording_meter.shutil.disk_usage",
                        lambda _folder: shutil._ntuple_diskusage(total, total - 4096, 4096))
    qtbot.waitUntil(lambda: re.search(r"4\.0 KB free.*~\d+ s left", shown()) is not None,
                    timeout=5_000)

    window.recording.record_action.trigger()  # Stop
    path = window.recording.last_file
    assert path is not None and path.parent == window.config_dir / "recordings"
    saved = window.recording.saved_label
    assert saved.isVisible() and path.name in saved.text() and saved.toolTip() == str(path)
    assert str(path) in window.statusBar().currentMessage()
    saved.linkActivated.emit("open-folder")
    assert opened == [path.parent]
    assert open_log_folder(window) == path.parent


def test_open_log_starts_where_the_newest_log_was_saved(
        make_main_window: Callable[..., MainWindow], qtbot: Any,
        open_log_folder: Callable[[MainWindow], Path]) -> None:
    window = make_main_window()
    recordings = window.config_dir / "recordings"
    recordings.mkdir(parents=True)
    (recordings / "recording-1.mcap").write_bytes(b"")
    assert open_log_folder(window) == recordings
    assert window.recording.save_black_box("saved by hand")
    qtbot.waitUntil(lambda: window.recording.last_saved is not None, timeout=5_000)
    assert open_log_folder(window) == window.config_dir / "black-box"


def test_the_camera_snapshot_dialog_starts_in_the_pictures_folder(
        make_main_window: Callable[..., MainWindow], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / "Pictures").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_PICTURES_DIR", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    asked: list[str] = []
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda _parent, _title, name, _filter: (asked.append(name), ("", ""))[1])
    window = make_main_window()
    camera = window.open_panel("camera")
    camera._ask_snapshot()
    assert Path(asked[0]).parent == home / "Pictures"
    # a name that does not overwrite the last snapshot: what it shows and when
    assert Path(asked[0]).name != "camera.png"
    assert re.fullmatch(r"camera \d{4}-\d\d-\d\d \d{6}\.png", Path(asked[0]).name)


def test_help_opens_the_docs_and_the_data_folder(
        make_main_window: Callable[..., MainWindow], opened: list[Path]) -> None:
    window = make_main_window()
    action(window, "&User guide (README)").trigger()
    action(window, "&Robot protocol (schemas/README)").trigger()
    action(window, "Open &data folder").trigger()
    readme, protocol, data = opened
    assert readme.name == "README.md" and readme.read_text().startswith("# Fieldstation")
    assert protocol == readme.parent / "schemas" / "README.md" and protocol.is_file()
    assert data == window.config_dir and data.is_dir()


def test_keyboard_shortcuts_lists_every_shortcut_of_the_menus_as_the_readme_does(
        make_main_window: Callable[..., MainWindow], qtbot: Any) -> None:
    window = make_main_window(show=True)
    action(window, "&Keyboard shortcuts").trigger()
    qtbot.waitUntil(lambda: isinstance(QApplication.activeModalWidget(), help_menu.QDialog),
                    timeout=10_000)
    dialog = QApplication.activeModalWidget()
    table = dialog.findChild(QTableWidget)
    rows = [(table.item(r, 0).text(), table.item(r, 1).text()) for r in range(table.rowCount())]
    for expected in [("File ▸ Open log…", "Ctrl+Shift+O"), ("Recording ▸ ● Record", "Ctrl+R"),
                     ("Safety ▸ E-STOP", "Ctrl+Space"), ("View ▸ Full screen", "F11"),
                     ("Help ▸ Keyboard shortcuts", "F1")]:
        assert expected in rows
    every = {(help_menu._plain(a.text()), k.toString()) for a in window.findChildren(QAction)
             for k in a.shortcuts() if a.text()}
    assert {(name.rsplit(" ▸ ", 1)[-1], keys) for name, keys in rows} == every
    dialog.close()

    readme = (REPO / "README.md").read_text()
    listed = re.findall(r"^  \| ([^|]+?) \| ([^|]+?) \|$", readme, re.M)
    assert [(a, k) for k, a in listed if k != "keys" and not k.startswith("-")] == rows
