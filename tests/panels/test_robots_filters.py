"""The robots panel's search, state filter and groups: on robots fed by hand, and on the real
simulated fleet over real zenoh."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt
from PySide6.QtWidgets import QApplication, QTreeView, QWidget

from app.sim.fleet import SimFleet
from panels.robot_rows import AGE, BATTERY, FAULTS, LIVE_AGE, ROBOT, STATUS, RobotRows
from panels.robots import HOLD_DRAWING_S, RobotsPanel
from tests.panels.health import LiveStation, PlainHost
from tests.panels.robot_infos import batch, depot, drained, fault, robot, vitals
from tests.panels.tables import cell, index_of, rows
from widgets.grouped_rows import GROUP_ROLE
from widgets.status_light import ALARM, WARNING
from widgets.table import KEY_ROLE

NOW = 1000.0


class Station(LiveStation):
    root = "fleet"


class Host(PlainHost):
    """A panel's host that remembers which robot the panel made active."""

    station = Station()

    def __init__(self, config_dir: Path) -> None:
        super().__init__(config_dir)
        self.active: list[str | None] = []

    def set_active_robot(self, robot_id: str | None) -> None:
        self.active.append(robot_id)


@pytest.fixture
def panel(qtbot, tmp_path: Path) -> RobotsPanel:
    panel = RobotsPanel(Host(tmp_path))
    qtbot.addWidget(panel)
    panel.resize(1200, 700)
    panel.show()
    return panel


def groups(view: QTreeView) -> list[tuple[str, list[str]]]:
    """Each group row's text and the keys of the rows under it, in display order."""
    model = view.model()
    shown = []
    for g in range(model.rowCount()):
        group = model.index(g, 0)
        assert group.data(GROUP_ROLE) is not None
        shown.append((group.data(), [model.index(r, 0, group).data(KEY_ROLE)
                                     for r in range(model.rowCount(group))]))
    return shown


def selected(panel: RobotsPanel) -> list[str]:
    return [i.data(KEY_ROLE) for i in panel.view.selectionModel().selectedRows()]


MIXED = [
    robot("rover-1", NOW),  # ok
    robot("rover-2", NOW, estop=True),
    robot("rover-3", NOW, battery=22.0),  # low: warning
    robot("humanoid-1", NOW, battery=9.0),  # critical: fault
    robot("humanoid-2", NOW, online=False),
    robot("car-1", NOW, battery=None),  # faulted (below)
    robot("car-2", NOW, battery=None),  # a minor fault: warning
]
MIXED_VITALS = {"car-1": vitals("car-1", fault("MOTOR_OVERTEMP", "critical")),
                "car-2": vitals("car-2", fault("RTK_LOST", "minor"))}


def fed(panel: RobotsPanel, active: str | None = None) -> RobotsPanel:
    panel.on_frame(batch(NOW, MIXED, MIXED_VITALS, active))
    return panel


def test_search_narrows_rows_by_id_name_model_or_family(panel) -> None:
    fed(panel)
    assert panel.count.text() == "7 robots"
    panel.search.setText("ROVER")  # any case; the rover's name is "Field rover"
    assert set(rows(panel.view)) == {"rover-1", "rover-2", "rover-3"}
    assert panel.count.text() == "3 of 7 robots"
    panel.search.setText("autoware-car")  # the model
    assert set(rows(panel.view)) == {"car-1", "car-2"}
    panel.search.setText("bow")  # a family
    assert set(rows(panel.view)) == {"humanoid-1", "humanoid-2"}
    panel.search.setText("foxglove rover-2")  # every word must match
    assert set(rows(panel.view)) == {"rover-2"}
    panel.search.setText("nothing-like-it")
    assert rows(panel.view) == {} and panel.count.text() == "0 of 7 robots"
    panel.search.clear()  # what the clear button does
    assert len(rows(panel.view)) == 7 and panel.count.text() == "7 robots"


