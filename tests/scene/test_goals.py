"""Goals picked on the ground: the ray/plane math, the command each robot takes, the goal
in the robot's frame, and the feedback shown on the marker."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.bus.catalog import Catalog, TopicInfo
from app.codec.decode import decode, encoding_for
from app.convert.models import Transform
from app.scene.frames import EARTH, TransformTree
from app.scene.geo import from_enu, to_enu
from app.scene.goals import (
    Goal,
    GoalError,
    GoalTracker,
    goal_in,
    goal_order,
    goal_route,
    heading_deg,
)
from app.scene.ground import ground_point, heading_between
from app.station.vitals import Message, Mission, RobotVitals, Status

DATUM = (8.5456, 47.3977, 400.0)


def test_a_ray_from_above_meets_the_ground_where_it_points() -> None:
    assert ground_point((0, 0, 10), (3, 1, -10)) == pytest.approx((3.0, 1.0))
    assert ground_point((0, 0, 10), (0.3, 0.1, -1.0), height=5.0) == pytest.approx((1.5, 0.5))
    assert ground_point((-20, 0, 10), (1, 0, -0.5)) == pytest.approx((0.0, 0.0))


def test_a_ray_that_never_meets_the_ground_picks_nothing() -> None:
    assert ground_point((0, 0, 10), (1, 0, 0)) is None  # along the horizon
    assert ground_point((0, 0, 10), (1, 0, 0.2)) is None  # into the sky
    assert ground_point((0, 0, -1), (0, 0, -1)) is None  # from below, away from it
    assert ground_point((0, 0, 10), (0, 0, 0)) is None
    assert ground_point((0, math.nan, 10), (0, 0, -1)) is None


@given(st.floats(-50, 50), st.floats(-50, 50), st.floats(0.5, 100), st.floats(-50, 50),
       st.floats(-50, 50))
def test_the_ground_point_lies_on_the_ray_and_the_ground(x: float, y: float, z: float,
                                                         gx: float, gy: float) -> None:
    hit = ground_point((x, y, z), (gx - x, gy - y, -z))
    assert hit is not None and hit == pytest.approx((gx, gy), abs=1e-6)


def test_the_heading_follows_the_drag_and_a_short_drag_sets_none() -> None:
    assert heading_between((1, 1), (1, 3)) == pytest.approx(math.pi / 2)
    assert heading_between((1, 1), (0, 1)) == pytest.approx(math.pi)
    assert heading_between((1, 1), (1.05, 1.05)) is None


@given(st.floats(-3000, 3000), st.floats(-3000, 3000), st.floats(-100, 100))
def test_enu_and_geodetic_round_trip(east: float, north: float, up: float) -> None:
    back = to_enu(from_enu(np.array([[east, north, up]]), DATUM), DATUM)[0]
    assert back == pytest.approx([east, north, up], abs=1e-6)


def test_compass_headings() -> None:
    assert heading_deg(0.0) == pytest.approx(90.0)  # east
    assert heading_deg(math.pi / 2) == pytest.approx(0.0)  # north
    assert heading_deg(-math.pi / 2) == pytest.approx(180.0)  # south


def test_the_command_is_the_one_the_catalog_lists() -> None:
    go_to = TopicInfo("fleet/r/command/go_to", "fleet.Command")
    goal2 = TopicInfo("fleet/r/nav/goal", "isaac.Goal2Proto")
    teleop = TopicInfo("fleet/r/command/teleop", "fleet.Command")
    assert goal_route("r", None).member == "goTo"
    assert goal_route("r", Catalog("r", discovered=True)).member == "goTo"
    assert goal_route("r", Catalog("r", commands=[teleop, go_to, goal2])).key == go_to.key
    route = goal_route("r", Catalog("r", commands=[teleop, goal2, go_to]))
    assert route is not None and (route.member, route.key) == ("goal2", goal2.key)
    assert goal_route("r", Catalog("r", commands=[teleop])) is None


def tree_with_map() -> TransformTree:
    """r/world placed in r/map: 10 m east, turned a quarter turn counter-clockwise."""
    tree = TransformTree()
    tree.add(Transform("map", "world", (10.0, 0.0, 0.0),
                       (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))), "r")
    return tree


def test_a_goal_is_carried_into_another_frame_with_its_heading() -> None:
    x, y, z, yaw = goal_in(Goal("r/world", 3.0, 0.0, 0.0), tree_with_map(), "r/map")
    assert (x, y, z) == pytest.approx((10.0, 3.0, 0.0))
    assert yaw == pytest.approx(math.pi / 2)
    back = goal_in(Goal("r/map", 10.0, 3.0, math.pi / 2), tree_with_map(), "r/world")
    assert back == pytest.approx((3.0, 0.0, 0.0, 0.0), abs=1e-9)
    with pytest.raises(GoalError, match="elsewhere"):
        goal_in(Goal("q/elsewhere", 0, 0, 0), tree_with_map(), "r/map")


def test_a_fleet_goal_is_a_pose3_in_the_local_frame_with_the_seq() -> None:
    route = goal_route("r", None)
    assert route is not None
    order = goal_order("r", Goal("r/world", 3.0, 0.0, 0.0), route, tree_with_map(), "r/map",
                       None, 4242)
    out = order.outgoing
    assert (out.key, out.type_name, order.seq) == ("fleet/r/command/go_to", "fleet.Command",
                                                  4242)
    command = decode(encoding_for("fleet.Command"), out.payload).root
    assert command.which() == "goTo" and command.robotId == "r" and command.seq == 4242
    pose = command.goTo.pose3
    assert command.goTo.which() == "pose3"
    assert (pose.x, pose.y, pose.z) == pytest.approx((10.0, 3.0, 0.0))
    assert 2 * math.atan2(pose.qz, pose.qw) == pytest.approx(math.pi / 2)
    assert "in r/map" in order.text


def test_a_goal_picked_on_the_earth_is_geodetic() -> None:
    route = goal_route("r", None)
    assert route is not None
    east, north = 30.0, -40.0
    order = goal_order("r", Goal(EARTH, east, north, math.pi / 2), route, TransformTree(),
                       "r/map", DATUM, 7)
    goal = decode(encoding_for("fleet.Command"), order.outgoing.payload).root.goTo
    assert goal.which() == "pose"
    placed = to_enu(np.array([[goal.pose.lonDeg, goal.pose.latDeg, goal.pose.altitudeM]]),
                    DATUM)[0]
    assert placed == pytest.approx([east, north, 0.0], abs=1e-6)
    assert goal.pose.headingDeg == pytest.approx(0.0)  # north
    with pytest.raises(GoalError, match="datum"):
        goal_order("r", Goal(EARTH, 1, 1, 0), route, TransformTree(), "r/map", None, 8)


def test_an_isaac_goal_names_its_frame_and_carries_no_seq() -> None:
    route = goal_route("r", Catalog("r", commands=[TopicInfo("fleet/r/goal",
                                                             "isaac.Goal2Proto")]))
    assert route is not None
    order = goal_order("r", Goal("r/world", 3.0, 0.0, math.pi), route, tree_with_map(),
                       "r/map", None, 9)
    assert order.seq is None and order.outgoing.key == "fleet/r/goal"
    goal = decode(encoding_for("isaac.Goal2Proto"), order.outgoing.payload).root
    assert goal.goalFrame == "map" and not goal.stopRobot
    t, q = goal.goal.translation, goal.goal.rotation.q
    assert (t.x, t.y) == pytest.approx((10.0, 3.0))
    assert math.atan2(q.y, q.x) == pytest.approx(-math.pi / 2)


def vitals(status: Status | None = None, mission: Mission | None = None,
           messages: tuple[Message, ...] = ()) -> RobotVitals:
    return RobotVitals("r", status=status, mission=mission, messages=messages)


def status(seq: int, at: float, mission: str | None = None) -> Status:
    return Status("auto", False, "", 1.0, seq, mission, at)


def mission(state: str, at: float, progress: float = 0.5) -> Mission:
    return Mission("goto-5", "Go to", state, 0, 1, progress, None, "2.0 m to go", at)


def test_the_marker_follows_the_goal_from_sent_to_reached() -> None:
    tracker = GoalTracker(5, sent_at=100.0)
    assert tracker.update(None, 100.2) == "sent"
    assert tracker.update(vitals(status(5, 99.0)), 103.0) == "sent 3 s ago"  # an old status
    assert tracker.update(vitals(status(4, 101.0)), 103.0) == "sent 3 s ago"  # not ours yet
    old = mission("running", 99.0)
    assert tracker.update(vitals(status(5, 101.0, "goto-5"), old), 103.0) == \
        "accepted (seq acknowledged)"
    assert tracker.update(vitals(status(5, 101.0, "goto-5"), mission("running", 102.0)),
                          103.0) == "driving, 50% · 2.0 m to go"
    assert tracker.update(vitals(status(5, 104.0), mission("complete", 104.0, 1.0)),
                          105.0) == "reached"
    assert tracker.update(vitals(status(5, 106.0)), 110.0) == "reached"


def test_another_mission_and_a_refusal_are_not_taken_for_the_goal() -> None:
    tracker = GoalTracker(5, sent_at=100.0)
    tracker.update(vitals(status(5, 101.0, "goto-5")), 101.0)
    other = Mission("patrol", "Patrol", "complete", 0, 1, 1.0, None, "", 102.0)
    assert tracker.update(vitals(status(5, 102.0), other), 102.0) == \
        "accepted (seq acknowledged)"
    assert tracker.update(vitals(status(5, 102.0), mission("aborted", 103.0)), 103.0) == \
        "aborted: 2.0 m to go"
    refused = GoalTracker(9, sent_at=100.0)
    said = Message("warn", "Go-to refused: e-stop engaged", 0, 100.5)
    assert refused.update(vitals(status(8, 100.5), messages=(said,)), 102.0) == \
        "sent 2 s ago · Go-to refused: e-stop engaged"
