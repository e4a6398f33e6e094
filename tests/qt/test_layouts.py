"""Layouts in the window: exact round trips, the shipped defaults, bad files refused with the
current layout kept, import/export through the file dialogs, the last layout at start."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDockWidget, QFileDialog, QMessageBox

from app import resources
from app.qt.main_window import MainWindow

BATTERY = {"key": "fleet/rover-1/uplink/battery", "path": "battery.percentage"}
VELOCITY = {"key": "fleet/rover-1/uplink/motion", "path": "motion.velocity.linearMps"}


def without_window(text: str) -> dict:
    """A saved layout minus Qt's opaque window-state and geometry bytes."""
    data = json.loads(text)
    data.pop("window")
    return data


def default_layout(name: str) -> dict:
    return json.loads((resources.LAYOUTS / f"{name}.json").read_text())


def dock(window: MainWindow, object_name: str) -> QDockWidget:
    found = window.findChild(QDockWidget, object_name)
    assert found is not None, object_name
    return found


@pytest.fixture
def warnings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """What the user is told in message boxes (recorded instead of shown modally)."""
    shown: list[str] = []

    def warning(parent, title, text, *args, **kwargs):
        shown.append(f"{title}: {text}")
        return QMessageBox.StandardButton.Ok

    monkeypatch.setattr(QMessageBox, "warning", warning)
    return shown


@pytest.fixture
def laptop(make_main_window, warnings) -> MainWindow:
    """A shown window with the Field laptop layout and one plot tabbed onto another."""
    window = make_main_window(show=True)
    assert window.load_named_layout("Field laptop")
    window.tabifyDockWidget(dock(window, "plot#1"), dock(window, "plot#2"))
    return window


def test_a_layout_round_trips_exactly(laptop: MainWindow, qtbot) -> None:
    laptop.open_panel("plot", {"series": [BATTERY, VELOCITY], "window_s": 600,
                               "paused": True}, area="bottom")
    qtbot.wait(50)
    saved = laptop.current_layout("Mine").to_json()
    states = {name: panel.save_state() for name, panel in laptop.panels().items()}

    assert laptop.load_layout_text(saved, "mine.json")
    qtbot.wait(50)
    again = laptop.current_layout("Mine").to_json()

    assert without_window(again) == without_window(saved)
    assert {name: panel.save_state() for name, panel in laptop.panels().items()} == states
    assert json.loads(again)["docks"][5]["tab_with"] == "plot#1"  # the tabs came back
    assert set(laptop.tabifiedDockWidgets(dock(laptop, "plot#2"))) >= \
        {dock(laptop, "plot#1"), dock(laptop, "inspector#1")}
    assert laptop.dockWidgetArea(dock(laptop, "plot#3")) == Qt.DockWidgetArea.BottomDockWidgetArea


@pytest.mark.parametrize("name", ["Field laptop", "Teleop station"])
def test_each_default_layout_opens_the_panels_it_names(make_main_window, name: str) -> None:
    window = make_main_window(show=True)
    assert window.load_named_layout(name)
    wanted = default_layout(name)["docks"]
    assert [(n, p.panel_id) for n, p in window.panels().items()] == [
        (d["object_name"], d["panel_id"]) for d in wanted]
    for record in wanted:
        for series in record["state"].get("series", []):
            state = window.panels()[record["object_name"]].save_state()
            assert series in [{"key": s["key"], "path": s["path"]} for s in state["series"]]


def state_keys(value: object) -> list[str]:
    """Every topic key a layout's panel states name."""
    if isinstance(value, dict):
        return [k for name, v in value.items()
                for k in ([v] if name == "key" and isinstance(v, str) else state_keys(v))]
    return [k for v in value for k in state_keys(v)] if isinstance(value, list) else []


@pytest.mark.parametrize("name", ["Field laptop", "Teleop station"])
def test_shipped_layouts_follow_the_active_robot_and_name_their_plots(
        make_main_window, name: str) -> None:
    keys = state_keys([d["state"] for d in default_layout(name)["docks"]])
    assert keys and all(k.startswith("fleet/{robot}/") for k in keys)
    window = make_main_window()
    assert window.load_named_layout(name)
    titles = {p.windowTitle() for p in window.panels().values() if p.panel_id == "plot"}
    assert "Plot" not in titles and titles <= {"Plot: velocity.linearMps",
                                               "Plot: velocity.linearMps +1",
                                               "Plot: battery.percentage"}
    docked = {window._docks[n].windowTitle() for n, p in window.panels().items()
              if p.panel_id == "plot"}
    assert docked == titles  # the tabs say what each plot shows


