"""A ROS 2 robot on rmw_zenoh (another process, rosbags' CDR) in the station, with no bridge:
it is a robot, its topics are the station's, its bad samples are counted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.bus.config import BusConfig
from app.codec.decode import decode
from app.codec.fields import get_path, numeric_paths, plain
from app.convert.registry import get_converter
from app.logbook.station_tap import StationTap
from app.record.reader import LogReader
from app.record.writer import Recorder
from app.station.interests import Stream
from app.station.ros2_robot_names import RobotNames
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.ros2_robot import GRAVITY, Ros2RobotProcess

ROBOT = "rover_1"
SCAN = f"fleet/{ROBOT}/scan"


@pytest.fixture
def robot(free_endpoint: str) -> Iterator[Ros2RobotProcess]:
    with Ros2RobotProcess(free_endpoint, ROBOT) as robot:
        yield robot


@pytest.fixture
def station(robot: Ros2RobotProcess, free_endpoint: str) -> Iterator[Station]:
    station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
    try:
        yield station
    finally:
        station.close()


def test_the_ros2_robot_is_a_robot_of_the_station_with_its_topics(station: Station) -> None:
    expected = {
        SCAN: "foxglove.LaserScan",
        f"fleet/{ROBOT}/points": "foxglove.PointCloud",
        f"fleet/{ROBOT}/odom": "foxglove.PoseInFrame",
        f"fleet/{ROBOT}/tf": "foxglove.FrameTransforms",
        f"fleet/{ROBOT}/tf_static": "foxglove.FrameTransforms",
        f"fleet/{ROBOT}/camera/image_raw/compressed": "foxglove.CompressedImage",
        f"fleet/{ROBOT}/uplink/battery": "fleet.Uplink",
        f"fleet/{ROBOT}/uplink/fault": "fleet.Uplink",
        f"fleet/{ROBOT}/markers": "foxglove.SceneUpdate",
        f"fleet/{ROBOT}/imu": "ros2.sensor_msgs/msg/Imu",  # nothing to draw: its own struct
        f"fleet/{ROBOT}/detections": "foxglove.SceneUpdate",
        # its std_srvs services: the buttons of the capabilities panel, and their answers
        f"fleet/{ROBOT}/uplink/capabilities": "fleet.Uplink",
        f"fleet/{ROBOT}/uplink/message": "fleet.Uplink",
    }

    def shown() -> dict[str, str]:
        info = station.robot(ROBOT)
        if info is None or not info.online or info.catalog is None:
            return {}
        return {t.key: t.type for t in info.catalog.topics}

    wait_for(lambda: shown() == expected, 15, why=shown)  # the graph's tokens come one by one
    info = station.robot(ROBOT)
    assert info is not None and info.catalog is not None
    assert info.catalog.model == "ROS 2 (rmw_zenoh)"
    wait_for(lambda: {c.key: c.type for c in station.robot(ROBOT).catalog.commands} == {
        f"fleet/{ROBOT}/command/teleop": "fleet.Command",  # its cmd_vel: teleop drives it
        f"fleet/{ROBOT}/command/goal_pose": "isaac.Goal2Proto",  # and goals go to goal_pose
        f"fleet/{ROBOT}/command/service": "fleet.Command",  # its services are called
    }, 5)
    # its small topics are heard at once, as a robot of ours; its data keeps it fresh
    wait_for(lambda: SCAN in station.topics() and station.topics()[SCAN].rate_hz() > 5, 10)
    wait_for(lambda: (r := station.robot(ROBOT)) is not None and r.last_data is not None, 5)


def test_a_ros2_scan_reaches_a_consumer_as_points_a_wall_ahead(station: Station) -> None:
    got = []
    consumer = station.consumer("test", on_sample=got.append)
    try:
        consumer.want({Stream(SCAN, "foxglove.LaserScan")})
        wait_for(lambda: got, 15)
        decoded = got[-1].message()
        cloud = get_converter("foxglove.laser_scan")(decoded)
        assert cloud.frame_id == "laser"
        ahead = cloud.xyz[abs(cloud.xyz[:, 1]) < 0.1]
        assert len(ahead) and abs(ahead[:, 0].mean() - 3.0) < 0.05
    finally:
        consumer.close()


def test_a_ros2_cloud_reaches_a_consumer_as_its_points_carried_in_the_attachment(
        station: Station) -> None:
    got = []
    consumer = station.consumer("test", on_sample=got.append)
    try:
        consumer.want({Stream(f"fleet/{ROBOT}/points", "foxglove.PointCloud")})
        wait_for(lambda: got, 15)
        decoded = got[-1].message()
        assert len(decoded.buffers) == 1 and len(decoded.buffers[0]) == 2000 * 12
        assert not decoded.root.data  # copied once, into the attachment, not the message
        cloud = get_converter("foxglove.point_cloud")(decoded)
        assert cloud.frame_id == "base_link" and len(cloud) == 2000 and cloud.dropped == 0
        assert (cloud.xyz[:, 0] == 4.0).all()
        assert cloud.xyz[:, 1].min() == -2.0 and cloud.xyz[:, 1].max() == 2.0
    finally:
        consumer.close()


def test_ros2_markers_are_scene_entities(station: Station) -> None:
    got = []
    consumer = station.consumer("test", on_sample=got.append)
    try:
        consumer.want({Stream(f"fleet/{ROBOT}/markers", "foxglove.SceneUpdate")})
        wait_for(lambda: got, 15)
        change = get_converter("foxglove.scene_update")(got[-1].message())
        entities = {e.id: e for e in change.entities}
        assert set(entities) == {"obstacles/1", "obstacles/2"}
        (cube,) = entities["obstacles/1"].primitives
        assert cube.kind == "cube" and cube.pose[:3] == (2.0, 0.0, 0.5)
        assert cube.color == pytest.approx((1.0, 0.1, 0.1, 1.0))
        assert entities["obstacles/1"].frame_id == "base_link"
        assert entities["obstacles/1"].lifetime_s == 1.0
        (label,) = entities["obstacles/2"].primitives
        assert label.kind == "text" and label.text == "pallet"
    finally:
        consumer.close()


def test_ros2_3d_detections_are_labelled_boxes(station: Station) -> None:
    got = []
    consumer = station.consumer("test", on_sample=got.append)
    try:
        consumer.want({Stream(f"fleet/{ROBOT}/detections", "foxglove.SceneUpdate")})
        wait_for(lambda: got, 15)
        change = get_converter("foxglove.scene_update")(got[-1].message())
        assert change.delete_all  # each message replaces the last detections
        (pallet,) = change.entities
        assert pallet.id == "p-1" and pallet.frame_id == "base_link"
        box, text = pallet.primitives
        assert box.kind == "cube" and box.size == (1.2, 1.0, 1.0)
        assert text.kind == "text" and text.text == "pallet 0.93"
    finally:
        consumer.close()


def test_a_type_with_nothing_to_draw_is_read_by_field_path(station: Station) -> None:
    got = []
    consumer = station.consumer("test", on_sample=got.append)
    try:  # as the inspector and the plot panel take it
        consumer.want({Stream(f"fleet/{ROBOT}/imu", "ros2.sensor_msgs/msg/Imu")})
        wait_for(lambda: got, 15)
        message = got[-1].message()
        assert get_path(message.root, "linearAcceleration.z") == pytest.approx(GRAVITY)
        assert plain(message.root)["header"]["frameId"] == "imu"
        assert "angularVelocity.z" in numeric_paths(message.root.schema)
    finally:
        consumer.close()


def test_the_static_transform_comes_to_a_late_listener(station: Station) -> None:
    got = []
    wait_for(lambda: (r := station.robot(ROBOT)) is not None and r.catalog is not None, 15)
    consumer = station.consumer("test", on_sample=got.append)
    try:  # asked for long after the robot published it, once
        consumer.want({Stream(f"fleet/{ROBOT}/tf_static", "foxglove.FrameTransforms")})
        wait_for(lambda: got, 10)
        transforms = get_converter("foxglove.frame_transforms")(
            got[-1].message())
        assert [(t.parent, t.child) for t in transforms.transforms] == [("base_link", "laser")]
    finally:
        consumer.close()


def test_a_robot_in_the_root_namespace_is_its_domain_s(free_endpoint: str) -> None:
    with Ros2RobotProcess(free_endpoint, "", domain=7):  # one robot on ROS_DOMAIN_ID 7
        station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
        try:
            scan = "fleet/ros2-domain-7/scan"
            wait_for(lambda: scan in station.topics() and station.topics()[scan].count > 0, 15)
            assert [r.robot_id for r in station.robots()] == ["ros2-domain-7"]
        finally:
            station.close()


def test_a_robot_named_in_the_config_is_known_by_that_name_only(free_endpoint: str) -> None:
    """ros2-robots.json names the domain's root-namespace robot: it is never seen by the
    rule's id, its topics and its teleop input are under its name."""
    seen: list[str] = []
    with Ros2RobotProcess(free_endpoint, "", domain=7):
        station = Station(BusConfig(mode="peer", connect=[free_endpoint]),
                          ros_robot_names=RobotNames({"ros2-domain-7": "atlas-2"}))
        stop = station.watch_robots(lambda info: seen.append(info.robot_id))
        try:
            scan = "fleet/atlas-2/scan"
            wait_for(lambda: scan in station.topics() and station.topics()[scan].count > 0, 15)
            wait_for(lambda: (r := station.robot("atlas-2")) is not None and r.catalog
                     is not None and "fleet/atlas-2/command/teleop"
                     in [c.key for c in r.catalog.commands], 5)
            assert [r.robot_id for r in station.robots()] == ["atlas-2"]
        finally:
            stop()
            station.close()
    assert set(seen) == {"atlas-2"}


