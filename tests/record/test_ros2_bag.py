"""rosbag2 MCAP files (what ``ros2 bag record -s mcap`` writes), written here by rosbags' own
writer, open like our own logs: each ROS 2 channel decoded by the definitions the file
carries, translated as a live ROS 2 robot's topic is, on the key the live robot's would
have; our converters read the result. What cannot be shown is said in one line, never fatal."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from mcap.reader import make_reader
from rosbags.rosbag2 import StoragePlugin, Writer
from rosbags.typesys import Stores, get_types_from_msg, get_typestore

from app.bus.config import BusConfig
from app.codec.decode import DecodedMessage, decode
from app.codec.fields import numeric_paths, plain
from app.convert.models import PointCloud, Transforms
from app.convert.registry import get_converter
from app.record.foreign import foreign_translator
from app.record.format import ForeignChannelInfo, ForeignError
from app.record.reader import LogReader
from app.record.ros2_bag import (
    Ros2Translator,
    parse_definitions,
    robot_and_name,
    robot_namespaces,
)
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.conftest import free_port

T0_NS = 1_760_000_000 * 10**9
STEP_NS = 100_000_000
S = math.sqrt(0.5)
BAG = "field_run"  # the bag's folder, and so its file's stem: the root namespace's robot
GRIPPER = "fieldstation_test_msgs/msg/Gripper"
GRIPPER_MSG = "float32 opening  # metres\nstring label\n"
BROKEN = "fieldstation_test_msgs/msg/Broken"
NO_HASH = "RIHS01_" + "0" * 64
SEP = "=" * 80 + "\n"
# PoseStamped as rosbag2 stores a ros2idl definition: each type's .idl after a section header


def idl(name: str, body: str, *includes: str) -> str:
    package, _, struct = name.split("/")
    return (f"{SEP}IDL: {name}\n// generated from rosidl_adapter/resource/msg.idl.em\n"
            + "".join(f'#include "{i}.idl"\n' for i in includes)
            + f"\nmodule {package} {{\n  module msg {{\n"
            f'    @verbatim (language="comment", text=\n      "{struct}, in IDL")\n'
            f"    struct {struct} {{\n{body}    }};\n  }};\n}};\n")


POSE_IDL = "".join([
    idl("geometry_msgs/msg/PoseStamped", "      std_msgs::msg::Header header;\n"
        "      geometry_msgs::msg::Pose pose;\n", "std_msgs/msg/Header",
        "geometry_msgs/msg/Pose"),
    idl("std_msgs/msg/Header", "      builtin_interfaces::msg::Time stamp;\n"
        "      string frame_id;\n", "builtin_interfaces/msg/Time"),
    idl("builtin_interfaces/msg/Time", "      int32 sec;\n      uint32 nanosec;\n"),
    idl("geometry_msgs/msg/Pose", "      geometry_msgs::msg::Point position;\n"
        "      geometry_msgs::msg::Quaternion orientation;\n", "geometry_msgs/msg/Point",
        "geometry_msgs/msg/Quaternion"),
    idl("geometry_msgs/msg/Point", "      double x;\n      double y;\n      double z;\n"),
    idl("geometry_msgs/msg/Quaternion", "".join(
        f"      @default (value={v})\n      double {n};\n"
        for n, v in (("x", 0.0), ("y", 0.0), ("z", 0.0), ("w", 1.0)))),
])
KEYS = {  # each channel that plays -> its type
    "fleet/rover_1/scan": "foxglove.LaserScan",
    "fleet/rover_1/points": "foxglove.PointCloud",
    "fleet/rover_1/uplink/battery": "fleet.Uplink",
    "fleet/rover_2/goal": "foxglove.PoseInFrame",  # its definition is ros2idl
    "fleet/rover_1/tf": "foxglove.FrameTransforms",  # its own tf: rover_1 is a robot
    "fleet/rover_2/odom": "foxglove.PoseInFrame",  # its own odom: so is rover_2
    f"fleet/{BAG}/tf_static": "foxglove.FrameTransforms",
    "fleet/rover_1/gripper": f"ros2.{GRIPPER}",  # nothing to draw: its own struct
    f"fleet/{BAG}/chatter": "ros2.std_msgs/msg/String",
    f"fleet/{BAG}/uplink/fault": "fleet.Uplink",
}


def typestore() -> Any:
    store = get_typestore(Stores.ROS2_JAZZY)
    store.register(get_types_from_msg(GRIPPER_MSG, GRIPPER))
    return store


class Messages:
    def __init__(self, store: Any) -> None:
        self.store = store

    def new(self, ros_type: str, **fields: Any) -> Any:
        return self.store.types[ros_type](**fields)

    def header(self, frame: str, at_ns: int = T0_NS) -> Any:
        stamp = self.new("builtin_interfaces/msg/Time", sec=at_ns // 10**9,
                         nanosec=at_ns % 10**9)
        return self.new("std_msgs/msg/Header", stamp=stamp, frame_id=frame)

    def scan(self) -> Any:
        """Three beams, -90°, 0° and 90°: a wall 3 m ahead, 2 m left, nothing right."""
        return self.new("sensor_msgs/msg/LaserScan", header=self.header("laser"),
                        angle_min=-math.pi / 2, angle_max=math.pi / 2,
                        angle_increment=math.pi / 2, time_increment=0.0, scan_time=0.1,
                        range_min=0.1, range_max=10.0,
                        ranges=np.array([math.inf, 3.0, 2.0], np.float32),
                        intensities=np.array([0.0, 7.0, 8.0], np.float32))

    def points(self) -> Any:
        xyz = np.array([[1, 2, 3], [4, 5, 6], [-1, 0, 0.5]], np.float32)
        field = self.store.types["sensor_msgs/msg/PointField"]
        return self.new("sensor_msgs/msg/PointCloud2", header=self.header("lidar"),
                        height=1, width=3,
                        fields=[field(name=n, offset=4 * i, datatype=7, count=1)
                                for i, n in enumerate("xyz")],
                        is_bigendian=False, point_step=12, row_step=36,
                        data=xyz.view(np.uint8).reshape(-1), is_dense=True)

    def transforms(self, parent: str, child: str, x: float) -> Any:
        transform = self.new(
            "geometry_msgs/msg/Transform",
            translation=self.new("geometry_msgs/msg/Vector3", x=x, y=0.0, z=0.0),
            rotation=self.new("geometry_msgs/msg/Quaternion", x=0.0, y=0.0, z=0.0, w=1.0))
        return self.new("tf2_msgs/msg/TFMessage", transforms=[self.new(
            "geometry_msgs/msg/TransformStamped", header=self.header(parent),
            child_frame_id=child, transform=transform)])

    def odometry(self) -> Any:
        pose = self.new("geometry_msgs/msg/Pose",
                        position=self.new("geometry_msgs/msg/Point", x=1.0, y=0.5, z=0.0),
                        orientation=self.new("geometry_msgs/msg/Quaternion", x=0.0, y=0.0,
                                             z=0.0, w=1.0))
        zero = self.new("geometry_msgs/msg/Vector3", x=0.0, y=0.0, z=0.0)
        return self.new(
            "nav_msgs/msg/Odometry", header=self.header("odom"), child_frame_id="base_link",
            pose=self.new("geometry_msgs/msg/PoseWithCovariance", pose=pose,
                          covariance=np.zeros(36)),
            twist=self.new("geometry_msgs/msg/TwistWithCovariance", twist=self.new(
                "geometry_msgs/msg/Twist", linear=zero, angular=zero), covariance=np.zeros(36)))

    def goal(self) -> Any:
        pose = self.new("geometry_msgs/msg/Pose",
                        position=self.new("geometry_msgs/msg/Point", x=4.0, y=-2.0, z=0.0),
                        orientation=self.new("geometry_msgs/msg/Quaternion", x=0.0, y=0.0,
                                             z=S, w=S))
        return self.new("geometry_msgs/msg/PoseStamped", header=self.header("map"), pose=pose)

    def battery(self) -> Any:
        nan = math.nan
        return self.new("sensor_msgs/msg/BatteryState", header=self.header("base_link"),
                        voltage=25.1, temperature=nan, current=-1.5, charge=nan, capacity=nan,
                        design_capacity=nan, percentage=0.64, power_supply_status=2,
                        power_supply_health=1, power_supply_technology=2, present=True,
                        cell_voltage=np.zeros(0, np.float32),
                        cell_temperature=np.zeros(0, np.float32), location="base",
                        serial_number="B-17")

    def diagnostics(self) -> Any:
        def status(level: int, name: str, message: str, hardware: str) -> Any:
            return self.new("diagnostic_msgs/msg/DiagnosticStatus", level=level, name=name,
                            message=message, hardware_id=hardware, values=[])

        return self.new("diagnostic_msgs/msg/DiagnosticArray", header=self.header(""),
                        status=[status(1, "base: motor", "drive motor warm", "motor-1"),
                                status(2, "base: lidar", "no scans for 2 s", "lidar-1")])


def write_bag(folder: Path) -> Path:
    """A rosbag2 MCAP bag as rosbags writes one; returns its .mcap file."""
    store = typestore()
    make = Messages(store)
    with Writer(folder, version=9, storage_plugin=StoragePlugin.MCAP) as writer:
        def channel(topic: str, ros_type: str, **how: Any) -> Any:
            return writer.add_connection(topic, ros_type, typestore=store, **how)

        def put(connection: Any, step: int, message: Any) -> None:
            data = store.serialize_cdr(message, connection.msgtype)
            writer.write(connection, T0_NS + step * STEP_NS, data)

        scan = channel("/rover_1/scan", "sensor_msgs/msg/LaserScan")
        put(scan, 0, make.scan())
        good = bytes(store.serialize_cdr(make.scan(), "sensor_msgs/msg/LaserScan"))
        writer.write(scan, T0_NS + STEP_NS, good[:30])  # truncated CDR
        put(scan, 2, make.scan())
        put(channel("/rover_1/points", "sensor_msgs/msg/PointCloud2"), 0, make.points())
        put(channel("/tf_static", "tf2_msgs/msg/TFMessage"), 0,
            make.transforms("base_link", "laser", 0.2))
        put(channel("/rover_1/tf", "tf2_msgs/msg/TFMessage"), 1,
            make.transforms("odom", "base_link", 1.5))
        put(channel("/rover_2/odom", "nav_msgs/msg/Odometry"), 1, make.odometry())
        put(channel("/rover_1/battery", "sensor_msgs/msg/BatteryState"), 1, make.battery())
        put(channel("/diagnostics", "diagnostic_msgs/msg/DiagnosticArray"), 2,
            make.diagnostics())
        put(channel("/rover_1/gripper", GRIPPER), 2,
            make.new(GRIPPER, opening=0.08, label="left jaw"))
        put(channel("/chatter", "std_msgs/msg/String"), 2,
            make.new("std_msgs/msg/String", data="hello"))
        # another robot's goal, its definition in ros2idl (rosbags' writer tells by the text)
        put(channel("/rover_2/goal", "geometry_msgs/msg/PoseStamped", msgdef=POSE_IDL,
                    rihs01=store.hash_rihs01("geometry_msgs/msg/PoseStamped")), 3, make.goal())
        broken = channel("/rover_1/broken", BROKEN, msgdef="float32[ opening\n", rihs01=NO_HASH)
        writer.write(broken, T0_NS, b"\x00\x01\x00\x00\x00\x00\x00\x00")
    return folder / f"{folder.name}.mcap"


@pytest.fixture(scope="module")
def bag(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_bag(tmp_path_factory.mktemp("bags") / BAG)


def by_key(path: Path) -> tuple[dict[str, list[DecodedMessage]], list[str]]:
    """Every sample decoded by our codec, by key; and the reader's problems."""
    with LogReader(path, translate=foreign_translator()) as reader:
        found: dict[str, list[DecodedMessage]] = {}
        for sample in reader.samples():
            found.setdefault(sample.key, []).append(
                decode(sample.encoding, sample.payload, sample.attachment))
        return found, list(reader.problems)