SCREENS = {"1366x768": (1366, 768), "1920x1080": (1920, 1080)}
USABLE = (200, 100)  # no panel on screen is smaller (px)


def on_screen(window: MainWindow, name: str) -> bool:
    return not window.panels()[name].visibleRegion().isEmpty()  # type: ignore[attr-defined]


@pytest.mark.parametrize("screen", list(SCREENS))
def test_field_laptop_shows_the_robots_health_without_a_click(
        make_main_window, fleet, qtbot, tmp_path: Path, screen: str) -> None:
    window = make_main_window(show=True)
    window.resize(*SCREENS[screen])
    assert window.load_named_layout("Field laptop")
    window.set_active_robot("rover-1")
    health = ["battery#1", "faults#1", "status#1", "capabilities#1"]
    qtbot.waitUntil(lambda: all(on_screen(window, n) for n in
                                [*health, "scene3d#1", "camera#1", "robots#1"]))
    battery = window.panels()["battery#1"]
    qtbot.waitUntil(lambda: "Voltage" in dict(battery.gauge.details()),  # type: ignore
                    timeout=10_000)
    window.grab().save(str(tmp_path / f"field-laptop-{screen}.png"))
    assert (window.width(), window.height()) == SCREENS[screen]  # nothing pushed it wider
    for name in window.panels():
        panel = window.panels()[name]
        if on_screen(window, name):
            assert panel.width() >= USABLE[0] and panel.height() >= USABLE[1], name
    view, camera = window.panels()["scene3d#1"], window.panels()["camera#1"]
    assert view.height() >= 250 and camera.height() >= 150  # both still worth looking at
    assert view.width() > 0.5 * window.width()  # the 3D view keeps the most room


def test_teleop_station_gives_camera_and_view_the_most_room(make_main_window, qtbot) -> None:
    window = make_main_window(show=True)
    window.resize(1600, 1000)  # a teleop station's screen
    window.load_named_layout("Teleop station")
    # the status tiles are on top of the robots and faults tabs
    camera, view, robots = (dock(window, n) for n in ("camera#1", "scene3d#1", "status#1"))
    qtbot.waitUntil(lambda: view.isVisible() and robots.isVisible())
    qtbot.waitUntil(lambda: view.height() > 2 * robots.height())
    qtbot.waitUntil(lambda: camera.width() > 1.15 * view.width())  # the camera is the large one
    assert camera.x() < view.x() and camera.width() + view.width() > 0.9 * window.width()
    assert window.tabifiedDockWidgets(dock(window, "plot#1")) == [dock(window, "inspector#1")]
    teleop = dock(window, "teleop#1")  # driving is on screen beside the tables, not a tab
    assert teleop.isVisible() and not window.tabifiedDockWidgets(teleop)
    assert window.dockWidgetArea(teleop) == Qt.DockWidgetArea.BottomDockWidgetArea


