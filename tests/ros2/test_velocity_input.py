"""Which subscription of a ROS 2 robot teleop drives."""

from __future__ import annotations

from app.ros2.graph import RosRobot, RosTopic
from app.ros2.source import velocity_input

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
