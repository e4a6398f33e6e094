"""The plot's Whole log window: offered only while a log plays, it shows every point of
the log from its first sample to its last, read off the GUI thread."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.logbook.log_series import LogSeriesLoader
from app.qt.main_window import MainWindow
from panels.plot import PlotPanel
from tests.record.test_log_series import (
    BATTERY,
    MOTION,
    MOTION_HZ,
    PERCENT,
    SECONDS,
    SPEED,
    speed_at,
    write_rover_log,
)

TIMEOUT_MS = 10_000


def open_plot(window: MainWindow, *series: tuple[str, str]) -> PlotPanel:
    panel = window.open_panel("plot", {"series": [{"key": k, "path": p} for k, p in series]})
    assert isinstance(panel, PlotPanel)
    return panel


def windows_offered(panel: PlotPanel) -> list[str]:
    return [panel.window_box.itemText(i) for i in range(panel.window_box.count())]


def curve(panel: PlotPanel, key: str, path: str) -> tuple[np.ndarray, np.ndarray]:
    item = panel.view.data_item(f"{key}:{path}")
    if item.xData is None:
        return np.empty(0), np.empty(0)
    return item.xData, item.yData


def play(window: MainWindow, path: Path, qtbot: Any) -> None:
    window.playback.open_log(path)
    qtbot.waitUntil(lambda: window.station.player is not None
                    and window.station.player.reader.path == path, timeout=TIMEOUT_MS)


def test_live_the_whole_log_is_not_offered(make_main_window: Callable[..., MainWindow],
                                           qtbot: Any) -> None:
    window = make_main_window(show=True)
    panel = open_plot(window, (MOTION, SPEED))
    window.tick()
    assert "Whole log" not in windows_offered(panel) and windows_offered(panel)
    assert not panel.show_whole_log() and not panel.whole_log
    assert panel.view.span is None


def test_in_playback_the_whole_log_shows_every_point_from_first_to_last(
        make_main_window: Callable[..., MainWindow], qtbot: Any, tmp_path: Path) -> None:
    first_log = write_rover_log(tmp_path / "first.mcap")
    second_log = write_rover_log(tmp_path / "second.mcap", seconds=10, offset_s=3600)
    window = make_main_window(show=True)
    panel = open_plot(window, (MOTION, SPEED))
    play(window, first_log, qtbot)
    qtbot.waitUntil(lambda: "Whole log" in windows_offered(panel), timeout=TIMEOUT_MS)
    assert panel.view.span is None  # offered, not chosen: the window follows the log clock

    panel.window_box.setCurrentIndex(panel.window_box.findText("Whole log"))
    assert panel.whole_log
    reader = window.station.player.reader
    count = SECONDS * MOTION_HZ
    qtbot.waitUntil(lambda: len(curve(panel, MOTION, SPEED)[0]) == count, timeout=TIMEOUT_MS)
    t, y = curve(panel, MOTION, SPEED)
    # The message stamps: 5 ms before receipt; the first and the last sample of the log.
    assert t[0] == pytest.approx(reader.start_ns / 1e9 - 0.005, abs=1e-4)
    assert t[-1] == pytest.approx(reader.end_ns / 1e9 - 0.005, abs=1e-4)
    assert np.allclose(y, [speed_at(i) for i in range(count)])
    low, high = panel.view.visible_range()
    assert (low, high) == pytest.approx((reader.start_ns / 1e9, reader.end_ns / 1e9))
    assert panel.view.now_line.isVisible()
    assert panel.view.now_line.value() == pytest.approx(window.station.now(), abs=0.1)
    qtbot.waitUntil(lambda: panel.view.status(f"{MOTION}:{SPEED}") == ("", False),
                    timeout=TIMEOUT_MS)

    # The log plays: the view stays on the whole log, the line follows the log clock.
    window.station.player.seek_fraction(0.5)
    qtbot.waitUntil(lambda: abs(panel.view.now_line.value()
                                - (reader.start_ns + reader.end_ns) / 2e9) < 0.5,
                    timeout=TIMEOUT_MS)
    assert panel.view.visible_range() == pytest.approx((low, high))

    # A series added meanwhile is read from the log as well.
    assert panel.add_series(BATTERY, PERCENT)
    qtbot.waitUntil(lambda: len(curve(panel, BATTERY, PERCENT)[0]) == SECONDS,
                    timeout=TIMEOUT_MS)
    assert curve(panel, BATTERY, PERCENT)[1][-1] == 100.0 - (SECONDS - 1)

    # Another log: the first one's reading is cancelled, the new one read instead.
    loader = panel._log
    assert isinstance(loader, LogSeriesLoader)
    play(window, second_log, qtbot)
    qtbot.waitUntil(lambda: len(curve(panel, MOTION, SPEED)[0]) == 10 * MOTION_HZ,
                    timeout=TIMEOUT_MS)
    loader.join(2)
    assert not loader._thread.is_alive()
    second = window.station.player.reader
    assert panel.view.visible_range() == pytest.approx((second.start_ns / 1e9,
                                                        second.end_ns / 1e9))
    assert curve(panel, MOTION, SPEED)[0][0] > reader.end_ns / 1e9 + 3000

    # Live again: no whole log, the window chosen before comes back.
    window.playback.back_to_live()
    qtbot.waitUntil(lambda: "Whole log" not in windows_offered(panel), timeout=TIMEOUT_MS)
    assert not panel.whole_log and panel.view.span is None
    assert panel.window_box.currentText() == "1 min"
    assert not panel.view.now_line.isVisible()
    assert panel.save_state()["window_s"] == 60


def test_closing_the_panel_stops_reading_the_log(make_main_window: Callable[..., MainWindow],
                                                 qtbot: Any, tmp_path: Path) -> None:
    window = make_main_window(show=True)
    panel = open_plot(window, (MOTION, SPEED))
    play(window, write_rover_log(tmp_path / "rover.mcap"), qtbot)
    qtbot.waitUntil(lambda: panel.show_whole_log() and panel._log is not None,
                    timeout=TIMEOUT_MS)
    loader = panel._log
    assert isinstance(loader, LogSeriesLoader)
    window.close_all_panels()
    loader.join(2)
    assert not loader._thread.is_alive() and panel._log is None
