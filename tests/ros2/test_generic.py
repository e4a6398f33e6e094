"""A ROS 2 type with nothing to draw, as its own Cap'n Proto struct: every field there by
its name, lists of messages and of strings included, and found again by its wire name in
a run that never saw a robot (a recording played later)."""

from __future__ import annotations

import numpy as np
import pytest

from app.codec.decode import decode, encoding_for
from app.codec.fields import numeric_paths, plain
from app.codec.registry import build_registry
from app.ros2 import generic
from app.ros2.cdr import RosTypes
from app.ros2.translate import translate, translation_for


@pytest.fixture(scope="module")
def types() -> RosTypes:
    return RosTypes()


def said(types: RosTypes, ros_type: str, message: object) -> dict:
    translation = translation_for(ros_type, "/x", types)
    assert translation is not None and translation.type_name == f"ros2.{ros_type}"
    cdr = types.encode(ros_type, message)
    ((payload, _),) = translate(translation, ros_type, types.decode(ros_type, cdr), "r")
    return plain(decode(encoding_for(translation.type_name), payload).root)


def test_joint_states_keep_their_names_and_numbers(types: RosTypes) -> None:
    new = types.message
    header = new("std_msgs/msg/Header", stamp=new("builtin_interfaces/msg/Time", sec=3,
                                                  nanosec=4), frame_id="")
    joints = new("sensor_msgs/msg/JointState", header=header, name=["hip", "knee"],
                 position=np.array([0.5, -1.0]), velocity=np.zeros(2), effort=np.zeros(0))
    shown = said(types, "sensor_msgs/msg/JointState", joints)
    assert shown["name"] == ["hip", "knee"] and shown["position"] == [0.5, -1.0]
    assert shown["header"]["stamp"] == {"sec": 3, "nanosec": 4}


def test_a_list_of_messages_is_a_list_of_structs(types: RosTypes) -> None:
    new = types.message
    polygon = new("geometry_msgs/msg/Polygon", points=[
        new("geometry_msgs/msg/Point32", x=1.0, y=2.0, z=0.0),
        new("geometry_msgs/msg/Point32", x=3.0, y=4.0, z=0.0)])
    assert said(types, "geometry_msgs/msg/Polygon", polygon)["points"][1] == {
        "x": 3.0, "y": 4.0, "z": 0.0}


def test_names_follow_the_rule_and_avoid_capnp_words() -> None:
    assert generic.field_name("angular_velocity") == "angularVelocity"
    assert generic.field_name("x") == "x"
    assert generic.field_name("struct") == "structField"
    assert generic.struct_name("sensor_msgs/msg/Imu") == "SensorMsgsMsgImu"


def test_a_recorded_standard_type_is_found_by_its_name_in_a_fresh_registry() -> None:
    fresh = build_registry()  # asks app.ros2.generic, as every registry does
    struct = fresh.find("ros2.sensor_msgs/msg/Imu")
    assert struct is not None and "angularVelocity.z" in numeric_paths(struct.schema)
    assert fresh.find("ros2.nobody_msgs/msg/Nothing") is None
