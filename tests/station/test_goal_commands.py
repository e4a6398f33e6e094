"""Goals as commands: the command each robot takes, the command itself, and the feedback
shown on the marker (real Cap'n Proto bytes, decoded as a robot would)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.bus.catalog import Catalog, TopicInfo
from app.codec.decode import decode, encoding_for
from app.scene.frames import EARTH, TransformTree
from app.scene.geo import to_enu
from app.scene.goals import Goal, GoalError, goal_pose
from app.station.goal_commands import GoalTracker, goal_order, goal_route
from app.station.vitals import Message, Mission, RobotVitals, Status
from tests.scene.test_goals import tree_with_map

DATUM = (8.5456, 47.3977, 400.0)


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


def test_a_fleet_goal_is_a_pose3_in_the_local_frame_with_the_seq() -> None:
    route = goal_route("r", None)
    assert route is not None
    order = goal_order("r", goal_pose(Goal("r/world", 3.0, 0.0, 0.0), tree_with_map(),
                                      "r/map", None, geodetic=route.geodetic), route, 4242)
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
    order = goal_order("r", goal_pose(Goal(EARTH, east, north, math.pi / 2), TransformTree(),
                                      "r/map", DATUM, geodetic=route.geodetic), route, 7)
    goal = decode(encoding_for("fleet.Command"), order.outgoing.payload).root.goTo
    assert goal.which() == "pose"
    placed = to_enu(np.array([[goal.pose.lonDeg, goal.pose.latDeg, goal.pose.altitudeM]]),
                    DATUM)[0]
    assert placed == pytest.approx([east, north, 0.0], abs=1e-6)
    assert goal.pose.headingDeg == pytest.approx(0.0)  # north
    with pytest.raises(GoalError, match="datum"):
        goal_pose(Goal(EARTH, 1, 1, 0), TransformTree(), "r/map", None, geodetic=route.geodetic)


def test_an_isaac_goal_names_its_frame_and_carries_no_seq() -> None:
    route = goal_route("r", Catalog("r", commands=[TopicInfo("fleet/r/goal",
                                                             "isaac.Goal2Proto")]))
    assert route is not None
    order = goal_order("r", goal_pose(Goal("r/world", 3.0, 0.0, math.pi), tree_with_map(),
                                      "r/map", None, geodetic=route.geodetic), route, 9)
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