@pytest.mark.parametrize(("choice", "shown"), [
    ("Online", {"rover-1", "rover-2", "rover-3", "humanoid-1", "car-1", "car-2"}),
    ("Offline", {"humanoid-2"}),
    ("E-stop", {"rover-2"}),
    ("Fault", {"humanoid-1", "car-1"}),  # a critical battery, a critical fault
    ("Warning", {"rover-3", "car-2"}),  # a low battery, a minor fault
    ("OK", {"rover-1"}),
    ("Needs attention", {"rover-2", "humanoid-1", "car-1", "rover-3", "car-2"}),
])
def test_the_state_filter_derives_each_robots_state(panel, choice: str, shown: set) -> None:
    fed(panel)
    panel.state_filter.setCurrentText(choice)
    assert set(rows(panel.view)) == shown
    panel.search.setText("car")  # both at once
    assert set(rows(panel.view)) == shown & {"car-1", "car-2"}


def test_faults_and_states_are_shown_on_the_rows(panel) -> None:
    fed(panel)
    assert cell(panel.view, "car-1", FAULTS) == "MOTOR_OVERTEMP"
    assert "CRITICAL MOTOR_OVERTEMP" in cell(panel.view, "car-1", FAULTS,
                                             Qt.ItemDataRole.ToolTipRole)
    assert cell(panel.view, "rover-1", FAULTS) == "—"
    assert "critical or major fault" in cell(panel.view, "car-1", STATUS,
                                             Qt.ItemDataRole.ToolTipRole)
    assert "Battery low" in cell(panel.view, "rover-3", STATUS, Qt.ItemDataRole.ToolTipRole)
    # the status light says the state in colour too (the words are in its tooltip)
    assert panel.model.row_at(panel.model.index_of("car-1")).cells[STATUS].light == ALARM
    assert panel.model.row_at(panel.model.index_of("car-2")).cells[STATUS].light == WARNING


def test_grouping_by_state_family_and_fault_with_counts(panel) -> None:
    fed(panel)
    panel.group_by.setCurrentText("State")
    assert [label for label, _ in groups(panel.view)] == [
        "E-stop (1)", "Fault (2)", "Warning (2)", "Offline (1)", "OK (1)"]
    assert dict(groups(panel.view))["Fault (2)"] == ["humanoid-1", "car-1"]  # by name
    panel.search.setText("car")  # the counts follow the search; empty groups go
    assert groups(panel.view) == [("Fault (1 of 2)", ["car-1"]),
                                  ("Warning (1 of 2)", ["car-2"])]
    assert panel.count.text() == "2 of 7 robots"
    panel.search.clear()
    panel.group_by.setCurrentText("Family")
    assert groups(panel.view) == [
        ("autoware (2)", ["car-1", "car-2"]), ("bow (2)", ["humanoid-1", "humanoid-2"]),
        ("fleet, isaac, foxglove (3)", ["rover-1", "rover-2", "rover-3"])]
    panel.group_by.setCurrentText("Fault")
    assert groups(panel.view) == [("MOTOR_OVERTEMP (critical) (1)", ["car-1"]),
                                  ("RTK_LOST (minor) (1)", ["car-2"]),
                                  ("No active fault (5)", ["rover-1", "rover-2", "rover-3",
                                                           "humanoid-1", "humanoid-2"])]
    panel.group_by.setCurrentText("None")
    assert len(rows(panel.view)) == 7 and panel.view.model().index(0, 0).data(KEY_ROLE)


