"""The plot view with plain arrays: long series stay cheap, bad points never reach pyqtgraph,
the window follows, pauses and zooms."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from app.station.series import SeriesBuffer
from widgets.plot_view import PlotView, bin_peaks

NOW = 1_800_000_000.0  # unix seconds


@pytest.fixture
def view(qtbot) -> PlotView:
    widget = PlotView()
    qtbot.addWidget(widget)
    widget.resize(500, 300)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def wave(n: int, end: float = NOW, span: float = 50.0) -> tuple[np.ndarray, np.ndarray]:
    t = np.linspace(end - span, end, n)
    return t, np.sin(t)


def count_set_data(view: PlotView, series_id: str) -> list[int]:
    """Wraps the series' setData; the list grows by one per call."""
    item = view.data_item(series_id)
    calls: list[int] = []
    original = item.setData

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    item.setData = counted
    return calls


def test_ten_thousand_points_are_downsampled_and_clipped(view: PlotView, qtbot) -> None:
    view.add_series("a", "rover:speed")
    item = view.data_item("a")
    view.set_window(10)
    view.advance(NOW)
    t, y = wave(10_000)  # 50 s of data, 10 s shown
    y[-1000] = 50.0  # a spike in the visible part
    view.set_data("a", t, y)
    qtbot.wait(50)
    x, shown = item.getData()
    assert x[0] >= NOW - 20.5  # only the window and one window of margin are drawn ...
    assert 50.0 in shown  # ... and downsampling keeps the spike
    view.set_data("a", *wave(10_000, span=10.0))  # all of it visible: downsampled
    qtbot.wait(50)
    x, _ = item.getData()
    assert 0 < len(x) < 10_000
    view.set_data("a", t, y)
    view.set_paused(True)
    view.view_box.setXRange(NOW - 40, NOW - 38, padding=0)  # zooming far back re-renders
    x, _ = item.getData()
    assert x.min() < NOW - 38 and x.max() > NOW - 40


def test_each_update_is_one_set_data_and_following_pushes_none(view: PlotView) -> None:
    view.add_series("a", "a")
    view.advance(NOW)
    calls = count_set_data(view, "a")
    for step in range(5):
        view.set_data("a", *wave(10_000, end=NOW + step))
    assert len(calls) == 5
    for step in range(30):  # a second of frames that only move the window
        view.advance(NOW + 5 + step / 30)
    assert len(calls) == 5


def test_non_finite_and_unordered_points_never_reach_pyqtgraph(view: PlotView) -> None:
    view.add_series("a", "a")
    t = np.array([NOW - 3, NOW - 1, np.nan, NOW - 2, NOW, NOW + 1])
    y = np.array([1.0, 3.0, 5.0, np.inf, -np.inf, np.nan])
    y[3] = 2.0  # (NOW - 2, 2.0) is fine, only out of order
    view.set_data("a", t, y)
    item = view.data_item("a")
    assert list(item.xData) == [NOW - 3, NOW - 2, NOW - 1]
    assert list(item.yData) == [1.0, 2.0, 3.0]
    view.set_data("a", np.array([np.nan]), np.array([np.nan]))
    assert item.xData is None  # (how pyqtgraph keeps an empty series)


def test_the_window_follows_now_until_paused(view: PlotView) -> None:
    view.add_series("a", "a")
    view.set_window(30)
    view.advance(NOW)
    assert view.visible_range() == pytest.approx((NOW - 30, NOW), abs=1e-3)
    view.advance(NOW + 5)
    assert view.visible_range() == pytest.approx((NOW - 25, NOW + 5), abs=1e-3)
    view.set_paused(True)
    view.set_data("a", *wave(100, end=NOW + 10))  # data keeps arriving while paused
    view.advance(NOW + 10)
    assert view.visible_range() == pytest.approx((NOW - 25, NOW + 5), abs=1e-3)
    assert len(view.data_item("a").xData) == 100
    view.set_window(10)  # a paused window keeps its right edge
    assert view.visible_range() == pytest.approx((NOW - 5, NOW + 5), abs=1e-3)
    view.set_paused(False)  # follow again, at the newest time seen
    assert view.visible_range() == pytest.approx((NOW, NOW + 10), abs=1e-3)


def test_paused_from_the_start_shows_the_newest_window(view: PlotView) -> None:
    view.set_window(10)
    view.set_paused(True)  # as a saved layout with "paused": true opens
    low, high = view.visible_range()
    assert high - low == pytest.approx(10) and abs(high - time.time()) < 1


