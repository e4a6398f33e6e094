"""The plot view with plain arrays: long series stay cheap, bad points never reach pyqtgraph,
the window follows, pauses and zooms."""

from __future__ import annotations

import time

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication

from widgets.plot_view import PlotView

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