def test_a_robot_that_goes_is_offline(robot: Ros2RobotProcess, station: Station) -> None:
    wait_for(lambda: (r := station.robot(ROBOT)) is not None and r.online, 15)
    robot.kill()
    wait_for(lambda: not station.robot(ROBOT).online, 15)


def test_bad_samples_and_tokens_are_counted_on_their_topic(free_endpoint: str) -> None:
    with Ros2RobotProcess(free_endpoint, ROBOT, bad=True):
        station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
        try:
            def errors() -> dict[str, int]:
                stats = station.topics().get(SCAN)
                return dict(stats.errors) if stats is not None else {}

            wait_for(lambda: {"malformed", "type hash"} <= errors().keys(), 15, why=errors)
            wait_for(lambda: station.topics()[SCAN].rate_hz() > 5, 5)  # the good ones come
            wait_for(lambda: "@ros2_lv" in station.topics(), 5)
            assert station.topics()["@ros2_lv"].errors["malformed"] >= 1
        finally:
            station.close()


def test_a_robot_whose_topics_come_one_by_one_is_heard_whole(free_endpoint: str) -> None:
    with Ros2RobotProcess(free_endpoint, ROBOT, stagger_s=0.5):  # its heavy cloud first
        station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
        consumer = station.consumer("test")
        try:
            def listed() -> list[str]:
                info = station.robot(ROBOT)
                return [t.key for t in info.catalog.topics] if info and info.catalog else []

            wait_for(lambda: listed() == [f"fleet/{ROBOT}/points"], 10, why=listed)
            consumer.want({Stream(f"fleet/{ROBOT}/nothing", "foxglove.Grid")})  # a re-plan
            # each topic its graph gains later is heard too, not only those known at first
            wait_for(lambda: SCAN in station.topics() and station.topics()[SCAN].count > 0, 15)
            wait_for(lambda: (r := station.robot(ROBOT)) is not None and r.last_data, 5)
        finally:
            consumer.close()
            station.close()