def test_rows_keep_the_chosen_sort_within_groups_and_groups_keep_their_order(panel) -> None:
    fed(panel)
    panel.group_by.setCurrentText("Family")
    panel.view.sortByColumn(BATTERY, Qt.SortOrder.DescendingOrder)
    order = [label for label, _ in groups(panel.view)]
    assert order == ["autoware (2)", "bow (2)", "fleet, isaac, foxglove (3)"]
    assert dict(groups(panel.view))["fleet, isaac, foxglove (3)"] == [
        "rover-1", "rover-2", "rover-3"]  # 80, 80, 22: ties keep the station's order
    panel.view.sortByColumn(BATTERY, Qt.SortOrder.AscendingOrder)
    assert [label for label, _ in groups(panel.view)] == order
    assert dict(groups(panel.view))["fleet, isaac, foxglove (3)"][0] == "rover-3"
    assert dict(groups(panel.view))["bow (2)"] == ["humanoid-1", "humanoid-2"]  # 9 %, 80 %
    panel.view.sortByColumn(ROBOT, Qt.SortOrder.DescendingOrder)
    assert dict(groups(panel.view))["autoware (2)"] == ["car-2", "car-1"]


def test_the_active_robot_stays_selected_through_sorts_filters_and_regrouping(panel) -> None:
    fed(panel, active="car-1")
    assert selected(panel) == ["car-1"]
    panel.view.sortByColumn(BATTERY, Qt.SortOrder.DescendingOrder)
    assert selected(panel) == ["car-1"]
    panel.search.setText("rover")  # hides it: nothing selected, still the active robot
    assert selected(panel) == [] and panel.host.active == []
    panel.search.clear()
    assert selected(panel) == ["car-1"]
    for grouping in ("State", "Fault", "Family", "None"):
        panel.group_by.setCurrentText(grouping)
        assert selected(panel) == ["car-1"], grouping
    assert panel.host.active == []  # none of this chose another robot


def test_clicking_a_robot_in_a_group_makes_it_active_and_a_group_row_does_nothing(
        panel, qtbot) -> None:
    fed(panel, active="rover-1")
    panel.group_by.setCurrentText("State")
    view = panel.view
    fault_group = view.model().index(1, 0)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.visualRect(fault_group).center())
    assert panel.host.active == [] and selected(panel) == ["rover-1"]
    car = index_of_in_groups(view, "car-1", ROBOT)
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton,
                     pos=view.visualRect(car).center())
    assert panel.host.active == ["car-1"]
    assert selected(panel) == ["car-1"]


def index_of_in_groups(view: QTreeView, key: str, column: int) -> QModelIndex:
    model = view.model()
    for g in range(model.rowCount()):
        group = model.index(g, 0)
        for r in range(model.rowCount(group)):
            if model.index(r, 0, group).data(KEY_ROLE) == key:
                return model.index(r, column, group)
    raise AssertionError(f"{key} is not shown")


def test_vitals_update_rows_in_place_and_idle_ticks_touch_nothing(panel, qtbot) -> None:
    robots, book = depot(100, NOW)
    panel.on_frame(batch(NOW, robots, book, active="rover-7"))
    panel.group_by.setCurrentText("State")
    panel.view.sortByColumn(BATTERY, Qt.SortOrder.AscendingOrder)
    qtbot.wait(50)  # the view lays its rows out
    panel.view.verticalScrollBar().setValue(40)  # rows, not pixels, in a tree
    assert panel.view.verticalScrollBar().value() == 40
    signals: list[str] = []
    model = panel.model
    for name in ("modelReset", "layoutChanged", "rowsInserted", "rowsRemoved",
                 "dataChanged"):
        getattr(model, name).connect(lambda *_, name=name: signals.append(name))

    panel.on_frame(batch(NOW + 0.02, robots, book, "rover-7", tables_changed=False))
    assert signals == []  # a frame tick between table refreshes costs nothing

    later = drained(robots, 1.0, NOW + 0.3)
    panel.on_frame(batch(NOW + 0.3, later, book, "rover-7"))
    while panel._rows.behind:  # the frames after it, as the window ticks them
        panel.on_frame(batch(NOW + 0.32, later, book, "rover-7", tables_changed=False))
    assert "modelReset" not in signals and "dataChanged" in signals
    assert next(r for r in later if r.robot_id == "rover-7").battery_pct == 64.0
    assert cell_in_groups(panel.view, "rover-7", BATTERY) == "64 %"  # was 65 %
    assert selected(panel) == ["rover-7"]
    assert panel.view.verticalScrollBar().value() == 40

    # rover-7 raises a critical fault: it moves to the Fault group (taken out and put in,
    # not a reset) and is still selected
    faulted = {**book, "rover-7": vitals("rover-7", fault("TILT_LIMIT"))}
    panel.on_frame(batch(NOW + 0.6, later, faulted, "rover-7"))
    assert "modelReset" not in signals and "rowsInserted" in signals
    fault_group = dict((label.split(" (")[0], keys) for label, keys in groups(panel.view))
    assert "rover-7" in fault_group["Fault"]
    assert selected(panel) == ["rover-7"]


