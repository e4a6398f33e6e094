"""The layout validator (Qt-free): every bad file is refused with a message naming the
problem, and nothing half-parsed comes back."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from app import resources
from app.layouts import FORMAT, VERSION, DockRecord, Layout, LayoutError, parse_layout, read_layout

KNOWN = ["robots", "topics", "inspector", "plot", "scene3d", "camera"]
HEALTH = ["battery", "faults", "status", "capabilities", "mission", "teleop", "fleet_map"]


def layout_json(**changes: object) -> dict:
    data: dict = {
        "format": FORMAT, "version": VERSION, "name": "Test",
        "docks": [
            {"panel_id": "robots", "object_name": "robots#1", "area": "left", "state": {}},
            {"panel_id": "plot", "object_name": "plot#1", "area": "right", "tab_with": "",
             "state": {"series": [{"key": "fleet/rover-1/uplink/battery",
                                   "path": "battery.percentage"}],
                       "window_s": 60, "paused": False}},
        ],
    }
    data.update(changes)
    return data


def refused(data: object) -> str:
    text = data if isinstance(data, str | bytes) else json.dumps(data)
    with pytest.raises(LayoutError) as caught:
        parse_layout(text, KNOWN, "my.json")
    return str(caught.value)


def test_a_valid_layout_parses_with_every_field() -> None:
    layout = parse_layout(json.dumps(layout_json()), KNOWN, "my.json")
    assert layout.name == "Test"
    assert [(d.object_name, d.panel_id, d.area) for d in layout.docks] == [
        ("robots#1", "robots", "left"), ("plot#1", "plot", "right")]
    assert layout.docks[1].state["series"][0]["path"] == "battery.percentage"
    assert layout.window_state == b"" and layout.geometry == b""


def test_to_json_round_trips_exactly() -> None:
    layout = Layout("Mine", [DockRecord("plot#1", "plot", {"window_s": 600}, "bottom",
                                        floating=True, size=[0.25, 1.0]),
                             DockRecord("plot#2", "plot", {}, "bottom", tab_with="plot#1")],
                    window_state=b"\x00\x01state", geometry=b"geo\xff")
    again = parse_layout(layout.to_json(), KNOWN)
    assert again == layout
    assert again.to_json() == layout.to_json()


@pytest.mark.parametrize(("data", "expected"), [
    ("{not json", "my.json is not valid JSON"),
    (b"\xff\xfe\x00garbage", "my.json is not valid JSON"),
    ([1, 2, 3], "my.json is not a Fieldstation layout"),
    ({"docks": []}, "my.json is not a Fieldstation layout"),
    (layout_json(version="1"), "has no layout version"),
    (layout_json(version=VERSION + 1), f"newer Fieldstation (layout version {VERSION + 1}"),
    (layout_json(docks={"robots#1": {}}), "lists no panels"),
    (layout_json(docks=["robots"]), "panel #1 is not an object"),
    (layout_json(docks=[{"panel_id": "robots"}]), "needs a panel_id and an object_name"),
    (layout_json(docks=[{"panel_id": "teleporter", "object_name": "teleporter#1"}]),
     "unknown panel 'teleporter'"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p"},
                        {"panel_id": "robots", "object_name": "p"}]),
     "object_name 'p' is used twice"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p", "state": [1]}]),
     "state must be an object"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p", "area": "middle"}]),
     "area one of"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p", "tab_with": "q"}]),
     "tabs with unknown 'q'"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p", "size": [0.5]}]),
     "size must be [width, height], fractions of the window"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p", "size": [0, 0.5]}]),
     "size must be"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p", "size": [1.5, 0.5]}]),
     "size must be"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p", "size": [True, 0.5]}]),
     "size must be"),
    (layout_json(docks=[{"panel_id": "plot", "object_name": "p", "size": "big"}]),
     "size must be"),
    (layout_json(window=[1]), "'window' must be an object"),
    (layout_json(window={"state": "@@not base64@@"}), "window arrangement is corrupt"),
])
def test_each_bad_layout_is_refused_with_a_clear_message(data: object, expected: str) -> None:
    assert expected in refused(data)


def test_an_unknown_panel_message_lists_the_known_ones() -> None:
    message = refused(layout_json(docks=[{"panel_id": "teleporter", "object_name": "c"}]))
    assert "panel #1" in message and "robots, scene3d, topics" in message


def test_window_bytes_are_base64_in_the_file() -> None:
    raw = b"\x00\x00\x00\xff" + bytes(range(40))
    data = layout_json(window={"state": base64.b64encode(raw).decode(), "geometry": ""})
    assert parse_layout(json.dumps(data), KNOWN).window_state == raw


def test_read_layout_reports_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="cannot read"):
        read_layout(tmp_path / "nope.json", KNOWN)


@pytest.mark.parametrize("name", ["Field laptop", "Teleop station"])
def test_shipped_default_layouts_are_valid(name: str) -> None:
    assert name in resources.default_layout_names()
    layout = read_layout(resources.LAYOUTS / f"{name}.json", KNOWN + HEALTH)
    assert layout.name == name
    assert layout.window_state == b""  # placed by area and share, for any screen
    assert {d.panel_id for d in layout.docks} >= {"robots"}
    # Docks of an area share it along its split; a top or bottom row takes its height
    # from the side columns.
    rows = sum(max((d.size[1] for d in layout.docks if d.area == area), default=0.0)
               for area in ("top", "bottom"))
    for area in {d.area for d in layout.docks}:
        side = area in ("left", "right")
        split = [d.size[1 if side else 0] for d in layout.docks
                 if d.area == area and not d.tab_with]
        assert sum(split) + (rows if side else 0.0) == pytest.approx(1.0)
