"""The topics panel on the real simulated fleet over real zenoh."""

from __future__ import annotations

import json
import re
import time

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QInputDialog

from app.bus.stats import RATE_WINDOW_S
from app.codec.fields import numeric_paths
from app.codec.registry import registry
from app.qt.panel_api import TOPIC_MIME
from panels.topics import ERRORS, RATE, TYPE, TopicsPanel
from tests.panels.tables import cell, index_of, rows
from widgets.status_light import ALARM

MOTION = "fleet/rover-1/uplink/motion"  # published at 10 Hz


def published_times(fleet, key: str) -> list[float]:
    """When the simulated robot publishes ``key`` from now on (its own thread appends)."""
    topic = next(t for r in fleet.robots for t in r.topics if t.key == key)
    times: list[float] = []
    produce = topic.produce

    def produce_and_note(now: float):
        produced = produce(now)
        if produced is not None:
            times.append(time.monotonic())
        return produced

    topic.produce = produce_and_note
    return times


def published_rate(times: list[float]) -> float:
    """Over the topics panel's window (as its rate: from the mean period)."""
    since = time.monotonic() - RATE_WINDOW_S
    recent = [t for t in list(times) if t >= since]
    if len(recent) < 2:
        return 0.0
    return (len(recent) - 1) / (recent[-1] - recent[0])


def open_topics(make_main_window, qtbot, until=MOTION):
    window = make_main_window(show=True)
    panel = window.open_panel("topics")
    assert isinstance(panel, TopicsPanel)
    qtbot.waitUntil(lambda: until in rows(panel.view), timeout=10_000)
    return window, panel


def record_open_panel(window, monkeypatch):
    calls = []
    real = window.open_panel

    def open_panel(panel_id, state=None, *args, **kwargs):
        calls.append((panel_id, state))
        return real(panel_id, state, *args, **kwargs)

    monkeypatch.setattr(window, "open_panel", open_panel)
    return calls


def hz(text: str | None) -> float:
    """The rate a cell shows; 0 while it shows none (or its row is not there yet)."""
    match = re.fullmatch(r"(\d+\.\d) Hz", text or "")
    return float(match.group(1)) if match else 0.0


def test_topics_show_each_key_with_type_and_rate(make_main_window, fleet, qtbot):
    window, panel = open_topics(make_main_window, qtbot)
    every_robot = {MOTION, "fleet/humanoid-1/proprioception", "fleet/car-1/entity_status"}
    qtbot.waitUntil(lambda: every_robot <= set(rows(panel.view))
                    and len(rows(panel.view)) >= 20, timeout=5_000)
    qtbot.waitUntil(lambda: set(rows(panel.view)) == set(window.station.topics()),
                    timeout=10_000)  # every key heard, and only those
    catalogs = {t.key: t.type_name for r in fleet.robots for t in r.topics}
    shown = rows(panel.view)
    assert {key: row[TYPE] for key, row in shown.items()} == {k: catalogs[k] for k in shown}
    # the rate shown is the rate the rover publishes at: 10 Hz, or less on a loaded machine
    published = published_times(fleet, MOTION)

    def shown_matches_published() -> bool:
        rate = published_rate(published)
        return rate > 0 and abs(hz(cell(panel.view, MOTION, RATE)) - rate) <= 0.1 * rate

    qtbot.waitUntil(shown_matches_published, timeout=15_000)
    assert panel.count.text() == f"{len(rows(panel.view))} topics"


def test_filter_by_substring_or_glob_on_key_and_type(make_main_window, fleet, qtbot):
    _, panel = open_topics(make_main_window, qtbot)
    qtbot.waitUntil(lambda: "fleet/humanoid-1/proprioception" in rows(panel.view))
    total = len(rows(panel.view))
    qtbot.keyClicks(panel.filter, "UPLINK")
    shown = rows(panel.view)
    assert shown and all("/uplink/" in key for key in shown)
    assert panel.count.text() == f"{len(shown)} of {total}"

    panel.filter.setText("bow.*Sample")  # a glob, on the type column
    assert set(rows(panel.view)) and all(
        re.fullmatch(r"bow\..*Sample", r[TYPE]) for r in rows(panel.view).values())
    assert all(k.startswith("fleet/humanoid-1/") for k in rows(panel.view))

    panel.filter.setText("*/rover-1/uplink/m*")
    assert MOTION in rows(panel.view)
    assert all(k.startswith("fleet/rover-1/uplink/m") for k in rows(panel.view))

    panel.filter.setText("no such topic")
    assert rows(panel.view) == {}
    assert panel.count.text() == f"0 of {total}"
    panel.filter.clear()
    assert len(rows(panel.view)) >= total


