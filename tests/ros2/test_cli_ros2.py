"""The command line beside a ROS 2 robot on rmw_zenoh: its topics listed with ours, a ROS 2
topic echoed as JSON."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.station.ros2_robot_names import FILE_NAME
from app.station.velocity_inputs import saved_velocity_inputs
from tests.bus.helpers import wait_for
from tests.cli.test_cli import run_cli
from tests.cli.test_cli_teleop import Running
from tests.ros2_robot import BATTERY_PCT, Ros2RobotProcess

pytestmark = pytest.mark.slow


@pytest.fixture
def endpoint(free_endpoint: str) -> Iterator[str]:
    with Ros2RobotProcess(free_endpoint, "rover_1"):
        yield free_endpoint


def test_topics_lists_the_ros2_topics_heard_under_their_keys(endpoint: str) -> None:
    result = run_cli("topics", "--connect", endpoint, "--duration", "3")
    assert result.returncode == 0, result.stderr
    ours, _, graph = result.stdout.partition("ROS 2 topics (rmw_zenoh)")
    rows = {line.split()[0]: line.split() for line in ours.splitlines()[2:] if line.strip()}
    assert rows["fleet/rover_1/scan"][1] == "foxglove.LaserScan"
    assert float(rows["fleet/rover_1/scan"][2]) > 0  # heard (3 s tell no exact rate)
    assert rows["fleet/rover_1/uplink/battery"][1] == "fleet.Uplink"
    listed = {line.split()[0]: line.split() for line in graph.splitlines()[3:]}
    assert listed["/rover_1/scan"][1:] == ["sensor_msgs/msg/LaserScan", "rover_1",
                                           "fleet/rover_1/scan"]
    assert listed["/rover_1/diagnostics"][3] == "fleet/rover_1/uplink/fault"
    assert "/rover_1/cmd_vel" not in listed  # it subscribes there; nobody publishes


def test_robots_lists_the_ros2_robot_from_its_graph(endpoint: str) -> None:
    result = run_cli("robots", "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    (row,) = [line for line in result.stdout.splitlines() if line.startswith("rover_1 ")]
    assert "online" in row and "ROS 2 (rmw_zenoh)" in row and "ros2" in row
    # cmd_vel, goal_pose and its std_srvs services; its node /rover_1/base
    assert "3 commands, 1 node " in row


def test_robots_and_topics_know_a_robot_by_the_name_in_the_config(
        endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / FILE_NAME).write_text(json.dumps({"rover_1": "rover-1", "x y": "z"}))
    monkeypatch.setenv("FIELDSTATION_CONFIG_DIR", str(tmp_path))
    result = run_cli("robots", "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()[2:]] == ["rover-1"]
    assert f"fieldstation: refused: {FILE_NAME}: 'x y'" in result.stderr
    result = run_cli("topics", "--connect", endpoint, "--duration", "3")
    assert "fleet/rover-1/scan" in result.stdout and "fleet/rover_1/" not in result.stdout


def test_echo_prints_a_ros2_message_as_json(endpoint: str) -> None:
    result = run_cli("echo", "/rover_1/battery", "--json", "--count", "1", "--timeout", "10",
                     "--connect", endpoint)
    assert result.returncode == 0, result.stderr
    (shown,) = [json.loads(line) for line in result.stdout.splitlines()]
    assert shown["type"] == "sensor_msgs/msg/BatteryState"
    assert shown["message"]["percentage"] == pytest.approx(BATTERY_PCT / 100)
    assert shown["message"]["serial_number"] == "B-17"
    assert "POWER_SUPPLY_STATUS_FULL" not in shown["message"]  # constants are no fields


def test_echo_of_a_topic_nobody_publishes_says_so(endpoint: str) -> None:
    result = run_cli("echo", "/rover_1/nothing", "--timeout", "2", "--connect", endpoint)
    assert result.returncode == 1
    assert "no ROS 2 publisher of /rover_1/nothing" in result.stderr


@pytest.mark.parametrize("chosen", [None, "cmd_vel_teleop"])
def test_teleop_drives_the_ros_input_named_on_the_command_line(
        free_endpoint: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        chosen: str | None) -> None:
    monkeypatch.setenv("FIELDSTATION_CONFIG_DIR", str(tmp_path))
    args = ["--robot", "rover_1", "--connect", free_endpoint]
    args += ["--ros-input", chosen] if chosen else []
    with Ros2RobotProcess(free_endpoint, "rover_1", inputs=("cmd_vel_nav", "cmd_vel_teleop")):
        running = Running(monkeypatch, args, tty=False)
        try:
            # a twist_mux's inputs and none named: driving is refused, and says why
            refused = "rover_1 lists no command teleop can drive"
            wait_for(lambda: "pad: none" in running.screen.line(), 15.0)
            if chosen is None:
                wait_for(lambda: refused in running.screen.line(), 10.0)
            else:  # the one named: only the missing pad and deadman stand in the way
                wait_for(lambda: "controller unplugged" in running.screen.line(), 10.0,
                         why=running.screen.line)
                assert refused not in running.screen.text()
        finally:
            assert running.end() == 0
    assert saved_velocity_inputs(tmp_path) == {}  # a command line's choice is for its run