def cell_in_groups(view: QTreeView, key: str, column: int) -> str:
    return index_of_in_groups(view, key, column).data()


def test_search_filter_sort_and_groups_are_saved_and_restored(make_main_window) -> None:
    window = make_main_window()
    panel = window.open_panel("robots")
    assert panel.save_state() == {"search": "", "state": "All robots", "group_by": "none",
                                  "sort_column": ROBOT, "sort_order": "ascending"}
    state = {"search": "rover", "state": "Fault", "group_by": "family",
             "sort_column": BATTERY, "sort_order": "descending"}
    again = window.open_panel("robots", state)
    assert again.save_state() == state
    assert again.search.text() == "rover" and again.state_filter.currentText() == "Fault"
    assert again.group_by.currentText() == "Family" and again.model.grouped
    again.restore_state({"search": 3, "state": "Sleepy", "group_by": ["x"],
                         "sort_column": 99, "sort_order": 3})  # from a damaged layout
    assert again.save_state() == {"search": "", "state": "All robots", "group_by": "none",
                                  "sort_column": ROBOT, "sort_order": "ascending"}


def test_filtering_and_grouping_live_robots(make_main_window, fleet: SimFleet, qtbot) -> None:
    window = make_main_window(show=True)
    panel = window.open_panel("robots", {"group_by": "family"})
    everyone = {"rover-1", "humanoid-1", "car-1"}
    qtbot.waitUntil(lambda: [label for label, _ in groups(panel.view)] == [
        "autoware (1)", "bow (1)", "fleet, isaac, foxglove (1)"], timeout=10_000)
    panel.search.setText("HUMANOID")
    assert groups(panel.view) == [("bow (1)", ["humanoid-1"])]
    panel.search.clear()
    panel.group_by.setCurrentText("None")
    panel.state_filter.setCurrentText("E-stop")
    assert rows(panel.view) == {}
    rover = next(r for r in fleet.robots if r.robot_id == "rover-1")
    rover.estop, rover.estop_reason = True, "test"
    qtbot.waitUntil(lambda: set(rows(panel.view)) == {"rover-1"}, timeout=5_000)
    assert panel.count.text() == "1 of 3 robots"

    panel.state_filter.setCurrentText("Offline")
    car = next(r for r in fleet.robots if r.robot_id == "car-1")
    started = time.monotonic()
    car.stop()  # its liveliness token goes away
    qtbot.waitUntil(lambda: set(rows(panel.view)) == {"car-1"}, timeout=5_000)
    assert time.monotonic() - started < 5.0
    panel.state_filter.setCurrentText("Online")
    assert set(rows(panel.view)) == everyone - {"car-1"}
    assert cell(panel.view, "humanoid-1", STATUS) == "online"
    assert index_of(panel.view, "car-1") is None