def test_inspect_opens_an_inspector_on_the_topic(make_main_window, fleet, qtbot, monkeypatch):
    window, panel = open_topics(make_main_window, qtbot)
    calls = record_open_panel(window, monkeypatch)
    menu = panel.context_menu(MOTION)
    actions = {a.text(): a for a in menu.actions() if a.text()}
    shown = len(panel.shown_keys())
    assert set(actions) == {"Plot field…", "Inspect", "Record this topic",
                            f"Record the {shown} topics shown"}
    actions["Inspect"].trigger()
    assert calls == [("inspector", {"key": MOTION})]
    assert [p.panel_id for p in window.panels().values()].count("inspector") == 1
    actions["Record this topic"].trigger()
    try:
        assert window.recording.recorder is not None
        assert window.recording._record_tap.key_exprs == (MOTION,)
    finally:
        window.recording.stop_recording()


def test_plot_field_offers_numeric_fields_and_opens_a_plot(make_main_window, fleet, qtbot,
                                                           monkeypatch):
    window, panel = open_topics(make_main_window, qtbot)
    calls = record_open_panel(window, monkeypatch)
    offered = []

    def choose(parent, title, label, items, current=0, editable=True, *args, **kwargs):
        offered.extend(items)
        return "motion.localPose.x", True

    monkeypatch.setattr(QInputDialog, "getItem", choose)
    actions = {a.text(): a for a in panel.context_menu(MOTION).actions()}
    assert actions["Plot field…"].isEnabled()
    actions["Plot field…"].trigger()
    expected = numeric_paths(registry().structs["fleet.Uplink"].schema)
    assert sorted(offered) == sorted(expected)
    assert offered[0].startswith("motion.")  # the member this key carries comes first
    assert calls == [("plot", {"series": [{"key": MOTION, "path": "motion.localPose.x"}]})]
    assert [p.panel_id for p in window.panels().values()].count("plot") == 1

    monkeypatch.setattr(QInputDialog, "getItem", lambda *a, **k: ("", False))
    actions = {a.text(): a for a in panel.context_menu(MOTION).actions()}
    actions["Plot field…"].trigger()  # cancelled: nothing opens
    assert len(calls) == 1


def test_dragging_a_row_carries_its_key_and_type(make_main_window, fleet, qtbot):
    _, panel = open_topics(make_main_window, qtbot)
    model = panel.view.model()
    assert TOPIC_MIME in model.mimeTypes()
    row = index_of(panel.view, MOTION).row()
    indexes = [model.index(row, c) for c in range(model.columnCount())]
    assert all(model.flags(i) & Qt.ItemFlag.ItemIsDragEnabled for i in indexes)
    mime = model.mimeData(indexes)
    payload = json.loads(bytes(mime.data(TOPIC_MIME).data()).decode())
    assert payload == {"key": MOTION, "type": "fleet.Uplink"}


def test_decode_errors_are_shown_on_their_topic(make_main_window, fleet, free_endpoint,
                                                open_session, qtbot):
    window, panel = open_topics(make_main_window, qtbot)
    junk = "fleet/car-1/junk"  # a robot without heavy topics is heard whole, listed or not
    sender = open_session(mode="client", connect=[free_endpoint], must_connect=True)

    def garbage_sent_and_counted() -> bool:
        sender.zenoh.put(junk, b"\xff" * 13, encoding="application/capnp;fleet.Uplink")
        return cell(panel.view, junk, ERRORS) not in (None, "0")

    qtbot.waitUntil(garbage_sent_and_counted, timeout=5_000)
    assert cell(panel.view, junk, TYPE) == "fleet.Uplink"
    assert cell(panel.view, junk, ERRORS, Qt.ItemDataRole.ForegroundRole) == QColor(ALARM)
    tooltip = cell(panel.view, junk, ERRORS, Qt.ItemDataRole.ToolTipRole)
    assert tooltip.startswith("Last error: ") and "malformed ×" in tooltip
    assert cell(panel.view, MOTION, ERRORS) == "0"
    qtbot.waitUntil(lambda: "0 decode errors" not in window.status_strip.errors_label.text(),
                    timeout=10_000)


def test_an_empty_station_shows_a_hint(make_main_window, qtbot):
    window = make_main_window(show=True)  # nothing listens on its endpoint
    panel = window.open_panel("topics")
    qtbot.waitUntil(lambda: panel.hint.isVisible(), timeout=10_000)
    assert panel.hint.text() == "No topics yet — waiting for data on fleet/**"
    assert not panel.view.isVisible()