def corrupt(text: str, kind: str) -> str:
    """A bad layout file of the given kind, made from a good one."""
    data = json.loads(text)
    docks, window = data["docks"], data["window"]
    if kind == "corrupt JSON":
        return text[: len(text) // 2]
    if kind == "not a layout":
        return json.dumps({"panels": docks})
    if kind == "newer version":
        data["version"] += 1
    elif kind == "unknown panel":
        docks[1]["panel_id"] = "teleporter"
    elif kind == "duplicated object_name":
        docks[1]["object_name"] = docks[0]["object_name"]
    elif kind == "corrupt window state":
        window["state"] = base64.b64encode(b"\x00\x00\x00\xff" + b"junk" * 20).decode()
    elif kind == "window state not base64":
        window["state"] = "%%% not base64 %%%"
    return json.dumps(data)


BAD = {  # kind -> what the user is told
    "corrupt JSON": "bad.json is not valid JSON",
    "not a layout": "bad.json is not a Fieldstation layout",
    "newer version": "bad.json is from a newer Fieldstation (layout version 2",
    "unknown panel": "bad.json: panel #2 is an unknown panel 'teleporter'",
    "duplicated object_name": "object_name 'fleet_map#1' is used twice",
    "corrupt window state": "bad.json: the saved window arrangement is corrupt",
    "window state not base64": "bad.json: the saved window arrangement is corrupt",
}


@pytest.mark.parametrize("via", ["text", "import"])
@pytest.mark.parametrize("kind", list(BAD))
def test_a_bad_layout_is_refused_and_the_old_one_kept(
        laptop: MainWindow, warnings: list[str], tmp_path: Path, monkeypatch, kind: str,
        via: str) -> None:
    bad = corrupt(laptop.current_layout("Mine").to_json(), kind)
    panels_before = laptop.panels()
    states_before = {n: p.save_state() for n, p in panels_before.items()}
    window_state_before = bytes(laptop.saveState().data())

    if via == "text":
        assert not laptop.load_layout_text(bad, "bad.json")
    else:
        path = tmp_path / "bad.json"
        path.write_text(bad)
        monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), ""))
        laptop.layouts.import_layout()
        assert not (laptop.layouts_dir() / "bad.json").exists()  # not kept as a named layout

    assert len(warnings) == 1
    assert BAD[kind] in warnings[0] and "current layout is unchanged" in warnings[0]
    assert BAD[kind] in laptop.statusBar().currentMessage()
    assert laptop.panels() == panels_before  # the very same panel widgets
    assert {n: p.save_state() for n, p in laptop.panels().items()} == states_before
    assert bytes(laptop.saveState().data()) == window_state_before


def test_export_then_import_through_the_file_dialogs(
        laptop: MainWindow, tmp_path: Path, monkeypatch) -> None:
    exported = tmp_path / "my rig.json"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(exported), ""))
    laptop.layouts.export_layout()
    expected = without_window(laptop.current_layout("my rig").to_json())
    assert without_window(exported.read_text()) == expected
    assert "exported" in laptop.statusBar().currentMessage()

    laptop.load_named_layout("Teleop station")
    assert "topics#1" not in laptop.panels()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(exported), ""))
    laptop.layouts.import_layout()
    assert without_window(laptop.current_layout("my rig").to_json()) == expected
    # kept under its name: it is in the Layouts menu and opens by name
    assert (laptop.layouts_dir() / "my rig.json").is_file()
    assert "my rig" in [a.text() for a in laptop.layouts.menu.actions()]


def test_cancelled_or_failing_file_dialogs_change_nothing(
        laptop: MainWindow, warnings: list[str], tmp_path: Path, monkeypatch) -> None:
    before = laptop.panels()
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: ("", ""))
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: ("", ""))
    laptop.layouts.import_layout()
    laptop.layouts.export_layout()
    assert laptop.panels() == before and not warnings

    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(tmp_path), ""))
    laptop.layouts.import_layout()  # a folder: unreadable as a file
    assert "cannot read" in warnings[-1]
    monkeypatch.setattr(QFileDialog, "getSaveFileName",
                        lambda *a, **k: (str(tmp_path / "missing" / "x.json"), ""))
    laptop.layouts.export_layout()
    assert "not exported" in warnings[-1]
    assert laptop.panels() == before


def test_the_last_layout_is_restored_at_start(make_main_window) -> None:
    first = make_main_window()
    first.load_named_layout("Teleop station")
    first.open_panel("plot", {"series": [BATTERY], "window_s": 120, "paused": False},
                     area="left")
    expected = without_window(first.current_layout().to_json())
    first.close()

    second = make_main_window()  # same config dir, as after a restart
    second.restore_last_layout()
    assert without_window(second.current_layout().to_json()) == expected


def test_without_a_usable_last_layout_the_default_opens(make_main_window) -> None:
    window = make_main_window()
    window.restore_last_layout()
    assert sorted(window.panels()) == sorted(
        d["object_name"] for d in default_layout(resources.DEFAULT_LAYOUT)["docks"])

    window.config_dir.mkdir(parents=True, exist_ok=True)
    (window.config_dir / "last-layout.json").write_text("{ truncated")
    again = make_main_window()
    again.restore_last_layout()
    assert sorted(again.panels()) == sorted(window.panels())
    assert "the last layout is not valid JSON" in again.statusBar().currentMessage()
