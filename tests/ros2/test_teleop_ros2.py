"""A ROS 2 robot driven from a (virtual) game controller, under the same arming machine:
Twists on its rmw_zenoh cmd_vel while the deadman is held, and zero Twists on every way of
losing control. The robot (another process) reports each Twist it heard."""

from __future__ import annotations

import math
import os
import struct
import time
from collections.abc import Callable, Iterator

import pytest

from app.bus.config import BusConfig
from app.bus.session import BusSession
from app.station.goal_commands import GOAL2, LocalGoal, goal_order, goal_route
from app.station.station import Station
from app.teleop.arming import Arming
from app.teleop.session import TeleopSession
from tests.bus.helpers import wait_for
from tests.conftest import free_port
from tests.inputs.virtual_gamepad import VirtualGamepad
from tests.ros2_robot import Ros2RobotProcess
from tests.teleop.test_session_e2e import wait_held

pytestmark = pytest.mark.slow
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
ROBOT = "rover_1"


@pytest.fixture
def robot(free_endpoint: str, request: pytest.FixtureRequest) -> Iterator[Ros2RobotProcess]:
    """The ROS 2 robot; ``"stamped"`` as the fixture's parameter: its cmd_vel a TwistStamped."""
    stamped = getattr(request, "param", "") == "stamped"
    with Ros2RobotProcess(free_endpoint, ROBOT, stamped=stamped) as robot:
        yield robot


@pytest.fixture
def station_endpoint() -> str:
    """Where the station listens too: a test's bare session hears it there."""
    return f"tcp/127.0.0.1:{free_port()}"


@pytest.fixture
def station(robot: Ros2RobotProcess, free_endpoint: str, station_endpoint: str
            ) -> Iterator[Station]:
    station = Station(BusConfig(mode="peer", connect=[free_endpoint], listen=[station_endpoint]))
    try:
        wait_for(lambda: (r := station.robot(ROBOT)) is not None and r.catalog is not None
                 and r.catalog.commands, 15)
        yield station
    finally:
        station.close()


@pytest.fixture
def session(station: Station) -> Iterator[TeleopSession]:
    session = TeleopSession(station)
    session.select(ROBOT)
    try:
        yield session
    finally:
        session.close()


def drive(session: TeleopSession, pad: VirtualGamepad, robot: Ros2RobotProcess) -> None:
    pad.set_axis("lefty", -1.0)  # forward
    pad.set_axis("rightx", -0.6)  # turn left
    pad.press("leftshoulder")
    # full stick: driving at a good part of its speed (the first commands may ramp up)
    wait_held(session, pad, lambda: robot.twists and robot.twists[-1][0] > 0.2, 5.0)


def stopped_after_moving(robot: Ros2RobotProcess) -> bool:
    twists = list(robot.twists)
    last_moving = max((i for i, t in enumerate(twists) if t != (0.0, 0.0)), default=-1)
    return last_moving >= 0 and len(twists) - last_moving - 1 >= 3


def test_nothing_moves_it_before_the_deadman(robot: Ros2RobotProcess, session: TeleopSession,
                                             pad: VirtualGamepad) -> None:
    pad.set_axis("lefty", -1.0)  # stick forward, no deadman
    wait_for(lambda: session.status().teleop.state is Arming.DISARMED, 3.0)
    assert all(t == (0.0, 0.0) for t in robot.twists)


def test_the_stick_drives_it_forward_and_left_and_the_deadman_stops_it(
        robot: Ros2RobotProcess, station: Station, session: TeleopSession,
        pad: VirtualGamepad) -> None:
    drive(session, pad, robot)
    # forward, and counter-clockwise: left
    wait_held(session, pad, lambda: robot.twists[-1][0] > 0.2 and robot.twists[-1][1] > 0.1,
              3.0)
    # holding the deadman on a free robot took control of it, for every station to see
    assert (info := station.robot(ROBOT)) is not None and info.controlled_here
    pad.release("leftshoulder")
    wait_for(lambda: stopped_after_moving(robot), 3.0)  # a burst of zero Twists
    count = len(robot.twists)
    wait_for(lambda: session.status().teleop.state is not Arming.ARMED, 1.0)
    assert all(t == (0.0, 0.0) for t in robot.twists[count - 3:])