def test_the_bag_is_rosbag2_cdr_with_its_definitions(bag: Path) -> None:
    with bag.open("rb") as stream:
        summary = make_reader(stream).get_summary()
    assert summary is not None
    channels = {c.topic: c for c in summary.channels.values()}
    assert {c.message_encoding for c in channels.values()} == {"cdr"}
    gripper = summary.schemas[channels["/rover_1/gripper"].schema_id]
    assert (gripper.name, gripper.encoding, gripper.data.decode()) == (
        GRIPPER, "ros2msg", "float32 opening\nstring label\n")  # rosbags drops comments
    scan = summary.schemas[channels["/rover_1/scan"].schema_id]
    assert scan.encoding == "ros2msg" and f"{SEP}MSG: std_msgs/" in scan.data.decode()
    assert summary.schemas[channels["/rover_2/goal"].schema_id].encoding == "ros2idl"


def test_channels_play_on_the_live_robots_keys(bag: Path) -> None:
    with LogReader(bag, translate=foreign_translator()) as reader:
        channels = {c.key: c for c in reader.channels()}
        assert {key: c.type_name for key, c in channels.items()} == KEYS
        assert all(c.foreign for c in channels.values())
        assert channels["fleet/rover_1/scan"].count == 3  # messages, the damaged one too
        assert reader.problems == [
            f"/rover_1/broken: its ros2msg definition of {BROKEN} does not parse: "
            "at 'float32[ opening'",
        ]