def test_a_tick_rewrites_only_the_robot_that_changed_and_its_place_follows(panel) -> None:
    robots, book = depot(40, NOW)
    panel.on_frame(batch(NOW, robots, book))
    panel.view.sortByColumn(BATTERY, Qt.SortOrder.AscendingOrder)
    rewritten: list[tuple[int, int]] = []
    panel.model.dataChanged.connect(
        lambda first, last, *_: rewritten.append((first.row(), last.row())))
    # the station lists its robots anew on each refresh: equal values, new objects
    again = [replace(r) for r in robots]
    panel.on_frame(batch(NOW, again, book))
    assert rewritten == []
    rover = next(n for n, r in enumerate(again) if r.robot_id.startswith("rover"))
    again[rover] = replace(again[rover], battery_pct=1.0)  # now the emptiest
    panel.on_frame(batch(NOW, again, book))
    assert len(rewritten) == 1 and rewritten[0][0] == rewritten[0][1]  # one row, once
    robot_id = again[rover].robot_id
    assert panel.model.index(rewritten[0][0], 0).data(KEY_ROLE) == robot_id
    assert cell(panel.view, robot_id, BATTERY) == "1 % CRITICAL"
    unknown = sum(r.battery_pct is None for r in again)  # those sort first, as "—"
    assert list(rows(panel.view)).index(robot_id) == unknown


def test_a_thousand_robots_changed_are_made_over_ticks_each_within_its_budget(panel) -> None:
    robots, book = depot(1000, NOW)
    panel.on_frame(batch(NOW, robots, book, "rover-7"))
    while panel._rows.behind:  # new robots are all made at once: nothing to owe yet
        panel.on_frame(batch(NOW, robots, book, "rover-7", tables_changed=False))
    assert len(rows(panel.view)) == 1000
    later = drained(robots, 5.0, NOW + 0.5)  # every battery down 5 %: every row changed
    ticks = 0
    started = time.process_time()
    panel.on_frame(batch(NOW + 0.5, later, book, "rover-7"))
    longest = time.process_time() - started
    while panel._rows.behind:
        ticks += 1
        started = time.process_time()
        panel.on_frame(batch(NOW + 0.5, later, book, "rover-7", tables_changed=False))
        longest = max(longest, time.process_time() - started)
        assert ticks < 1000
    for changed in (later[0], later[499], later[-1]):
        if changed.battery_pct is not None:
            assert cell(panel.view, changed.robot_id, BATTERY) \
                .startswith(f"{changed.battery_pct:.0f} %")
    assert longest < 0.25  # each tick a share of the work (a whole sweep took 50 ms here)
    assert selected(panel) == ["rover-7"]


class Paints(QObject):
    """Counts the paint events a widget gets."""

    def __init__(self, widget: QWidget) -> None:
        super().__init__(widget)
        self.count = 0
        widget.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def test_a_pass_over_frames_draws_the_table_once_at_its_end_or_at_least_every_quarter_second(
        panel, qtbot) -> None:
    robots, book = depot(1000, NOW)
    panel.on_frame(batch(NOW, robots, book, "rover-7"))
    qtbot.waitExposed(panel)
    paints = Paints(panel.view.viewport())
    panel.view.viewport().update()
    qtbot.waitUntil(lambda: paints.count > 0)  # the table drawn as it came
    paints.count = 0
    later = drained(robots, 5.0, NOW + 0.5)  # every battery down 5 %: every row changed
    started = time.monotonic()
    panel.on_frame(batch(NOW + 0.5, later, book, "rover-7"))
    frames = 1
    while panel._rows.behind:
        QApplication.processEvents()  # what the frames between would draw
        panel.on_frame(batch(NOW + 0.5, later, book, "rover-7", tables_changed=False))
        frames += 1
    held_s = time.monotonic() - started
    assert frames > 2, "a thousand robots changed take several frames"
    drawn_during = paints.count
    QApplication.processEvents()
    assert paints.count > drawn_during, "drawn once the pass is done"
    # (one part of the view may be drawn as its columns settle)
    assert drawn_during <= 1 + int(held_s / HOLD_DRAWING_S), \
        "not drawn after every part of the pass"
    changed = next(r for r in later[400:] if r.battery_pct is not None)
    assert cell(panel.view, changed.robot_id, BATTERY).startswith(
        f"{changed.battery_pct:.0f} %")

    # tables coming faster than a pass ends: the table is still drawn now and then
    tables = [drained(robots, 0.1 * i, NOW + 1 + i) for i in range(1, 400)]
    drawn = paints.count
    for i, robots_now in enumerate(tables):
        panel.on_frame(batch(NOW + 1 + i, robots_now, book, "rover-7"))
        QApplication.processEvents()
        assert panel._rows.behind, "each frame brings new tables before the pass ends"
        if paints.count > drawn:
            break
    else:
        pytest.fail("never drawn while passes never ended")


