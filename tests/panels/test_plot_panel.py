"""The plot panel on the real simulated fleet over real zenoh."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QApplication, QInputDialog

from app.station.feeds import Series
from app.station.frame import FrameBatch
from app.station.robots import StationStatus
from app.station.series import SeriesBuffer
from panels.plot import PlotPanel
from tests.panels.health import LiveStation

MOTION = "fleet/rover-1/uplink/motion"
BATTERY = "fleet/rover-1/uplink/battery"
SPEED = "motion.velocity.linearMps"
TIMEOUT_MS = 10_000
LEFT = Qt.MouseButton.LeftButton


def open_plot(window: Any, *series: tuple[str, str], **options: Any) -> PlotPanel:
    state = {"series": [{"key": k, "path": p} for k, p in series], "window_s": 60,
             "paused": False, **options}
    panel = window.open_panel("plot", state)
    assert isinstance(panel, PlotPanel)
    return panel


def points(panel: PlotPanel, key: str, path: str) -> int:
    x = panel.view.data_item(f"{key}:{path}").xData
    return 0 if x is None else len(x)


def test_a_series_grows_and_is_pushed_only_when_it_changed(make_main_window, fleet,
                                                           qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_plot(window, (MOTION, SPEED), (BATTERY, "battery.percentage"))
    qtbot.waitUntil(lambda: points(panel, MOTION, SPEED) >= 5, timeout=TIMEOUT_MS)
    first = points(panel, MOTION, SPEED)
    qtbot.waitUntil(lambda: points(panel, MOTION, SPEED) >= first + 5, timeout=TIMEOUT_MS)
    qtbot.waitUntil(lambda: points(panel, BATTERY, "battery.percentage") >= 2,
                    timeout=TIMEOUT_MS)
    battery = panel.view.data_item(f"{BATTERY}:battery.percentage")
    assert 0 < battery.yData[-1] <= 100
    assert panel.view.legend_text(f"{MOTION}:{SPEED}") == f"rover-1/uplink/motion · {SPEED}"

    calls: list[int] = []
    original = battery.setData
    battery.setData = lambda *a, **k: (calls.append(1), original(*a, **k))
    before, ticks = points(panel, BATTERY, "battery.percentage"), 0
    window.clock.stop()
    start = time.monotonic()
    while ticks <= 40 or time.monotonic() < start + 2.5:  # (a loaded machine ticks slower)
        window.tick()
        ticks += 1
        qtbot.wait(30)
    added = points(panel, BATTERY, "battery.percentage") - before  # the battery is 1 Hz
    assert 1 <= added <= time.monotonic() - start + 2 and len(calls) <= added + 1


def test_window_pause_zoom_and_follow(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_plot(window, (MOTION, SPEED))
    qtbot.waitUntil(lambda: points(panel, MOTION, SPEED) >= 3, timeout=TIMEOUT_MS)
    assert panel.window_box.currentText() == "1 min"
    panel.window_box.setCurrentIndex(panel.window_box.findText("10 s"))
    qtbot.wait(100)
    low, high = panel.view.visible_range()
    assert high - low == pytest.approx(10, abs=0.01) and abs(high - time.time()) < 0.5
    assert panel.save_state()["window_s"] == 10

    qtbot.mouseClick(panel.pause_button, LEFT)
    assert panel.pause_button.text() == "Follow"
    paused_at, count = panel.view.visible_range(), points(panel, MOTION, SPEED)
    qtbot.wait(800)
    assert panel.view.visible_range() == paused_at  # stays put ...
    assert points(panel, MOTION, SPEED) > count  # ... while data keeps arriving
    qtbot.mouseClick(panel.pause_button, LEFT)
    qtbot.wait(100)
    assert panel.view.visible_range()[1] > paused_at[1] + 0.5  # following again

    viewport = panel.view.plot.viewport()
    centre = QPointF(viewport.width() / 2, viewport.height() / 2)
    QApplication.sendEvent(viewport, QWheelEvent(
        centre, QPointF(viewport.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, 240),
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase,
        False))
    assert panel.pause_button.isChecked() and panel.pause_button.text() == "Follow"
    zoomed = panel.view.visible_range()
    assert zoomed[1] - zoomed[0] < 10
    qtbot.wait(300)
    assert panel.view.visible_range() == zoomed
    assert panel.save_state()["paused"] is True


def test_bad_paths_show_their_error_in_the_legend(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_plot(window, (MOTION, "motion.nope"), (MOTION, "battery.percentage"),
                      (MOTION, "motion.pose"), (MOTION, "motion..x"))
    qtbot.waitUntil(lambda: all(panel.view.status(f"{MOTION}:{p}")[1] for p in (
        "motion.nope", "battery.percentage", "motion.pose", "motion..x")), timeout=TIMEOUT_MS)
    assert "no field 'nope'" in panel.view.legend_text(f"{MOTION}:motion.nope")
    assert "not a field path" in panel.view.legend_text(f"{MOTION}:motion..x")
    # another union member than the one on this key, and a struct: no numbers to plot
    assert "no numeric value" in panel.view.legend_text(f"{MOTION}:battery.percentage")
    assert "no numeric value" in panel.view.legend_text(f"{MOTION}:motion.pose")


def test_state_round_trips_exactly(make_main_window, qtbot) -> None:
    window = make_main_window()
    for state in (
        {"series": [{"key": MOTION, "path": SPEED}], "window_s": 60, "paused": False},
        {"series": [{"key": MOTION, "path": SPEED}, {"key": BATTERY,
                                                     "path": "battery.percentage"}],
         "window_s": 600, "paused": True},
        {"series": [], "window_s": 45, "paused": False, "time_axis": "wall"},
    ):
        panel = window.open_panel("plot", state)
        assert panel.save_state() == state
    panel.restore_state({"series": "nope", "window_s": 1e9})  # kept: the window it had
    assert panel.save_state() == {"series": [], "window_s": 45, "paused": False}
    message = window.statusBar().currentMessage()
    assert "Plot: ignored" in message and "series" in message and "window_s" in message


def test_a_dropped_topic_opens_the_field_picker(make_main_window, fleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_plot(window)
    assert not panel.hint.isHidden() and panel.interests() == set()
    qtbot.waitUntil(lambda: {MOTION, BATTERY} <= set(window.station.topics()), timeout=TIMEOUT_MS)
    qtbot.wait(600)  # the panel's topic list refreshes twice a second
    assert panel.accept_topic(MOTION, "fleet.Uplink")
    assert panel.picker.isVisible()
    assert panel.topic_box.currentText() == MOTION
    assert panel.topic_box.findText(BATTERY) >= 0  # every topic can be picked
    paths = [panel.path_box.itemText(i) for i in range(panel.path_box.count())]
    assert paths[0].startswith("motion.") and SPEED in paths  # this key's member first
    panel.path_box.setEditText(SPEED)
    qtbot.keyClick(panel.path_box.lineEdit(), Qt.Key.Key_Return)
    assert panel.series() == [(MOTION, SPEED)] and not panel.picker.isVisible()
    assert panel.hint.isHidden()
    qtbot.waitUntil(lambda: points(panel, MOTION, SPEED) >= 3, timeout=TIMEOUT_MS)


class _Host:
    station = LiveStation()

    def open_panel(self, *args: object, **kwargs: object) -> None: ...

    def set_active_robot(self, robot_id: str | None) -> None: ...

    def show_message(self, text: str) -> None: ...


def test_a_tick_reads_only_the_window_and_the_new_points_of_a_long_history(qtbot) -> None:
    panel = PlotPanel(_Host())  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.restore_state({"series": [{"key": MOTION, "path": SPEED}], "window_s": 10,
                         "paused": False})
    panel.resize(800, 400)
    panel.show()
    qtbot.waitExposed(panel)
    now = time.time()
    buffer = SeriesBuffer()
    t = np.linspace(now - 10_000, now, 1_000_000)  # 1M points at 100 Hz: 2.8 hours
    buffer.extend(t, np.sin(t))
    read: list[int] = []
    window, since = buffer.window, buffer.since

    def counted(method):
        def call(*args):
            got = method(*args)
            read.append(0 if got is None else len(got[0]))
            return got
        return call

    buffer.window, buffer.since = counted(window), counted(since)  # type: ignore[method-assign]
    buffer.arrays = lambda: pytest.fail("the whole history was copied")  # type: ignore
    item = panel.view.data_item(f"{MOTION}:{SPEED}")
    pushed: list[int] = []
    original = item.setData
    item.setData = lambda x, y: (pushed.append(len(x)), original(x, y))
    batch = FrameBatch(time.monotonic(), StationStatus(), series={Series(MOTION, SPEED): buffer})
    for _ in range(15):
        new = time.time() + np.array([-0.02, -0.01, 0.0])
        buffer.extend(new, np.cos(new))
        panel.on_frame(batch)
        assert item.xData[-1] == new[-1]  # the curve's right edge is the newest point
        qtbot.wait(30)
    assert read and max(read) <= 2 * 10 * 100 + 200  # the window and its margin, at most
    assert sum(read[2:]) <= 15 * 3 + 10  # then only the new points
    bins = 3 * max(int(panel.view.view_box.width()), 200)
    assert pushed and max(pushed) <= 4 * bins


ACTIVE_MOTION = "fleet/{robot}/uplink/motion"


def test_a_series_naming_the_active_robot_follows_it(make_main_window, two_rovers,
                                                     qtbot) -> None:
    window = make_main_window(show=True)
    panel = open_plot(window, (ACTIVE_MOTION, SPEED))
    window.set_active_robot("rover-1")
    qtbot.waitUntil(lambda: points(panel, ACTIVE_MOTION, SPEED) >= 5, timeout=TIMEOUT_MS)
    assert panel.interests() == {Series("fleet/rover-1/uplink/motion", SPEED)}

    window.set_active_robot("rover-2")
    switched_at = time.time()
    qtbot.waitUntil(lambda: panel.interests() == {Series("fleet/rover-2/uplink/motion",
                                                         SPEED)})
    qtbot.waitUntil(lambda: points(panel, ACTIVE_MOTION, SPEED) >= 5, timeout=TIMEOUT_MS)
    first = panel.view.data_item(f"{ACTIVE_MOTION}:{SPEED}").xData[0]
    assert first > switched_at - 1.0  # rover-1's points were dropped
    assert panel.save_state()["series"] == [{"key": ACTIVE_MOTION, "path": SPEED}]


def test_with_no_robot_chosen_a_following_series_says_so(qtbot) -> None:
    panel = PlotPanel(_Host())  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.restore_state({"series": [{"key": ACTIVE_MOTION, "path": SPEED}]})
    panel.on_frame(FrameBatch(time.monotonic(), StationStatus(session="online")))
    assert panel.view.status(f"{ACTIVE_MOTION}:{SPEED}") == ("no robot chosen", False)
    assert panel.interests() == set()


def test_a_series_of_a_robot_not_online_says_so_instead_of_waiting(make_main_window,
                                                                   two_rovers, qtbot) -> None:
    window = make_main_window(show=True)
    absent = "fleet/rover-9/uplink/motion"
    panel = open_plot(window, (absent, SPEED))
    qtbot.waitUntil(lambda: panel.view.status(f"{absent}:{SPEED}")[0] ==
                    "no robot rover-9 online", timeout=TIMEOUT_MS)


def test_the_title_names_what_is_plotted(qtbot) -> None:
    panel = PlotPanel(_Host())  # type: ignore[arg-type]
    qtbot.addWidget(panel)
    panel.add_series(ACTIVE_MOTION, SPEED)
    assert panel.windowTitle() == "Plot: velocity.linearMps"
    panel.add_series(BATTERY, "battery.percentage")
    assert panel.windowTitle() == "Plot: velocity.linearMps +1"
    panel.remove_series(ACTIVE_MOTION, SPEED)
    assert panel.windowTitle() == "Plot: battery.percentage"


def test_plot_field_adds_to_the_plot_on_screen(make_main_window, two_rovers, qtbot,
                                               monkeypatch) -> None:
    window = make_main_window(show=True)
    plot = open_plot(window, (ACTIVE_MOTION, SPEED))
    topics = window.open_panel("topics", area="left")
    qtbot.waitUntil(lambda: not plot.visibleRegion().isEmpty())
    qtbot.waitUntil(lambda: topics.model.types.get(BATTERY) == "fleet.Uplink",
                    timeout=TIMEOUT_MS)
    monkeypatch.setattr(QInputDialog, "getItem",
                        lambda *a, **k: ("battery.percentage", True))
    topics.plot_field(BATTERY)
    assert plot.series() == [(ACTIVE_MOTION, SPEED), (BATTERY, "battery.percentage")]
    assert [p.panel_id for p in window.panels().values()].count("plot") == 1