def test_state_round_trips_exactly(make_main_window, qtbot):
    window = make_main_window()
    panel = window.open_panel("topics")
    assert panel.save_state() == {"filter": "", "sort_column": 0, "sort_order": "ascending"}
    state = {"filter": "*/uplink/*", "sort_column": RATE, "sort_order": "descending"}
    panel.restore_state(state)
    assert panel.save_state() == state
    assert panel.filter.text() == "*/uplink/*"
    again = window.open_panel("topics", panel.save_state())
    assert again.save_state() == state
    again.restore_state({"filter": 7, "sort_column": "rate"})  # from a damaged layout
    assert again.save_state() == {"filter": "", "sort_column": 0, "sort_order": "ascending"}


def test_a_heavy_topic_no_panel_shows_is_listed_on_demand_until_a_panel_shows_it(
        make_main_window, fleet, qtbot):
    cloud = "fleet/rover-1/lidar/points"
    window, panel = open_topics(make_main_window, qtbot)
    qtbot.waitUntil(lambda: cell(panel.view, cloud, RATE) == "on demand", timeout=10_000)
    window.open_panel("inspector", {"key": cloud})
    qtbot.waitUntil(lambda: hz(cell(panel.view, cloud, RATE)) > 0, timeout=10_000)


CAR_KEY = "fleet/car-1/entities/car-1"


def key_text_width(panel: TopicsPanel, key: str) -> int:
    return panel.view.fontMetrics().horizontalAdvance(key)


def test_the_key_column_is_as_wide_as_the_longest_key(make_main_window, fleet, qtbot):
    _, panel = open_topics(make_main_window, qtbot, until=CAR_KEY)
    longest = max(rows(panel.view), key=lambda k: key_text_width(panel, k))
    panel.view.setFixedWidth(key_text_width(panel, longest) + 120)  # a dock of the key's width
    qtbot.waitUntil(lambda: panel.view.columnWidth(0) > key_text_width(panel, longest),
                    timeout=10_000)  # every key whole; the other columns scroll


def test_a_narrow_table_keeps_the_key_and_cuts_it_at_the_left(make_main_window, fleet, qtbot):
    _, panel = open_topics(make_main_window, qtbot, until=CAR_KEY)
    longest = max(rows(panel.view), key=lambda k: key_text_width(panel, k))
    panel.view.setFixedWidth(key_text_width(panel, longest) // 2 + 60)  # a narrow dock
    qtbot.waitUntil(lambda: panel.view.columnWidth(0) >= panel.view.viewport().width(),
                    timeout=10_000)  # the key takes the width; the numbers scroll
    assert panel.view.textElideMode() == Qt.TextElideMode.ElideLeft
    width = panel.view.columnWidth(0) - 16
    shown = panel.view.fontMetrics().elidedText(longest, Qt.TextElideMode.ElideLeft, width)
    assert shown.startswith("…") and shown.endswith(longest.rsplit("/", 1)[-1])
    assert cell(panel.view, longest, 0, Qt.ItemDataRole.ToolTipRole) == longest


def test_quiet_topics_ages_are_written_on_screen_and_once_scrolled_into_view(qtbot, tmp_path):
    from app.bus.stats import TopicStats
    from app.render_text import human_age
    from app.station.frame import FrameBatch
    from app.station.robots import StationStatus
    from panels.topics import AGE
    from tests.panels.health import PlainHost

    panel = TopicsPanel(PlainHost(tmp_path))
    qtbot.addWidget(panel)
    panel.resize(900, 300)
    panel.show()
    now = time.monotonic()
    topics = {}
    for n in range(300):  # quiet for minutes: robots gone quiet, latched topics
        stats = TopicStats(f"fleet/r-{n:03d}/status")
        stats.record(now - 100 - 20 * n, 64, "application/capnp;fleet.Uplink")
        topics[stats.key] = stats.snapshot()
    top, bottom = "fleet/r-000/status", "fleet/r-299/status"
    panel.on_frame(FrameBatch(now - 3000, StationStatus(), topics=topics, tables_changed=True))
    stale = cell(panel.view, bottom, AGE)
    assert stale == human_age(6080 - 3000)
    panel.on_frame(FrameBatch(now, StationStatus(), topics=topics, tables_changed=True))
    assert cell(panel.view, top, AGE) == human_age(100)  # on screen: brought up to date
    assert cell(panel.view, bottom, AGE) == stale  # off screen: written once it is seen
    panel.view.scrollToBottom()
    qtbot.waitUntil(lambda: cell(panel.view, bottom, AGE) == human_age(6080), timeout=5_000)