def test_samples_convert_through_our_converters(bag: Path) -> None:
    found, _ = by_key(bag)
    for key, messages in found.items():
        assert {m.type_name for m in messages} == {KEYS[key]}, key
    laser = get_converter("foxglove.laser_scan")
    for scan in found["fleet/rover_1/scan"]:
        cloud = laser(scan)
        assert isinstance(cloud, PointCloud) and cloud.frame_id == "laser"
        np.testing.assert_allclose(cloud.xyz, [[3, 0, 0], [0, 2, 0]], atol=1e-6)
        np.testing.assert_array_equal(cloud.intensity, [7, 8])
        assert cloud.stamp == T0_NS / 1e9
    (points,) = found["fleet/rover_1/points"]
    cloud = get_converter("foxglove.point_cloud")(points)
    np.testing.assert_array_equal(cloud.xyz, [[1, 2, 3], [4, 5, 6], [-1, 0, 0.5]])
    frames = get_converter("foxglove.frame_transforms")
    (moving,) = frames(found["fleet/rover_1/tf"][0]).transforms
    (static,) = frames(found[f"fleet/{BAG}/tf_static"][0]).transforms
    assert (moving.parent, moving.child, moving.translation, moving.stamp) == (
        "odom", "base_link", (1.5, 0, 0), T0_NS / 1e9)
    assert (static.parent, static.child, static.translation, static.stamp) == (
        "base_link", "laser", (0.2, 0, 0), 0)  # /tf_static holds at any time
    assert isinstance(frames(found["fleet/rover_1/tf"][0]), Transforms)
    (goal,) = found["fleet/rover_2/goal"]
    poses = get_converter("foxglove.pose_in_frame")(goal)
    assert poses.frame_id == "map"
    np.testing.assert_allclose(poses.poses, [[4, -2, 0, 0, 0, S, S]])


