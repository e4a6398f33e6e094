"""Which subscription of a ROS 2 robot teleop drives."""

from __future__ import annotations

from pathlib import Path

from app.ros2.graph import RosRobot, RosTopic
from app.ros2.source import VelocityInputs, velocity_input, velocity_inputs
from app.station.velocity_inputs import FILE_NAME, remember_velocity_input, saved_velocity_inputs

TWIST, STAMPED = "geometry_msgs/msg/Twist", "geometry_msgs/msg/TwistStamped"


def robot(*subscriptions: tuple[str, str]) -> RosRobot:
    topics = tuple(RosTopic("rover_1", 0, f"/rover_1/{local}", kind, "", local)
                   for local, kind in subscriptions)
    return RosRobot("rover_1", 0, "/rover_1", ("/rover_1/base",), (), topics)


def test_cmd_vel_first_then_a_controller_s_own() -> None:
    chosen = velocity_input(robot(("diff_drive_controller/cmd_vel", STAMPED),
                                  ("cmd_vel", TWIST)))
    assert chosen is not None and chosen.local == "cmd_vel"
    chosen = velocity_input(robot(("diff_drive_controller/cmd_vel", STAMPED),
                                  ("cmd_vel_joy", TWIST)))
    assert chosen is not None and chosen.local == "diff_drive_controller/cmd_vel"


def test_none_when_it_has_no_twist_input_or_cannot_tell_which() -> None:
    assert velocity_input(robot(("cmd_vel", "std_msgs/msg/String"))) is None
    assert velocity_input(robot(("a/cmd_vel", TWIST), ("b/cmd_vel", TWIST))) is None


def test_a_chosen_input_is_the_only_one_driven() -> None:
    mux = robot(("cmd_vel", TWIST), ("cmd_vel_teleop", STAMPED), ("cmd_vel_nav", TWIST))
    chosen = velocity_input(mux, "cmd_vel_teleop")
    assert chosen is not None and chosen.name == "/rover_1/cmd_vel_teleop"
    by_full_name = velocity_input(mux, "/rover_1/cmd_vel_nav")
    assert by_full_name is not None and by_full_name.local == "cmd_vel_nav"
    # chosen but not on the robot (renamed, not started yet): none, never cmd_vel instead
    assert velocity_input(mux, "joy_vel") is None


def test_the_inputs_offered_and_the_one_the_rule_takes() -> None:
    mux = robot(("cmd_vel_teleop", TWIST), ("cmd_vel_nav", TWIST),
                ("odom", "nav_msgs/msg/Odometry"))
    assert velocity_inputs(mux, None) == VelocityInputs(("cmd_vel_nav", "cmd_vel_teleop"), None,
                                                        None)
    plain = robot(("cmd_vel", TWIST))
    assert velocity_inputs(plain, "x") == VelocityInputs(("cmd_vel",), "x", "cmd_vel")
    assert velocity_inputs(None, "x") == VelocityInputs((), "x", None)


def test_a_choice_is_kept_in_the_config_dir(tmp_path: Path) -> None:
    assert saved_velocity_inputs(tmp_path) == {}
    remember_velocity_input(tmp_path, "rover_1", "cmd_vel_teleop")
    remember_velocity_input(tmp_path, "rover_2", "joy_vel")
    remember_velocity_input(tmp_path, "rover_2", None)
    assert saved_velocity_inputs(tmp_path) == {"rover_1": "cmd_vel_teleop"}
    (tmp_path / FILE_NAME).write_text('{"rover_1": 3, "rover_2": "cmd_vel"}')
    assert saved_velocity_inputs(tmp_path) == {"rover_2": "cmd_vel"}  # a bad entry: left out
    (tmp_path / FILE_NAME).write_text("not json")
    assert saved_velocity_inputs(tmp_path) == {}
