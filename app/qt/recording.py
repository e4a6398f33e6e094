"""Recording in the window: the record button, the always-on black box and its saving.

The recorder and the black box are consumers of the station (``StationTap``); what they
write is written on their own threads, so nothing here waits on the disk. The black box
saves itself when a robot raises a critical fault or engages its e-stop, on its button,
on Ctrl+B, and on SIGUSR1 to the process.
"""

from __future__ import annotations

import html
import signal
import threading
import time
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QToolBar

from app.logbook.incident_watch import IncidentWatch
from app.logbook.station_tap import StationTap
from app.qt.recording_meter import RecordingMeter, time_left
from app.qt.window_host import RecordingHost
from app.record.blackbox import BlackBox
from app.record.retention import KEEP_BYTES, prune_oldest
from app.record.writer import Recorder, RecorderStatus

RECORD_SHORTCUT = "Ctrl+R"
BLACK_BOX_SHORTCUT = "Ctrl+B"
RECORDING_STYLE = "color:#f85149;font-weight:bold;"
LOW_DISK_S = 600  # under this much recording time left, the toolbar says it in red
# Point clouds and camera frames would push the minute out of the black box's memory bound;
# it keeps everything smaller (vitals, poses, detections, commands). Record to keep them.
BLACK_BOX_MAX_SAMPLE_BYTES = 1024 * 1024
SPLIT_BYTES = 1024**3  # a recording goes on in a new part every GiB: files stay easy to move
BY_HAND = "saved by hand"


def stamped_name(prefix: str) -> str:
    return f"{prefix}-{time.strftime('%Y%m%d-%H%M%S')}.mcap"