def test_battery_and_each_diagnostic_status_are_uplinks(bag: Path) -> None:
    found, _ = by_key(bag)
    (battery,) = [plain(m.root) for m in found["fleet/rover_1/uplink/battery"]]
    assert battery["robotId"] == "rover_1"
    assert battery["battery"]["percentage"] == pytest.approx(64.0)
    assert battery["battery"]["voltageV"] == pytest.approx(25.1)
    assert battery["unixTimeMs"] == T0_NS // 10**6  # its own time: the log's clock, not now
    faults = [plain(m.root) for m in found[f"fleet/{BAG}/uplink/fault"]]
    assert [(f["robotId"], f["fault"]["code"], f["fault"]["severity"], f["fault"]["active"],
             f["fault"]["source"], f["fault"]["message"]) for f in faults] == [
        (BAG, "base: motor", "minor", True, "motor-1", "drive motor warm"),
        (BAG, "base: lidar", "major", True, "lidar-1", "no scans for 2 s")]
    assert {f["fault"]["raisedUnixTimeMs"] for f in faults} == {T0_NS // 10**6}
    assert {f["unixTimeMs"] for f in faults} == {T0_NS // 10**6}


def test_a_damaged_message_is_counted_and_the_rest_play(bag: Path) -> None:
    found, problems = by_key(bag)
    assert len(found["fleet/rover_1/scan"]) == 2
    (damaged,) = [p for p in problems if p.startswith("fleet/rover_1/scan:")]
    assert damaged.startswith("fleet/rover_1/scan: a message cannot be translated: malformed: "
                              "sensor_msgs/msg/LaserScan: "), damaged


def test_a_seek_gives_every_sample_of_a_message(bag: Path) -> None:
    with LogReader(bag, translate=foreign_translator()) as reader:
        newest = reader.latest_before(T0_NS + 5 * STEP_NS, 10**10)
    faults = [s for s in newest if s.key == f"fleet/{BAG}/uplink/fault"]
    assert len(faults) == 2 and len({s.key for s in newest}) == len(KEYS)


def test_the_custom_type_decodes_by_the_definition_in_the_file(bag: Path) -> None:
    """Its definition came from the file (the translator's store is ROS 2 Jazzy's alone
    until it reads one); it plays as its own struct, which the inspector shows and plots
    read by field path."""
    translator = Ros2Translator()
    assert not translator.types.knows(GRIPPER)
    with LogReader(bag, translate=translator) as reader:
        (sample,) = list(reader.samples(keys=["fleet/rover_1/gripper"]))
    assert translator.types.knows(GRIPPER)
    message = decode(sample.encoding, sample.payload, sample.attachment)
    assert message.type_name == f"ros2.{GRIPPER}"
    shown = plain(message.root)
    assert shown["opening"] == pytest.approx(0.08) and shown["label"] == "left jaw"
    assert "opening" in numeric_paths(message.root.schema)
    (chatter,) = by_key(bag)[0][f"fleet/{BAG}/chatter"]
    assert plain(chatter.root) == {"data": "hello"}


def test_other_channels_are_left_to_other_translators() -> None:
    info = ForeignChannelInfo("/log", "protobuf", "foxglove.Log", "protobuf", b"", {})
    assert Ros2Translator()(info, "bot") is None


@pytest.mark.parametrize(("schema", "encoding", "data", "reason"), [
    ("pkg/msg/T", "ros2msg", b"this_type is_not defined\n",
     "its ros2msg definition of pkg/msg/T lacks pkg/msg/this_type"),
    ("pkg/msg/T", "ros2msg", b"\xff\xfe", "its ros2msg definition of pkg/msg/T does not parse"),
    ("pkg/msg/T", "ros2idl", b"module pkg { struct", "its ros2idl definition of pkg/msg/T does "
                                                     "not parse"),
    ("std_msgs/msg/Header", "ros2msg", b"int32 seq\n",
     "its ros2msg definition of std_msgs/msg/Header differs from ROS 2 Jazzy's"),
    ("pkg/msg/T", "omgidl", b"", "pkg/msg/T: omgidl definitions are not readable here"),
    ("", "", b"", "cdr messages without a type definition are not readable here"),
])
def test_a_channel_that_cannot_be_read_says_why(schema: str, encoding: str, data: bytes,
                                                reason: str) -> None:
    info = ForeignChannelInfo("/x", "cdr", schema, encoding, data, {})
    with pytest.raises(ForeignError) as caught:
        Ros2Translator()(info, "bot")
    assert str(caught.value).startswith(reason), caught.value


def test_a_second_definition_of_a_custom_type_says_so() -> None:
    """Two channels with different definitions of one custom type (recorded from two
    builds): the first plays, the second says why not."""
    translator = Ros2Translator()
    kind = "fieldstation_test_msgs/msg/Twice"
    first, second = (ForeignChannelInfo(f"/g{n}", "cdr", kind, "ros2msg", fields.encode(), {})
                     for n, fields in enumerate(("float32 opening\n",
                                                 "float64 opening\nstring label\n")))
    assert translator(first, "bot") is not None
    with pytest.raises(ForeignError, match=r"another definition of \S+ is in use here"):
        translator(second, "bot")


@pytest.mark.parametrize(("topic", "robot", "name"), [
    ("/rover_1/scan", "rover_1", "scan"),
    ("/rover_1/camera/image_raw/compressed", "rover_1", "camera/image_raw/compressed"),
    ("/scan", BAG, "scan"),
    ("/tf", BAG, "tf"),
    ("/camera/image_raw", BAG, "camera/image_raw"),  # no tf or odom of its own: no robot
])
def test_a_namespace_with_its_own_tf_or_odom_is_a_robot(topic: str, robot: str,
                                                        name: str) -> None:
    robots = robot_namespaces(("/rover_1/tf", "/rover_1/scan", "/tf", "/camera/image_raw",
                               "/camera/camera_info", "/camera/odom/x"))
    assert robots == {"rover_1"}
    assert robot_and_name(topic, BAG, robots) == (robot, name)


def test_msg_sections_are_each_parsed() -> None:
    text = f"pkg/Part part\nuint8 MODE = 2\n{SEP}MSG: pkg/Part\nint8[3] xyz\n"
    assert set(parse_definitions("pkg/msg/Whole", "ros2msg", text)) == {"pkg/msg/Whole",
                                                                         "pkg/msg/Part"}


def test_the_station_plays_the_bag(bag: Path) -> None:
    station = Station(BusConfig(mode="peer", listen=[f"tcp/127.0.0.1:{free_port()}"]))
    try:
        station.play(LogReader(bag, translate=foreign_translator()))
        wait_for(lambda: station.player is not None, timeout=10)
        wait_for(lambda: {r.robot_id for r in station.robots() if r.online}
                 == {"rover_1", "rover_2", BAG}, timeout=5)
        player = station.player
        assert player is not None
        player.set_speed(10.0)
        player.play()
        wait_for(lambda: player.state().finished, timeout=10)
        wait_for(lambda: "fleet/rover_1/scan" in station.topics(), timeout=5)
        assert set(station.topics()) == set(KEYS)
        assert "does not parse" in station.status.detail  # the broken channel, said
    finally:
        station.close()