def test_a_ros2_robot_is_recorded_as_any_robot(station: Station, tmp_path: Path) -> None:
    points = f"fleet/{ROBOT}/points"
    wait_for(lambda: (r := station.robot(ROBOT)) is not None and r.last_data, 15)
    recorder = Recorder(tmp_path / "ros2.mcap")

    def heard(key: str) -> int:
        stats = station.topics().get(key)
        return stats.count if stats is not None else 0

    clouds_before = heard(points)
    tap = StationTap(station, recorder)
    try:  # what the station hears of it: its translated topics, its own-struct imu too
        imu = f"fleet/{ROBOT}/imu"
        wait_for(lambda: imu in station.topics() and station.topics()[imu].count >= 20, 10)
        wait_for(lambda: heard(points) >= clouds_before + 2, 10)  # one since the tap, whole
    finally:
        tap.close()
        recorder.close()
    with LogReader(tmp_path / "ros2.mcap") as reader:
        types = {c.key: c.type_name for c in reader.channels()}
        assert types[imu] == "ros2.sensor_msgs/msg/Imu" and types[SCAN] == "foxglove.LaserScan"
        sample = next(iter(reader.samples(keys=[imu])))
        logged_cloud = next(iter(reader.samples(keys=[points])))
    message = decode(sample.encoding, sample.payload, sample.attachment)
    assert get_path(message.root, "linearAcceleration.z") == pytest.approx(GRAVITY)
    # the cloud's points, held in the process where the CDR put them, are written out whole
    cloud = get_converter("foxglove.point_cloud")(
        decode(logged_cloud.encoding, logged_cloud.payload, logged_cloud.attachment))
    assert len(cloud) == 2000 and (cloud.xyz[:, 0] == 4.0).all()
