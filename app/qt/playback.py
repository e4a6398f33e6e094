"""Playback in the window: open a log (indexed off the GUI thread, with progress), the
timeline bar under the docks, its markers, and the way back to live robots."""

from __future__ import annotations

import math
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import (
    QFileDialog,
    QMainWindow,
    QMessageBox,
    QProgressDialog,
    QToolBar,
)

from app.qt.timeline_bar import TimelineBar, TimelineMarker
from app.qt.window_host import PlaybackHost

if TYPE_CHECKING:
    from app.logbook.markers import Marker
    from app.record.reader import LogReader

OPEN_LOG_SHORTCUT = "Ctrl+Shift+O"


class PlaybackControls(QObject):
    log_failed = Signal(str)  # why the log asked for could not be opened
    _progress = Signal(float)
    _opened = Signal(object)  # a LogReader, or the LogError's text
    _marked = Signal(object, object)  # the reader, its markers

    def __init__(self, window: QMainWindow, host: PlaybackHost) -> None:
        super().__init__(window)
        self.window = window  # the toolbar's and the dialogs'
        self.host = host
        self.bar = TimelineBar()
        self.toolbar = QToolBar("Playback", window)
        self.toolbar.setObjectName("playback-bar")
        self.toolbar.setMovable(False)
        self.toolbar.addWidget(self.bar)
        self.toolbar.hide()
        window.addToolBar(Qt.ToolBarArea.BottomToolBarArea, self.toolbar)
        self.bar.play_pause.connect(lambda: self._player_do("toggle"))
        self.bar.step.connect(lambda: self._player_do("step"))
        self.bar.seek.connect(lambda f: self._player_do("seek_fraction", f))
        self.bar.speed_changed.connect(lambda x: self._player_do("set_speed", x))
        self.bar.loop_changed.connect(lambda on: self._player_do("set_loop", on))
        self._progress_dialog: QProgressDialog | None = None
        self._opening: threading.Thread | None = None
        self._last_folder: Path | None = None
        self.markers: list[Marker] = []
        self._progress.connect(self._show_progress)
        self._opened.connect(self._on_opened)
        self._marked.connect(self._on_marked)

    # -- opening ---------------------------------------------------------------------------
    def choose_log(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self.window, "Open log", str(self.logs_folder()),
                                              "MCAP logs (*.mcap);;All files (*)")
        if path:
            self.open_log(Path(path))

    def logs_folder(self) -> Path:
        """Where *Open log…* starts: the folder of the last log opened, else whichever of
        recordings and the black boxes holds the newest log, else the data folder."""
        if self._last_folder is not None and self._last_folder.is_dir():
            return self._last_folder
        recording = self.host.recording
        return newest_logs_folder([recording.recordings_dir, recording.black_box_dir]) \
            or self.host.config_dir

    def open_log(self, path: Path) -> None:
        """Indexes the log on a thread (a progress bar meanwhile), then plays it in place of
        the session, paused at its start."""
        if self._opening is not None and self._opening.is_alive():
            self.host.show_message("A log is already being opened")
            return
        dialog = QProgressDialog(f"Indexing {path.name}…", "", 0, 1000, self.window)
        dialog.setCancelButton(None)
        dialog.setWindowTitle("Open log")
        dialog.setMinimumDuration(300)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self._progress_dialog = dialog

        from app.record.foreign import foreign_translator
        from app.record.reader import LogError, LogReader

        def index() -> None:
            try:
                reader = LogReader(path, on_progress=self._progress.emit,
                                   translate=foreign_translator())
            except LogError as exc:
                self._opened.emit(str(exc))
                return
            self._opened.emit(reader)

        self._opening = threading.Thread(target=index, name="index log", daemon=True)
        self._opening.start()

    def _show_progress(self, fraction: float) -> None:
        if self._progress_dialog is not None:
            self._progress_dialog.setValue(round(fraction * 1000))

    def _on_opened(self, result: object) -> None:
        from app.logbook.markers import find_markers
        from app.record.reader import LogReader

        if self._progress_dialog is not None:
            self._progress_dialog.close()
            self._progress_dialog.deleteLater()
            self._progress_dialog = None
        if not isinstance(result, LogReader):
            self.host.show_message(f"Log not opened: {result}")
            self.log_failed.emit(str(result))
            if self.window.isVisible():  # said, without holding the window (and its tests)
                box = QMessageBox(QMessageBox.Icon.Warning, "Log not opened", str(result),
                                  QMessageBox.StandardButton.Close, self.window)
                box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
                box.open()
            return
        self._last_folder = result.path.parent
        self.host.recording.stop_recording()
        self.host.set_active_robot(None)
        self.host.connection.play(result)
        self.markers = []
        self.bar.set_markers(())
        self.toolbar.show()
        self.host.show_message(f"Playing {result.path.name}"
                                 + (f" — {'; '.join(result.problems)}" if result.problems
                                    else ""))
        threading.Thread(target=lambda: self._marked.emit(
            result, find_markers(result, self.host.station.root)),
            name="find markers", daemon=True).start()
        self.host.refresh_mode()

    def _on_marked(self, reader: LogReader, markers: list[Marker]) -> None:
        player = self.host.station.player
        if player is None or player.reader is not reader:
            return  # another log, or live again
        span = max(1, reader.end_ns - reader.start_ns)
        self.markers = markers
        self.bar.set_markers(tuple(TimelineMarker((m.t_ns - reader.start_ns) / span, m.kind,
                                                  m.text) for m in markers))

    # -- playing ---------------------------------------------------------------------------
    def _player_do(self, what: str, *args: object) -> None:
        player = self.host.station.player
        if player is not None:
            getattr(player, what)(*args)
            self.refresh()

    def refresh(self) -> None:
        """Each frame tick: where the log is."""
        player = self.host.station.player
        if player is None:
            if self.toolbar.isVisible() and not self.host.station.playback:
                self.toolbar.hide()
            return
        state = player.state()
        self.bar.show_state(state.fraction, (state.position_ns - state.start_ns) / 1e9,
                            (state.end_ns - state.start_ns) / 1e9, state.playing)

    def back_to_live(self) -> None:
        self.toolbar.hide()
        self.host.reconnect(self.host.connection.choice)


def newest_logs_folder(folders: list[Path]) -> Path | None:
    """The folder holding the newest ``.mcap`` of ``folders``; the first that exists if
    none holds one; None if none exists."""
    existing = [folder for folder in folders if folder.is_dir()]
    newest = max(((_modified(log), folder) for folder in existing
                  for log in folder.glob("*.mcap")), default=None, key=lambda found: found[0])
    if newest is not None:
        return newest[1]
    return existing[0] if existing else None


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:  # deleted meanwhile (the black boxes' folder is pruned)
        return -math.inf