class RecordingControls(QObject):
    black_box_saved = Signal(str, str)  # path ("" if it failed), what happened

    def __init__(self, window: QMainWindow, host: RecordingHost) -> None:
        super().__init__(window)
        self.window = window  # the toolbar's and the dialogs'
        self.host = host
        self.recordings_dir = host.config_dir / "recordings"
        self.black_box_dir = host.config_dir / "black-box"
        self.recorder: Recorder | None = None
        self._meter: RecordingMeter | None = None
        self.last_file: Path | None = None  # the newest recording or black box saved
        self._record_tap: StationTap | None = None
        self.black_box = BlackBox()
        self._box_tap = StationTap(host.station, self.black_box, name="black box",
                                   max_sample_bytes=BLACK_BOX_MAX_SAMPLE_BYTES, passive=True)
        self.incidents = IncidentWatch()
        self._saving = threading.Lock()
        self._signalled = False
        self.last_saved: Path | None = None
        self._saved_clock = ""  # when the black box was last saved, as the toolbar says it
        self.black_box_saved.connect(self._saved)
        self._build_toolbar()
        if hasattr(signal, "SIGUSR1"):
            signal.signal(signal.SIGUSR1, lambda *_: setattr(self, "_signalled", True))

    def _build_toolbar(self) -> None:
        bar = QToolBar("Recording", self.window)
        bar.setObjectName("recording-bar")
        bar.setMovable(False)
        self.record_action = QAction("● Record", self.window)
        self.record_action.setCheckable(True)
        self.record_action.setShortcut(QKeySequence(RECORD_SHORTCUT))
        self.record_action.setToolTip(f"Record every topic to an MCAP file, a new part every "
                                      f"GiB ({RECORD_SHORTCUT})")
        self.record_action.toggled.connect(self._record_toggled)
        self.black_box_action = QAction("Save black box", self.window)
        self.black_box_action.setShortcut(QKeySequence(BLACK_BOX_SHORTCUT))
        self.black_box_action.setShortcutContext(Qt.ShortcutContext.ApplicationShortcut)
        self.black_box_action.setToolTip(
            f"Save the last {self.black_box.seconds:g} s of every topic, samples over 1 MB "
            f"(clouds, images) left out ({BLACK_BOX_SHORTCUT})")
        self.black_box_action.triggered.connect(lambda: self.save_black_box(BY_HAND))
        self.label = QLabel()
        self.label.setContentsMargins(8, 0, 8, 0)
        self.saved_label = QLabel()
        self.saved_label.setContentsMargins(8, 0, 8, 0)
        self.saved_label.linkActivated.connect(lambda _: self.open_saved_folder())
        self.saved_label.hide()
        bar.addAction(self.record_action)
        bar.addWidget(self.label)
        bar.addWidget(self.saved_label)
        bar.addSeparator()
        bar.addAction(self.black_box_action)
        self.toolbar = bar
        self.window.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)

    # -- recording ---------------------------------------------------------------------------
    def start_recording(self, path: Path | None = None, keys: Iterable[str] = (),
                        split_bytes: int | None = SPLIT_BYTES,
                        split_s: float | None = None) -> Path:
        """Records ``keys`` (key expressions; every topic when empty) until stopped."""
        self.stop_recording()
        path = path or self.recordings_dir / stamped_name("recording")
        path.parent.mkdir(parents=True, exist_ok=True)
        self.recorder = Recorder(path, split_bytes=split_bytes, split_s=split_s)
        self._meter = RecordingMeter(path.parent)
        self.saved_label.hide()
        self._record_tap = StationTap(self.host.station, self.recorder, keys,
                                      name="recorder")
        self.record_action.blockSignals(True)
        self.record_action.setChecked(True)
        self.record_action.blockSignals(False)
        what = ", ".join(keys) if keys else "every topic"
        path = self.recorder.status().path  # the first part's name when it splits
        self.host.show_message(f"Recording {what} to {path}")
        self.refresh()
        return path

    def stop_recording(self) -> RecorderStatus | None:
        tap, self._record_tap = self._record_tap, None
        recorder, self.recorder = self.recorder, None
        self._meter = None
        if tap is not None:
            tap.close()
        self.record_action.blockSignals(True)
        self.record_action.setChecked(False)
        self.record_action.blockSignals(False)
        if recorder is None:
            return None
        status = recorder.close()
        self._show_saved(status.path)
        dropped = sum(status.dropped.values())
        self.host.show_message(
            f"Recorded {status.messages} messages ({_size(status.bytes_written)}, "
            f"{status.duration_s:.1f} s) to {status.path}"
            + (f"; {dropped} dropped" if dropped else "")
            + (f"; {status.error}" if status.error else ""))
        self.refresh()
        return status

    def _record_toggled(self, on: bool) -> None:
        if on:
            self.start_recording()
        else:
            self.stop_recording()

    # -- the black box -----------------------------------------------------------------------
    def save_black_box(self, reason: str) -> bool:
        """Saves the black box's window on a thread of its own; False if a save is already
        under way (that one holds the same minute)."""
        if not self._saving.acquire(blocking=False):
            return False
        path = self.black_box_dir / stamped_name("black-box")
        head = self._box_tap.head()  # presence and catalogs: the file plays alone

        def save() -> None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self.black_box.save(path, head)
                pruned = prune_oldest(path.parent, "black-box-*.mcap")
                self.black_box_saved.emit(str(path), reason + (
                    f"; the {len(pruned)} oldest deleted (black boxes are kept to "
                    f"{KEEP_BYTES / 1024**3:g} GB)" if pruned else ""))
            except OSError as exc:
                self.black_box_saved.emit("", f"{reason}: not saved ({exc.strerror or exc})")
            finally:
                self._saving.release()

        threading.Thread(target=save, name="save black box").start()
        return True

    def _saved(self, path: str, reason: str) -> None:
        if not path:
            self.host.show_message(f"Black box {reason}")
            return
        self.last_saved = Path(path)
        self._saved_clock = time.strftime("%H:%M:%S")
        self._show_saved(self.last_saved)
        how = "Black box saved" if reason.startswith(BY_HAND) else "Black box saved by itself"
        self.host.show_message(f"{how} ({reason}): the last {self.black_box.seconds:g} s "
                                 f"of every topic are in {path}")

    def _black_box_text(self) -> str:
        """What the toolbar says of the black box while nothing is recorded."""
        text = f"◉ black box: last {self.black_box.span_s():.0f} s"
        return text + (f" · saved {self._saved_clock}" if self._saved_clock else "")

    def _black_box_tooltip(self) -> str:
        seconds = f"{self.black_box.seconds:g}"
        tip = (f"The black box: the station always keeps the last {seconds} s of every topic "
               f"in memory (samples over {BLACK_BOX_MAX_SAMPLE_BYTES // 1024**2} MB, such as "
               f"point clouds and images, left out; at most "
               f"{self.black_box.max_bytes // 1024**2} MB, so a busy fleet keeps less).\n"
               f"It is saved to {self.black_box_dir} with {BLACK_BOX_SHORTCUT} "
               "(Recording ▸ Save black box), and by itself when a robot raises a critical "
               "fault or engages its e-stop. Saving does not empty it.")
        if self.last_saved is not None:
            tip += f"\nLast saved: {self.last_saved}"
        return tip

    # -- each refresh of the window's tables ---------------------------------------------------
    def refresh(self) -> None:
        live = not self.host.station.playback
        self.record_action.setEnabled(live or self.recorder is not None)
        self.black_box_action.setEnabled(live)
        if self._signalled:
            self._signalled = False
            self.save_black_box("on SIGUSR1")
        if live:
            for reason in self.incidents.check(self.host.station.vitals.snapshot()):
                self.save_black_box(reason)
        recorder = self.recorder
        if recorder is None:
            self.label.setText(self._black_box_text())
            self.label.setToolTip(self._black_box_tooltip())
            self.label.setStyleSheet("")
            return
        status = recorder.status()
        dropped = sum(status.dropped.values())
        text = f"● REC {_clock(status.duration_s)}  {_size(status.bytes_written)}"
        if self._meter is not None:
            text += self._cost(self._meter, status.bytes_written)
        if len(status.files) > 1:
            text += f"  part {len(status.files)}"
        if dropped:
            text += f"  {dropped} dropped"
        if status.error:
            text += f"  {status.error}"
        elif status.behind:
            text += "  (disk behind)"
        self.label.setText(text)
        self.label.setToolTip(str(status.path))
        self.label.setStyleSheet(RECORDING_STYLE)

    def _cost(self, meter: RecordingMeter, bytes_written: int) -> str:
        """The rate, the space left and, in red when it is short, how long that lasts."""
        rate = meter.rate_bps(bytes_written)
        text = f"  {rate / 1024**2:.1f} MB/s"
        free = meter.free_bytes()
        if free is None:
            return text
        text += f"  {_size(free)} free"
        left = time_left(free, rate)
        if left:
            short = free / rate < LOW_DISK_S
            text += (f"  <span style='background:#f85149;color:#fff'>&nbsp;~{left} left&nbsp;"
                     "</span>" if short else f" (~{left})")
        return text

    # -- where the files went ------------------------------------------------------------------
    def _show_saved(self, path: Path) -> None:
        self.last_file = path
        self.saved_label.setText(f"Saved {html.escape(path.name)} · "
                                 "<a href='open-folder'>Open folder</a>")
        self.saved_label.setToolTip(str(path))
        self.saved_label.show()

    def open_saved_folder(self) -> None:
        """The folder of the newest file saved, in the desktop's file manager."""
        if self.last_file is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.last_file.parent)))

    def close(self) -> None:
        self.stop_recording()
        self._box_tap.close()


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"


def _clock(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes:02d}:{rest:02d}"