def test_on_the_wire_it_is_what_an_rmw_zenoh_publisher_says(
        robot: Ros2RobotProcess, station: Station, session: TeleopSession, pad: VirtualGamepad,
        open_session: Callable[..., BusSession], free_endpoint: str,
        station_endpoint: str) -> None:
    from rosbags.typesys import Stores, get_typestore

    store = get_typestore(Stores.ROS2_JAZZY)
    wire = open_session(connect=[free_endpoint, station_endpoint])  # what a robot hears
    heard: list[tuple[str, bytes, bytes]] = []
    wire.declare_subscriber(f"0/{ROBOT}/cmd_vel/**", lambda s: heard.append(
        (str(s.key_expr), s.payload.to_bytes(), s.attachment.to_bytes())))
    drive(session, pad, robot)
    wait_for(lambda: len(heard) >= 3, 3.0)
    moving = [h for h in list(heard)
              if store.deserialize_cdr(h[1], "geometry_msgs/msg/Twist").linear.x > 0]
    assert moving  # (a late tick may have made the last a stop: the operator regripped)
    key, _, attachment = moving[-1]
    assert key == (f"0/{ROBOT}/cmd_vel/geometry_msgs::msg::dds_::Twist_/"
                   f"{store.hash_rihs01('geometry_msgs/msg/Twist')}")
    _, sent_ns, gid_size, _ = struct.unpack("<qqB16s", attachment)
    assert gid_size == 16 and abs(sent_ns / 1e9 - time.time()) < 5
    seqs = [struct.unpack("<qqB16s", a)[0] for _, _, a in heard]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))  # one publisher, in order
    assert len({struct.unpack("<qqB16s", a)[3] for _, _, a in heard}) == 1  # one GID
    tokens = [str(r.ok.key_expr) for r in wire.zenoh.liveliness().get(
        f"@ros2_lv/0/*/*/*/MP/%/%/fieldstation_$*/%{ROBOT}%cmd_vel/**")]
    assert len(tokens) == 1  # the station's publisher, in the graph (ros2 topic info)
    assert [r.robot_id for r in station.robots()] == [ROBOT]  # its own node is no robot


def test_a_goal_goes_to_goal_pose_in_the_frame_it_was_picked_in(
        robot: Ros2RobotProcess, station: Station) -> None:
    def route_type() -> str:
        info = station.robot(ROBOT)
        route = goal_route(ROBOT, info.catalog) if info is not None else None
        return route.type_name if route is not None else ""

    wait_for(lambda: route_type() == GOAL2, 5, why=route_type)  # its goal_pose is listed
    info = station.robot(ROBOT)
    assert info is not None
    route = goal_route(ROBOT, info.catalog)
    assert route is not None
    goal = LocalGoal(3.0, -1.0, 0.0, math.pi / 2, f"{ROBOT}/odom")  # as the 3D view picks it
    order = goal_order(ROBOT, goal, route, seq=1)
    assert station.outbox.send([order.outgoing])
    wait_for(lambda: robot.goals, 5)
    x, y, yaw, frame = robot.goals[-1]
    assert (x, y, frame) == (3.0, -1.0, "odom") and yaw == pytest.approx(math.pi / 2)


@pytest.mark.parametrize("robot", ["stamped"], indirect=True)
def test_a_twist_stamped_input_is_driven_in_the_robot_s_body_frame(
        robot: Ros2RobotProcess, session: TeleopSession, pad: VirtualGamepad) -> None:
    drive(session, pad, robot)
    assert robot.stamped_frames[-1] == "base_link"
    pad.release("leftshoulder")
    wait_for(lambda: stopped_after_moving(robot), 3.0)


def test_the_estop_says_stop_at_once(robot: Ros2RobotProcess, session: TeleopSession,
                                     pad: VirtualGamepad) -> None:
    drive(session, pad, robot)
    session.engage_estop()
    wait_for(lambda: session.status().teleop.state is Arming.ESTOP, 2.0)
    wait_for(lambda: stopped_after_moving(robot), 3.0)


def test_a_pad_unplugged_while_driving_ends_in_zero_twists(
        robot: Ros2RobotProcess, session: TeleopSession, pad: VirtualGamepad) -> None:
    drive(session, pad, robot)
    pad.unplug()
    wait_for(lambda: stopped_after_moving(robot), 3.0)


def test_a_robot_that_vanishes_mid_drive_disarms_the_station(
        robot: Ros2RobotProcess, session: TeleopSession, pad: VirtualGamepad) -> None:
    drive(session, pad, robot)
    robot.kill()  # no goodbye: its data stops, its tokens go when zenoh sees the link drop
    wait_for(lambda: session.status().teleop.state is not Arming.ARMED, 3.0)
    reason = session.status().teleop.reason
    # its tokens go one by one: the cmd_vel subscription's may be seen gone first
    assert "offline" in reason or "no data" in reason or "link" in reason or \
        reason == f"{ROBOT} lists no command teleop can drive", reason
