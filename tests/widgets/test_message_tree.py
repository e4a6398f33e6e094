"""The message tree with plain values: rows are reused, opened rows stay open, closed rows
cost nothing until opened."""

from __future__ import annotations

import pytest

from app.codec.fields import UNKNOWN_MEMBER
from panels.inspector import tree_nodes
from widgets.message_tree import Bytes, Elided, MessageTree, float_text


@pytest.fixture
def tree(qtbot) -> MessageTree:
    widget = MessageTree()
    qtbot.addWidget(widget)
    return widget


def message(lat: float, joints: int = 40) -> dict:
    return {
        "robotId": "rover-1",
        "motion": {"pose": {"latDeg": lat, "lonDeg": 8.5}, "fix": "fixedRtk"},
        "joints": Elided(joints, [{"name": f"j{i}", "position": i / 4}
                                  for i in range(16)]),
        "image": Bytes(19_000, bytes.fromhex("ffd8ffe000104a46")),
        "nothing": None,
    }


def test_updates_in_place_and_keeps_open_rows_open(tree: MessageTree) -> None:
    tree.set_value(message(47.1))
    motion = tree.row_at("motion")
    assert motion is not None and motion.isExpanded()  # first-level structs open by default
    pose = tree.row_at("motion.pose")
    assert pose is not None and not pose.isExpanded()
    assert pose.text(1) == "{latDeg: 47.1, lonDeg: 8.5}"  # a closed struct's preview
    assert pose.childCount() == 0  # closed: its children are not made yet
    pose.setExpanded(True)
    lat = tree.row_at("motion.pose.latDeg")
    assert lat is not None and lat.text(1) == "47.1"
    tree.set_value(message(47.2))
    assert tree.row_at("motion.pose.latDeg") is lat and lat.text(1) == "47.2"
    assert tree.row_at("motion") is motion and pose.isExpanded()
    assert tree.expanded_paths() == ["motion", "motion.pose"]


def test_closed_rows_catch_up_when_opened(tree: MessageTree) -> None:
    tree.set_value(message(47.1))
    joints = tree.row_at("joints")
    assert joints is not None and joints.text(1).startswith("[40 items]")
    tree.set_value(message(47.1, joints=41))
    assert joints.childCount() == 0 and joints.text(1).startswith("[41 items]")
    joints.setExpanded(True)
    assert joints.childCount() == 17
    assert joints.child(16).text(1) == "25 more not shown"
    third = tree.row_at("joints[3]")
    assert third is not None and third.text(1) == "{name: j3, position: 0.75}"
    assert tree.row_at("joints[3].position") is None  # closed, so not made


def test_leaves_read_as_values(tree: MessageTree) -> None:
    tree.set_value(message(47.1))
    image = tree.row_at("image")
    assert image is not None
    assert image.text(1) == "19000 bytes: ff d8 ff e0 00 10 4a 46 …"
    assert image.text(2) == "Data"
    assert tree.row_at("nothing").text(1) == "null"
    assert tree.row_at("motion.fix").text(1) == "fixedRtk"
    assert float_text(0.30000001192092896) == "0.3"  # a float32 without its float64 noise
    assert float_text(47.397680768575775) == "47.397680768575775"
    assert float_text(float("nan")) == "nan"


def test_a_new_union_member_replaces_the_rows_below_it(tree: MessageTree) -> None:
    tree.set_value({"robotId": "r", "motion": {"speed": 1.0}})
    robot = tree.row_at("robotId")
    tree.set_value({"robotId": "r", "battery": {"percentage": 80.0}})
    assert tree.row_at("robotId") is robot
    assert tree.row_at("motion") is None and tree.row_at("battery.percentage").text(1) == "80.0"
    tree.set_value(tree_nodes({"robotId": "r", UNKNOWN_MEMBER: True}))  # as the inspector does
    unknown = tree.row_at(UNKNOWN_MEMBER)
    assert unknown is not None and unknown.text(1) == "not in this schema"


def test_schema_type_hints_and_restored_expansion(tree: MessageTree) -> None:
    tree.set_type_hint(lambda path: "Float64" if path[-1] == "latDeg" else "")
    tree.set_expanded_paths(["motion.pose"])  # as a saved layout restores it
    tree.set_value(message(47.1))
    assert not tree.row_at("motion").isExpanded()  # no longer the automatic default
    tree.row_at("motion").setExpanded(True)
    assert tree.row_at("motion.pose").isExpanded()
    assert tree.row_at("motion.pose.latDeg").text(2) == "Float64"
    assert tree.row_at("robotId").text(2) == "text"  # no schema hint: from the value
    assert tree.expanded_paths() == ["motion", "motion.pose"]
