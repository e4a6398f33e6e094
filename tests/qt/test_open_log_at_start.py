"""``fieldstation FILE.mcap`` (and ``--log FILE``) starts the window playing that log, as
``foxglove-studio FILE.mcap`` does; a log that cannot be opened is said on screen, and the
window stays live. The whole command runs in this process: its event loop is the test's."""

from __future__ import annotations

import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QEvent
from PySide6.QtWidgets import QApplication, QMessageBox

from app import cli
from app.qt import start
from app.qt.main_window import MainWindow
from app.record.writer import Recorder
from tests.record.conftest import offer_all
from tests.record.fleet import fleet_samples

pytestmark = pytest.mark.slow


@pytest.fixture
def drive_log(tmp_path: Path) -> Path:
    """A second of the simulated fleet, written by the app's own recorder."""
    path = tmp_path / "drive.mcap"
    recorder = Recorder(path)
    offer_all(recorder, fleet_samples(1.0))
    assert not recorder.close().error
    return path


@pytest.fixture
def run_window(qtbot: Any, tmp_path: Path, free_endpoint: str,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[..., None]]:
    """Runs ``fieldstation ARGS`` (no fleet, a fresh config dir) until ``until(window)``
    holds in its event loop, then closes the window as its user would."""
    monkeypatch.setenv("FIELDSTATION_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setattr("app.logs.configure", lambda _dir: None)  # the test run's logging
    sigterm = signal.getsignal(signal.SIGTERM)
    real_application = start.create_application

    def run(args: list[str], until: Callable[[MainWindow], bool]) -> None:

        class Application:  # the real one, whose exec() is the test waiting for `until`
            def exec(self) -> int:
                window = next(w for w in QApplication.topLevelWidgets()
                              if isinstance(w, MainWindow))
                try:
                    qtbot.waitUntil(lambda: until(window), timeout=15_000)
                finally:
                    window.close()
                    window.connection.close()
                    window.deleteLater()
                return 0

        monkeypatch.setattr(start, "create_application",
                            lambda: (real_application(), Application())[1])
        assert cli.main([*args, "--no-sim", "--connect", free_endpoint]) == 0
        QApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)

    try:
        yield run
    finally:
        signal.signal(signal.SIGTERM, sigterm)
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, QMessageBox):
                widget.close()


def playing(window: MainWindow, log: Path) -> bool:
    player = window.station.player
    return player is not None and player.reader.path == log and \
        window.windowTitle() == f"Fieldstation — PLAYBACK {log.name}"


def test_a_log_named_on_the_command_line_opens_in_playback(run_window, drive_log: Path) -> None:
    def with_its_robots_and_timeline(window: MainWindow) -> bool:
        return playing(window, drive_log) and window.playback.toolbar.isVisibleTo(window) \
            and {r.robot_id for r in window.station.robots()} == {"rover-1", "humanoid-1",
                                                                   "car-1"}

    run_window([str(drive_log)], with_its_robots_and_timeline)


def test_the_log_option_opens_it_too(run_window, drive_log: Path) -> None:
    run_window(["--log", str(drive_log)], lambda w: playing(w, drive_log))


@pytest.mark.parametrize(("name", "content", "why"), [
    ("missing.mcap", None, "No such file or directory"),
    ("corrupt.mcap", b"not a log" * 100, "not an MCAP file"),
])
def test_a_log_that_cannot_be_opened_is_said_and_the_window_stays_live(
        run_window, tmp_path: Path, name: str, content: bytes | None, why: str) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)

    def said(window: MainWindow) -> bool:
        boxes = [w for w in QApplication.topLevelWidgets()
                 if isinstance(w, QMessageBox) and w.isVisible()]
        return any(why in box.text() for box in boxes) and \
            why in window.statusBar().currentMessage()

    def said_and_live(window: MainWindow) -> bool:
        return said(window) and window.station.player is None \
            and not window.station.playback and window.windowTitle() == "Fieldstation"

    run_window([str(path)], said_and_live)