def test_a_mouse_zoom_pauses_following(view: PlotView, qtbot) -> None:
    view.add_series("a", "a")
    view.set_data("a", *wave(1_000))
    view.advance(NOW)
    seen: list[bool] = []
    view.pausedChanged.connect(seen.append)
    viewport = view.plot.viewport()
    centre = QPointF(viewport.width() / 2, viewport.height() / 2)
    wheel = QWheelEvent(centre, QPointF(viewport.mapToGlobal(centre.toPoint())), QPoint(0, 0),
                        QPoint(0, 120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(viewport, wheel)
    assert view.paused and seen == [True]
    low, high = view.visible_range()
    assert high - low < 60  # zoomed in
    view.advance(NOW + 20)
    assert view.visible_range() == (low, high)


def test_legend_names_series_in_distinct_colours_and_shows_errors(view: PlotView) -> None:
    colours = [view.add_series(str(n), f"robot/{n}:value") for n in range(4)]
    assert len(set(colours)) == 4
    assert view.legend.isVisible()
    assert "robot/2:value" in view.legend_text("2")
    view.set_status("2", "value: no field 'value'", is_error=True)
    assert "no field 'value'" in view.legend_text("2")
    assert view.status("2") == ("value: no field 'value'", True)
    view.set_status("2", "")
    assert view.legend_text("2") == "robot/2:value"
    for n in range(4):
        view.remove_series(str(n))
    assert view.series_ids() == [] and not view.legend.isVisible()


def test_time_axis_reads_relative_or_wall_clock(view: PlotView) -> None:
    view.set_window(600)
    view.advance(NOW)
    axis = view.axis
    (major, majors), (minor, minors) = axis.tickValues(NOW - 600, NOW, 500)
    assert major in (60, 120, 300) and minor < major and len(minors) > len(majors)
    labels = axis.tickStrings(majors, 1.0, major)
    assert labels[-1] == "now" and labels[0] == "-10:00"  # minutes:seconds before now
    (major, majors), _ = axis.tickValues(NOW - 10, NOW, 500)
    assert axis.tickStrings(majors, 1.0, major)[:2] == ["-10 s", "-8 s"]

    view.set_wall_clock(True)
    (major, majors), _ = axis.tickValues(NOW - 10, NOW, 500)
    assert major == 2 and all(round(t) % 2 == 0 for t in majors)  # on round local seconds
    assert axis.tickStrings(majors, 1.0, major)[-1] == time.strftime(
        "%H:%M:%S", time.localtime(majors[-1]))
    (major, majors), _ = axis.tickValues(NOW - 600, NOW, 500)
    assert axis.tickStrings(majors, 1.0, major)[-1] == time.strftime(
        "%H:%M", time.localtime(majors[-1]))
    assert axis.tickStrings([NOW + 0.2999999], 1.0, 0.1) == [
        time.strftime("%H:%M:%S", time.localtime(NOW)) + ".300"]


def axis_pixels(view: PlotView):
    """The time axis as shown on screen (its labels and ticks)."""
    rect = view.plot.mapFromScene(view.axis.sceneBoundingRect()).boundingRect()
    return view.plot.grab(rect).toImage()


def test_a_following_window_keeps_its_time_axis_drawn_and_right(view: PlotView,
                                                                monkeypatch) -> None:
    layouts: list[int] = []
    original = view.axis.generateDrawSpecs

    def counted(painter):
        layouts.append(1)
        return original(painter)

    monkeypatch.setattr(view.axis, "generateDrawSpecs", counted)
    view.set_window(10)
    view.advance(NOW)
    first = axis_pixels(view)
    assert len(layouts) == 1
    # A second of frames following now: in relative time the axis looks the same, so it is
    # not laid out again (measuring every label took 2-4 ms a move).
    for step in range(1, 31):
        view.advance(NOW + step / 30)
        assert axis_pixels(view) == first
    assert len(layouts) == 1
    (major, majors), _ = view.axis.tickValues(*view.visible_range(), 500)
    assert view.axis.tickStrings(majors, 1.0, major)[-1] == "now"

    view.set_window(20)  # a new span: laid out again, with its own labels
    assert axis_pixels(view) != first and len(layouts) == 2
    view.set_wall_clock(True)  # wall-clock labels move with the window
    on_the_clock = axis_pixels(view)
    view.advance(NOW + 1.5)
    assert axis_pixels(view) != on_the_clock and len(layouts) == 4


class CountingSource:
    """A SeriesBuffer that counts the points each read copies out of it."""

    def __init__(self, t: np.ndarray, y: np.ndarray) -> None:
        self.buffer = SeriesBuffer()
        self.buffer.extend(t, y)
        self.read: list[int] = []

    def window(self, low: float, high: float):
        got = self.buffer.window(low, high)
        self.read.append(len(got[0]))
        return got

    def since(self, cursor, high: float):
        got = self.buffer.since(cursor, high)
        self.read.append(-1 if got is None else len(got[0]))
        return got


def test_a_long_history_is_read_by_window_and_then_only_what_is_new(view: PlotView) -> None:
    t = np.linspace(NOW - 10_000, NOW, 1_000_001)  # 1M points at 100 Hz: 2.8 hours
    y = np.sin(t)
    y[-300] = 50.0  # a spike in view
    source = CountingSource(t, y)
    view.add_series("a", "a")
    view.set_window(10)
    view.advance(NOW)
    calls = count_set_data(view, "a")
    view.set_source("a", source)
    item = view.data_item("a")
    bins = 3 * max(int(view.view_box.width()), 200)
    assert source.read == [pytest.approx(2_000, abs=10)]  # 10 s and 10 s of margin
    assert len(item.xData) <= 2 * bins and 50.0 in item.yData
    for step in range(1, 31):  # a second of frames, 3 or 4 new points each
        new = NOW + np.arange(step * 10 - 9, step * 10 + 1) / 300
        source.buffer.extend(new, np.cos(new))
        view.advance(new[-1])
        view.refresh("a")
        assert item.xData[-1] == new[-1]  # the right edge moves with the data
    assert len(calls) == 31 and source.read[1:] == [10] * 30
    assert len(item.xData) <= 2 * bins and 50.0 in item.yData
    line = view._lines["a"]  # read afresh, the same bins: the points folded in bit by bit
    t, y, _ = source.buffer.window(line.low, line.high)
    fresh_t, fresh_y, _ = bin_peaks(t, y, line.low, line.width, line.bins)
    assert np.array_equal(item.xData, fresh_t) and np.array_equal(item.yData, fresh_y)


def test_a_late_point_or_a_moved_view_reads_the_window_again(view: PlotView) -> None:
    source = CountingSource(*wave(5_000, span=50.0))
    view.add_series("a", "a")
    view.set_window(10)
    view.advance(NOW)
    view.set_source("a", source)
    source.buffer.append(NOW - 5.0001, 99.0)  # late: lands inside what is drawn
    view.refresh("a")
    assert source.read[-2:] == [-1, pytest.approx(2_000, abs=10)] and \
        99.0 in view.data_item("a").yData
    view.set_paused(True)
    view.view_box.setXRange(NOW - 45, NOW - 44, padding=0)
    assert source.read[-1] == pytest.approx(300, abs=10)
    x = view.data_item("a").xData
    assert x.min() < NOW - 45 and x.max() > NOW - 44
    source.buffer.append(NOW + 1, 0.0)  # past the drawn range: nothing new to draw
    calls = count_set_data(view, "a")
    view.refresh("a")
    assert calls == [] and source.read[-1] == 0


def test_binning_bit_by_bit_gives_the_bins_of_binning_at_once() -> None:
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(-5, 105, 5_000))
    y = rng.integers(0, 5, 5_000).astype(float)  # many ties for the lowest and highest
    y[2_000] = 99.0
    whole_t, whole_y, _ = bin_peaks(t, y, 0.0, 0.1, 1_000)
    assert len(whole_t) < 4 * 1_000 + 8 and 99.0 in whole_y and whole_t[-1] == t[-1]
    done_t, done_y, open_t, open_y = [], [], np.empty(0), np.empty(0)
    start = 0
    while start < len(t):
        step = int(rng.integers(1, 20))
        td, yd, split = bin_peaks(np.concatenate([open_t, t[start:start + step]]),
                                  np.concatenate([open_y, y[start:start + step]]),
                                  0.0, 0.1, 1_000)
        done_t.append(td[:split])
        done_y.append(yd[:split])
        open_t, open_y = td[split:], yd[split:]
        start += step
    assert np.array_equal(np.concatenate([*done_t, open_t]), whole_t)
    assert np.array_equal(np.concatenate([*done_y, open_y]), whole_y)
