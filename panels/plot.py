"""Plot panel: numeric fields of any topics over time, by field path. A series' key may
follow the active robot (``fleet/{robot}/uplink/motion``): the plot then shows the robot
active now, from when it became active (another robot's points are dropped). While a log
plays it can show the whole log at once, each series read from the log on a thread of its
own. The panel's title (its dock's tab) names what it plots."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QVBoxLayout,
)

from app.bus.stats import TopicStats
from app.qt.panel_api import PanelHost
from app.station.frame import FrameBatch
from app.station.interests import Interest, Series
from app.station.series import SeriesBuffer
from panels.base import PanelBase
from panels.robot_keys import NO_ROBOT_CHOSEN, RobotKey
from panels.schema_info import plot_paths
from widgets.choice_box import ChoiceBox

if TYPE_CHECKING:
    from app.logbook.log_series import LogSeries, LogSeriesLoader

WINDOWS_S = {10: "10 s", 30: "30 s", 60: "1 min", 300: "5 min", 600: "10 min"}
MIN_WINDOW_S, MAX_WINDOW_S = 10, 600
DEFAULT_WINDOW_S = 60
WHOLE_LOG = "whole log"  # the time-window box's data for the whole log (playback only)
EMPTY_AFTER = 3  # messages on a key with no numeric value at the path before we say so


def plot_title(paths: list[str]) -> str:
    """What a plot's tab says: its first series' field (its last two path segments, enough
    to tell ``velocity.linearMps`` from ``battery.percentage``) and how many more."""
    if not paths:
        return PlotPanel.title
    more = f" +{len(paths) - 1}" if len(paths) > 1 else ""
    return f"{PlotPanel.title}: {'.'.join(paths[0].split('.')[-2:])}{more}"


@dataclass
class _Line:
    wanted: Series  # as the user gave it (saved): its key fixed or following the robot
    robot_key: RobotKey = field(init=False)
    buffer: SeriesBuffer | None = None
    version: int = -1
    count_at_start: int | None = None  # the topic's message count when first seen

    def __post_init__(self) -> None:
        self.robot_key = RobotKey(self.wanted.key)

    @property
    def interest(self) -> Series | None:
        """The series asked of the station this frame (None: no robot to follow)."""
        key = self.robot_key.key
        return Series(key, self.wanted.path) if key else None

    @property
    def series_id(self) -> str:
        return f"{self.wanted.key}:{self.wanted.path}"


class PlotPanel(PanelBase):
    panel_id = "plot"
    title = "Plot"
    accepts = frozenset({"topic", "field"})
    loads_slowly = True  # pyqtgraph's import: half a second here

    def __init__(self, host: PanelHost) -> None:
        super().__init__(host)
        self._lines: list[_Line] = []
        self._window_s: float = DEFAULT_WINDOW_S
        self._topics: dict[str, TopicStats] = {}
        self._whole_log = False  # chosen; shown while a log plays
        self._log: LogSeriesLoader | None = None  # reads the series of the log playing
        # pyqtgraph takes ~0.3 s to import: pay it when a plot opens, not at start-up.
        from widgets.plot_view import PlotView

        self.view = PlotView()
        self.view.pausedChanged.connect(self._on_view_paused)

        self.add_button = QToolButton()
        self.add_button.setText("+ Series")
        self.add_button.setToolTip("Plot a numeric field of a topic")
        self.add_button.clicked.connect(lambda: self.open_picker())
        self.series_button = QToolButton()
        self.series_button.setText("Series")
        self.series_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.series_button.setMenu(QMenu(self.series_button))
        self.series_button.menu().setToolTipsVisible(True)
        self.series_button.menu().aboutToShow.connect(self._fill_series_menu)
        self.window_box = QComboBox()
        self.window_box.setToolTip("Time window")
        for seconds, text in WINDOWS_S.items():
            self.window_box.addItem(text, seconds)
        self.window_box.currentIndexChanged.connect(
            lambda _: self._on_window_chosen(self.window_box.currentData()))
        self.axis_box = QComboBox()
        self.axis_box.addItems(["Relative time", "Wall clock"])
        self.axis_box.setToolTip("x axis: seconds before now, or local time of day")
        self.axis_box.currentIndexChanged.connect(lambda i: self.view.set_wall_clock(i == 1))
        self.pause_button = QToolButton()
        self.pause_button.setText("Pause")
        self.pause_button.setCheckable(True)
        self.pause_button.setToolTip("Stop following (data keeps arriving); zooming or "
                                     "panning with the mouse pauses too")
        self.pause_button.toggled.connect(self.set_paused)
        bar = QHBoxLayout()
        for button in (self.add_button, self.series_button):
            bar.addWidget(button)
        bar.addStretch(1)
        for widget in (self.window_box, self.axis_box, self.pause_button):
            bar.addWidget(widget)

        self.picker = QFrame()
        self.topic_box = ChoiceBox("Topic key")
        self.topic_box.currentTextChanged.connect(self._on_picker_topic)
        self.path_box = ChoiceBox("Field path, e.g. motion.velocity.linearMps")
        self.path_box.lineEdit().returnPressed.connect(self._add_from_picker)
        add = QToolButton()
        add.setText("Add")
        add.clicked.connect(self._add_from_picker)
        cancel = QToolButton()
        cancel.setText("✕")
        cancel.setToolTip("Close")
        cancel.clicked.connect(self.picker.hide)
        picker = QHBoxLayout(self.picker)
        picker.setContentsMargins(0, 0, 0, 0)
        picker.addWidget(self.topic_box, 3)
        picker.addWidget(self.path_box, 2)
        picker.addWidget(add)
        picker.addWidget(cancel)
        self.picker.hide()

        self.hint = QLabel("Drop a topic here, or click + Series to plot a numeric field")
        self.hint.setStyleSheet("color:#82868c;")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(bar)
        layout.addWidget(self.picker)
        layout.addWidget(self.hint)
        layout.addWidget(self.view, 1)
        self._set_window_box(DEFAULT_WINDOW_S)

    # -- the panel contract --------------------------------------------------------------
    def interests(self) -> set[Interest]:
        return {line.interest for line in self._lines if line.interest is not None}

    def accept_topic(self, key: str, type_name: str) -> bool:
        self.open_picker(key, type_name)
        return True

    def shutdown(self) -> None:
        self._close_log()

    def save_state(self) -> dict[str, Any]:
        state: dict[str, Any] = {
            "series": [{"key": key, "path": path} for key, path in self.series()],
            "window_s": self._window_s,
            "paused": self.view.paused,
        }
        if self.view.wall_clock:
            state["time_axis"] = "wall"
        return state

    def restore_state(self, state: dict[str, Any]) -> None:
        self.clear_series()
        problems = []
        series = state.get("series", [])
        for entry in series if isinstance(series, list) else []:
            if isinstance(entry, dict) and isinstance(entry.get("key"), str) and \
                    isinstance(entry.get("path"), str):
                self.add_series(entry["key"], entry["path"])
            else:
                problems.append(f"series {entry!r}")
        if not isinstance(series, list):
            problems.append("series")
        window = state.get("window_s", DEFAULT_WINDOW_S)
        if isinstance(window, (int, float)) and not isinstance(window, bool) and \
                MIN_WINDOW_S <= window <= MAX_WINDOW_S:
            self.set_window(window)
        else:
            problems.append(f"window_s {window!r}")
        self.set_paused(state.get("paused") is True)
        self.axis_box.setCurrentIndex(1 if state.get("time_axis") == "wall" else 0)
        if problems:
            self.host.show_message("Plot: ignored " + ", ".join(problems))

    def on_frame(self, batch: FrameBatch) -> None:
        if batch.tables_changed:
            self._topics = batch.topics
            if self.picker.isVisible():
                self.topic_box.set_choices(sorted(self._topics))
        self._follow_playback()
        # The window first: a series first shown then reads only that window, not its
        # whole history.
        self.view.advance(self.host.station.now())  # the log's clock in playback
        for line in self._lines:
            if line.robot_key.follow(batch):
                self._drop_points(line)
            interest = line.interest
            log_series = self._log_series(line)
            buffer = log_series.buffer if log_series is not None else \
                None if self._whole_log or interest is None else batch.series.get(interest)
            if buffer is not line.buffer:  # first asked for, or again after being hidden
                line.buffer, line.version, line.count_at_start = buffer, -1, None
                if buffer is not None:  # (hidden: the last points stay drawn)
                    self.view.set_source(line.series_id, buffer)
            if interest is not None and buffer is not None and batch.tables_changed and \
                    line.count_at_start is None:
                stats = self._topics.get(interest.key)  # counted after we asked
                line.count_at_start = stats.count if stats is not None else 0
            if buffer is not None and buffer.version != line.version:
                line.version = buffer.version  # (read first: a later write bumps it again)
                self.view.refresh(line.series_id)  # reads only what is new, or the window
            if self._whole_log:
                self._show_log_status(line, log_series)
            else:
                self._show_status(line, buffer, batch)

    # -- what the user does ----------------------------------------------------------------
    def add_series(self, key: str, path: str) -> bool:
        key, path = key.strip(), path.strip()
        interest = Series(key, path)
        if not key or not path or any(ln.wanted == interest for ln in self._lines):
            return False
        line = _Line(interest)
        self._lines.append(line)
        self.view.add_series(line.series_id, f"{key.removeprefix('fleet/')} · {path}")
        self.hint.hide()
        self._show_title()
        return True

    def remove_series(self, key: str, path: str) -> None:
        for line in [ln for ln in self._lines if ln.wanted == Series(key, path)]:
            self._lines.remove(line)
            self.view.remove_series(line.series_id)
        self.hint.setVisible(not self._lines)
        self._show_title()

    def clear_series(self) -> None:
        for key, path in self.series():
            self.remove_series(key, path)

    def series(self) -> list[tuple[str, str]]:
        return [(ln.wanted.key, ln.wanted.path) for ln in self._lines]

    def set_window(self, seconds: float) -> None:
        if self._whole_log:
            self._leave_whole_log()
        self._window_s = seconds
        self._set_window_box(seconds)
        self.view.set_window(seconds)

    def show_whole_log(self) -> bool:
        """Shows the whole log playing (False when none plays): every series read from it."""
        if not self.host.station.playback:
            return False
        self._whole_log = True
        self._follow_playback()
        return True

    @property
    def whole_log(self) -> bool:
        return self._whole_log

    def set_paused(self, paused: bool) -> None:
        self.view.set_paused(paused)
        self._on_view_paused(paused)

    def open_picker(self, key: str = "", type_name: str = "") -> None:
        """Shows the series picker, for ``key`` if given (its first numeric field chosen)."""
        self.topic_box.set_choices(sorted(self._topics), key)
        self._on_picker_topic(key, type_name)
        self.picker.show()
        (self.path_box if key else self.topic_box).setFocus()

    # -- the whole log ---------------------------------------------------------------------
    def _on_window_chosen(self, data: float | str) -> None:
        if isinstance(data, str):  # WHOLE_LOG: the box's only data that is not seconds
            self.show_whole_log()
        else:
            self.set_window(data)

    def _follow_playback(self) -> None:
        """Offers the whole log while one plays, reads the one playing now, and goes back to
        the time window when live again."""
        station = self.host.station
        offered = self.window_box.findData(WHOLE_LOG)
        if station.playback and offered < 0:
            self.window_box.addItem("Whole log", WHOLE_LOG)
        elif not station.playback and offered >= 0:
            if self._whole_log:
                self._leave_whole_log()
            self.window_box.blockSignals(True)
            self.window_box.removeItem(offered)
            self.window_box.blockSignals(False)
        if not self._whole_log:
            return
        self._set_window_box(WHOLE_LOG)
        player = station.player
        reader = player.reader if player is not None else None
        if self._log is not None and self._log.reader is not reader:
            self._close_log()  # another log opened
        if reader is not None and self._log is None:
            from app.logbook.log_series import LogSeriesLoader  # (numpy: not at start-up)

            self._log = LogSeriesLoader(reader)
            self.view.set_span((reader.start_ns / 1e9, reader.end_ns / 1e9))

    def _leave_whole_log(self) -> None:
        self._whole_log = False
        self._close_log()
        self.view.set_span(None)
        self._set_window_box(self._window_s)

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def _log_series(self, line: _Line) -> LogSeries | None:
        interest = line.interest
        if self._log is None or interest is None:
            return None
        return self._log.series(interest.key, interest.path)

    def _show_log_status(self, line: _Line, series: LogSeries | None) -> None:
        path = line.wanted.path
        if series is None:
            status = NO_ROBOT_CHOSEN if line.interest is None else "waiting for the log"
            is_error = False
        elif series.buffer.error:
            status, is_error = series.buffer.error.removeprefix(f"{path}: "), True
        elif not series.done:
            status, is_error = f"reading the log… {series.progress:.0%}", False
        elif not len(series.buffer):
            status, is_error = f"no numeric value at {path} in the log", True
        else:
            status, is_error = "", False
        self.view.set_status(line.series_id, status, is_error)

    # -- helpers ---------------------------------------------------------------------------
    def _on_picker_topic(self, key: str, type_name: str = "") -> None:
        stats = self._topics.get(key)
        type_name = type_name or (stats.type_name if stats is not None else "")
        paths = plot_paths(type_name, key) if type_name else []
        self.path_box.set_choices(paths, paths[0] if paths else "")

    def _add_from_picker(self) -> None:
        key, path = self.topic_box.currentText().strip(), self.path_box.currentText().strip()
        if not key or not path:
            self.host.show_message("Plot: choose a topic and a field path")
            return
        if not self.add_series(key, path):
            self.host.show_message(f"Plot: {key}:{path} is plotted already")
            return
        self.picker.hide()

    def _on_view_paused(self, paused: bool) -> None:
        if self.pause_button.isChecked() != paused:
            self.pause_button.setChecked(paused)
        self.pause_button.setText("Follow" if paused else "Pause")

    def _set_window_box(self, seconds: float | str) -> None:
        index = self.window_box.findData(seconds)
        if index < 0:  # a saved window that is not one of ours (kept as it was)
            self.window_box.addItem(f"{seconds:g} s", seconds)
            index = self.window_box.count() - 1
        if index != self.window_box.currentIndex():
            self.window_box.blockSignals(True)
            self.window_box.setCurrentIndex(index)
            self.window_box.blockSignals(False)

    def _fill_series_menu(self) -> None:
        menu = self.series_button.menu()
        menu.clear()
        for key, path in self.series():
            def remove(k: str = key, p: str = path) -> None:
                self.remove_series(k, p)

            action = menu.addAction(f"Remove {key}:{path}", remove)
            action.setToolTip(self.view.status(f"{key}:{path}")[0])
        if self._lines:
            menu.addSeparator()
            menu.addAction("Remove all", self.clear_series)
        else:
            menu.addAction("No series").setEnabled(False)

    def _show_status(self, line: _Line, buffer: SeriesBuffer | None,
                     batch: FrameBatch) -> None:
        path, key = line.wanted.path, line.robot_key.key
        stats = self._topics.get(key) if key else None
        count = stats.count if stats is not None else 0
        if buffer is not None and buffer.error:
            status, is_error = buffer.error.removeprefix(f"{path}: "), True
        elif buffer is not None and len(buffer):
            status, is_error = "", False
        elif line.count_at_start is not None and count - line.count_at_start >= EMPTY_AFTER:
            status, is_error = f"no numeric value at {path}", True
        else:
            absence = line.robot_key.absence(batch, self.host.station.root)
            status, is_error = absence or "waiting for data", False
        self.view.set_status(line.series_id, status, is_error)

    def _drop_points(self, line: _Line) -> None:
        """The line follows another robot now: the last one's points go."""
        line.buffer, line.version, line.count_at_start = None, -1, None
        import numpy as np  # not at start-up: the window paints before numpy loads

        self.view.set_data(line.series_id, np.empty(0), np.empty(0))

    def _show_title(self) -> None:
        """Names the plot by its series; the window shows it on the panel's dock tab."""
        self.setWindowTitle(plot_title([path for _, path in self.series()]))