def test_rows_owed_after_a_deadline_come_on_the_next_calls_active_and_new_ones_at_once(
) -> None:
    rows_ = RobotRows()
    robots = [robot(f"rover-{i}", NOW) for i in range(1, 101)]
    rows_.update(robots, {}, NOW, "rover-1")
    later = drained(robots, 10.0, NOW + 1)
    tables = [*later, robot("rover-999", NOW)], {}
    rows_.update(*tables, NOW + 1, "rover-50", deadline=0.0)  # long gone
    assert rows_.behind
    made = {r.key: r for r in rows_.rows}
    assert "rover-999" in made  # new: made at once
    assert made["rover-50"].highlight and not made["rover-1"].highlight  # the active change
    stale = [r for r in later if made[r.robot_id].cells[BATTERY].text == "80 %"]
    assert 0 < len(stale) < 100  # only a first share was made again
    calls = 1
    while rows_.behind:  # the same tables again: only the rows owed are made
        rows_.update(*tables, NOW + 1, "rover-50", deadline=0.0)
        calls += 1
        assert calls <= 100
    assert calls > 1
    assert {r.cells[BATTERY].text for r in rows_.rows if r.key != "rover-999"} == {"70 %"}


def test_with_tables_coming_faster_than_a_whole_pass_every_robot_still_gets_its_turn(
) -> None:
    rows_ = RobotRows()
    robots = [robot(f"rover-{i}", NOW) for i in range(1, 101)]
    rows_.update(robots, {}, NOW, None)
    for call in range(1, 11):  # each call new tables, each cut short by its deadline
        rows_.update(drained(robots, float(call), NOW + call), {}, NOW + call, None,
                     deadline=0.0)
    assert rows_.behind
    assert all(r.cells[BATTERY].text != "80 %" for r in rows_.rows)  # none left behind


def test_data_under_a_second_old_reads_live_and_new_samples_leave_the_row_as_it_is() -> None:
    rows_ = RobotRows()
    live, slow, quiet, silent = (robot(f"rover-{i}", NOW) for i in range(1, 5))
    robots = [live, replace(slow, last_data=NOW - 4.04), replace(quiet, last_data=NOW - 95.0),
              replace(silent, last_data=None)]
    rows_.update(robots, {}, NOW, None)
    first = {r.key: r for r in rows_.rows}
    assert [first[r.robot_id].cells[AGE].text for r in robots] == [
        LIVE_AGE, "4.0 s", "1 min", "—"]
    ages = [first[r.robot_id].cells[AGE].sort for r in robots]
    assert ages == sorted(ages)  # sorted as read: live first, none last

    # half a second on: the live robot's next sample came; the others heard nothing
    later = [replace(live, last_data=NOW + 0.45), *robots[1:]]
    rows_.update(later, {}, NOW + 0.5, None)
    again = {r.key: r for r in rows_.rows}
    assert again[live.robot_id] is first[live.robot_id]  # still live: not made again
    assert again["rover-2"].cells[AGE].text == "4.5 s"
    assert again["rover-2"].cells[AGE].sort > first["rover-2"].cells[AGE].sort
    # and once it is heard no more, its age counts up
    rows_.update(later, {}, NOW + 2.0, None)
    assert {r.key: r for r in rows_.rows}[live.robot_id].cells[AGE].text == "1.5 s"
