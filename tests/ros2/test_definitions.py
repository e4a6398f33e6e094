"""A live ROS 2 robot's own message types: their .msg files read where a ROS 2 user keeps
them, refused with a reason when they cannot be used; then its samples of such a type reach
the station by field path, from a robot in another process (tests/ros2_robot.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.bus.config import BusConfig
from app.codec.fields import get_path, plain
from app.ros2.cdr import RosTypes
from app.ros2.definitions import definition_folders
from app.station.interests import Stream
from app.station.station import Station
from tests.bus.helpers import wait_for
from tests.ros2_robot import GAUGE_LEVEL, GAUGE_MSG, GAUGE_TYPE, Ros2RobotProcess

ROBOT = "rover_1"


def package(folder: Path, name: str, files: dict[str, str]) -> Path:
    for stem, text in files.items():
        path = folder / name / "msg" / f"{stem}.msg"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return folder


def test_folders_come_from_the_variable_then_the_sourced_workspace(tmp_path: Path) -> None:
    folders = definition_folders({"FIELDSTATION_ROS2_MSGS": f"{tmp_path / 'a'}:{tmp_path / 'b'}",
                                  "AMENT_PREFIX_PATH": "/ws/install/pkg:/opt/ros/jazzy"})
    assert folders == [tmp_path / "a", tmp_path / "b", Path("/ws/install/pkg/share"),
                       Path("/opt/ros/jazzy/share")]
    assert definition_folders({}) == []


def test_own_types_are_read_and_bad_ones_refused_with_why(tmp_path: Path) -> None:
    package(tmp_path, "fieldstation_test_msgs", {"Gauge": GAUGE_MSG,
                                                 "Panel": "Gauge[] gauges\nstring name\n",
                                                 "Broken": "float64 x\n!!!\n",
                                                 "Orphan": "other_msgs/Missing part\n"})
    package(tmp_path, "std_msgs", {"Header": "int32 mine\n"})  # the standard one stays
    types = RosTypes([tmp_path])
    assert types.custom == [GAUGE_TYPE, "fieldstation_test_msgs/msg/Panel"]
    assert types.hash_of(GAUGE_TYPE).startswith("RIHS01_")
    refused = "\n".join(types.problems)
    assert "Broken.msg" in refused
    assert "Orphan.msg: fieldstation_test_msgs/msg/Orphan refers to other_msgs/msg/Missing" \
        in refused
    assert "stamp" in types.fielddefs["std_msgs/msg/Header"][1][0]


def test_a_live_robots_own_type_is_read_by_field_path_once_its_file_is_there(
        free_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIELDSTATION_ROS2_MSGS", str(package(
        tmp_path, "fieldstation_test_msgs", {"Gauge": GAUGE_MSG, "Bad": "!!!\n"})))
    with Ros2RobotProcess(free_endpoint, ROBOT, custom=True):
        station = Station(BusConfig(mode="peer", connect=[free_endpoint]))
        got = []
        consumer = station.consumer("test", on_sample=got.append)
        try:
            gauge = f"fleet/{ROBOT}/gauge"
            wait_for(lambda: (r := station.robot(ROBOT)) is not None and r.catalog is not None
                     and any(t.key == gauge for t in r.catalog.topics), 15)
            consumer.want({Stream(gauge, f"ros2.{GAUGE_TYPE}")})
            wait_for(lambda: got, 15)
            message = got[-1].message()
            assert get_path(message.root, "level") == pytest.approx(GAUGE_LEVEL)
            assert plain(message.root)["unit"] == "bar"
            custom, refused = station.ros_definitions()
            assert custom == [GAUGE_TYPE] and "Bad.msg" in refused[0]
        finally:
            consumer.close()
            station.close()
