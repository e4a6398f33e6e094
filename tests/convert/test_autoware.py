"""autoware entity statuses and poses -> boxes and poses, through real capnp bytes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.convert.autoware import NEUTRAL, NOMINAL_SIZES, TYPE_COLORS
from app.convert.models import Boxes, Poses
from app.convert.registry import ConversionError, get_converter, scene_converter_for
from tests.convert.helpers import convert, new, wire

ENTITY = "autoware.traffic_simulator_msgs.EntityStatus"
REQUEST = "autoware.simulation_api_schema.UpdateEntityStatusRequest"
S = math.sqrt(0.5)




def set_pose(pose, x=10.0, y=20.0, z=0.0, yaw_deg=90.0) -> None:
    pose.position.x, pose.position.y, pose.position.z = x, y, z
    half = math.radians(yaw_deg) / 2
    pose.orientation.z, pose.orientation.w = math.sin(half), math.cos(half)


def entity(kind="vehicle", name="npc-1"):
    status = new(ENTITY)
    status.type.type, status.subtype.value, status.name = kind, "car", name
    set_pose(status.pose)
    box = status.boundingBox
    box.center.x, box.center.y, box.center.z = 1.35, 0.0, 0.75
    box.dimensions.x, box.dimensions.y, box.dimensions.z = 4.5, 1.8, 1.5
    return status


@pytest.mark.parametrize("type_name, name", [
    (ENTITY, "autoware.entity"), (REQUEST, "autoware.entities"),
    ("autoware.simulation_api_schema.EntityStatus", "autoware.api_entity"),
    ("autoware.geometry_msgs.Pose", "autoware.pose"),
    ("autoware.traffic_simulator_msgs.Waypoints", "autoware.waypoints"),
])
def test_scene_converter_for_autoware_types(type_name: str, name: str) -> None:
    assert scene_converter_for(type_name) == name


def test_entity_box_is_placed_relative_to_the_entity_pose() -> None:
    boxes = convert(entity())
    assert isinstance(boxes, Boxes) and boxes.frame_id == "" and boxes.dropped == 0
    (box,) = boxes.boxes
    # facing north (yaw 90°): the box centre 1.35 m ahead of the pose is 1.35 m north
    np.testing.assert_allclose(box.center, (10.0, 21.35, 0.75), atol=1e-12)
    assert box.size == (4.5, 1.8, 1.5)
    np.testing.assert_allclose(box.rotation, (0, 0, S, S))
    assert box.kind == "vehicle" and box.color == (0.2, 0.5, 1.0, 1.0)
    assert box.label == box.track_id == "npc-1"


@pytest.mark.parametrize("kind, shown, color", [
    ("ego", "ego", (0.1, 0.85, 0.3, 1.0)),
    ("pedestrian", "pedestrian", (1.0, 0.6, 0.1, 1.0)),
    ("miscObject", "misc", (0.7, 0.4, 0.9, 1.0)),
    (7, "type #7", NEUTRAL),  # a newer simulator's entity type
])
def test_kinds_and_colours(kind, shown: str, color) -> None:
    (box,) = convert(entity(kind)).boxes
    assert box.kind == shown and box.color == color
    assert len({*TYPE_COLORS.values(), NEUTRAL}) == 5  # four distinct colours and grey


def test_unset_box_and_orientation_get_a_nominal_box_standing_on_the_pose() -> None:
    status = new(ENTITY)
    status.type.type, status.subtype.value, status.name = "pedestrian", "pedestrian", "p"
    status.pose.position.x = 3.0  # orientation all zeros: identity
    (box,) = convert(status).boxes
    assert box.size == NOMINAL_SIZES["pedestrian"] == (0.5, 0.6, 1.75)
    assert box.center == (3.0, 0.0, 0.875) and box.rotation == (0.0, 0.0, 0.0, 1.0)


def test_unknown_subtype_falls_back_to_the_kind() -> None:
    status = new(ENTITY)
    status.type.type, status.subtype.value, status.name = "vehicle", 30, "v"
    (box,) = convert(status).boxes
    assert box.size == NOMINAL_SIZES["car"]


@pytest.mark.parametrize("field, value, reason", [
    ("x", math.nan, "pose not finite"),
    ("dx", math.inf, "bounding box"),
    ("dx", -1.0, "negative"),
])
def test_bad_entities_are_refused(field: str, value: float, reason: str) -> None:
    status = entity()
    if field == "x":
        status.pose.position.x = value
    else:
        status.boundingBox.dimensions.x = value
    with pytest.raises(ConversionError, match=f"npc-1: .*{reason}"):
        convert(status)


def test_entity_status_list_drops_bad_entities_and_counts_them() -> None:
    request = new(REQUEST)
    statuses = request.init("status", 3)
    for status, (name, kind, subtype) in zip(statuses, [("ego", "ego", "car"),
                                                        ("bus-1", "vehicle", "bus"),
                                                        ("bad", "pedestrian", "pedestrian")],
                                             strict=True):
        status.name, status.type.type, status.subtype.value = name, kind, subtype
        set_pose(status.pose, yaw_deg=0.0)
    statuses[2].pose.orientation.w = math.nan
    boxes = convert(request)
    assert [b.label for b in boxes.boxes] == ["ego", "bus-1"] and boxes.dropped == 1
    bus = boxes.boxes[1]
    assert bus.size == (12.0, 2.5, 3.2) and bus.center == (10.0, 20.0, 1.6)
    assert bus.kind == "vehicle" and bus.track_id == "bus-1"
    for status in statuses:
        status.pose.position.y = math.inf
    with pytest.raises(ConversionError, match="ego: pose not finite"):
        convert(request)
    request.init("status", 0)
    with pytest.raises(ConversionError, match="no entities"):
        convert(request)


def test_pose_and_paths() -> None:
    pose = new("autoware.geometry_msgs.Pose")
    set_pose(pose, 1.0, 2.0, 3.0, yaw_deg=90.0)
    poses = convert(pose)
    assert isinstance(poses, Poses) and poses.frame_id == "" and not poses.path
    np.testing.assert_allclose(poses.poses, [[1, 2, 3, 0, 0, S, S]])
    pose.position.z = math.nan
    with pytest.raises(ConversionError, match="not finite"):
        convert(pose)
    waypoints = new("autoware.traffic_simulator_msgs.Waypoints")
    points = waypoints.init("waypoints", 3)
    for i, p in enumerate(points):
        p.x, p.y = float(i), 2.0 * i
    points[1].x = math.nan
    path = convert(waypoints)
    assert path.path and path.label == "1 non-finite waypoints left out"
    np.testing.assert_allclose(path.poses, [[0, 0, 0, 0, 0, 0, 1], [2, 4, 0, 0, 0, 0, 1]])
    waypoints.init("waypoints", 0)
    with pytest.raises(ConversionError, match="no waypoints"):
        convert(waypoints)


def test_the_simulated_car_converts() -> None:
    from app.sim.car import SimCar

    car = SimCar("car1")
    car.setup()
    decoded = wire(car._ego_status(0.0))
    (box,) = get_converter("autoware.entity")(decoded).boxes
    assert box.kind == "ego" and box.label == "car1" and box.size == (4.5, 1.8, 1.5)
