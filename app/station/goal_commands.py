"""Goals as commands: which command a robot takes a goal as, the command itself, and what
the robot made of it (Qt-free). Where the goal is (the robot's local frame, or the earth) is
the 3D scene's business: ``app.scene.goals.goal_pose``.

A goal is sent as fleet ``Command.goTo`` (a ``Pose3`` in the robot's local frame, or a
geodetic ``Pose`` when it was picked in the earth frame) or as an isaac ``Goal2Proto`` in the
robot's local frame, whichever the robot's catalog lists first; fleet ``goTo`` when the
robot serves no catalog.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from app.bus.catalog import Catalog
from app.bus.keys import DEFAULT_ROOT, command_key
from app.bus.outbox import Outgoing
from app.bus.publisher import Traffic
from app.codec.registry import registry
from app.station.vitals import RobotVitals

FLEET_COMMAND = "fleet.Command"
GOAL2 = "isaac.Goal2Proto"
ENDED = ("aborted", "error", "blocked", "paused")


@dataclass(frozen=True)
class GoalRoute:
    """How one robot takes goals: ``member`` "goTo" (fleet) or "goal2" (isaac)."""

    member: str
    key: str
    type_name: str

    @property
    def geodetic(self) -> bool:
        """Whether it can carry a goal on the earth as latitude and longitude."""
        return self.member == "goTo"


@dataclass(frozen=True)
class LocalGoal:
    """A goal in the robot's local frame (namespaced: ``rover-1/map``)."""

    x: float
    y: float
    z: float
    yaw: float  # rad, from the frame's x axis, counter-clockwise
    frame: str


@dataclass(frozen=True)
class EarthGoal:
    lat_deg: float
    lon_deg: float
    altitude_m: float
    heading_deg: float  # compass: from north, clockwise


@dataclass(frozen=True)
class GoalOrder:
    outgoing: Outgoing
    seq: int | None  # fleet commands carry one; the robot acknowledges it
    text: str  # what was sent, for the operator


def goal_route(robot_id: str, catalog: Catalog | None,
               root: str = DEFAULT_ROOT) -> GoalRoute | None:
    """The first goal command the catalog lists; fleet ``goTo`` when the robot serves no
    catalog; None when its catalog lists no goal command."""
    go_to = GoalRoute("goTo", command_key(robot_id, "goTo", root), FLEET_COMMAND)
    if catalog is None or catalog.discovered:
        return go_to
    for info in catalog.commands:
        if info.type == FLEET_COMMAND and info.key == go_to.key:
            return go_to
        if info.type == GOAL2:
            return GoalRoute("goal2", info.key, GOAL2)
    return None


def goal_order(robot_id: str, goal: LocalGoal | EarthGoal, route: GoalRoute,
               seq: int) -> GoalOrder:
    """The command that sends ``goal`` to the robot (an isaac goal only ever in its local
    frame: see :attr:`GoalRoute.geodetic`)."""
    if route.member == "goal2":
        if not isinstance(goal, LocalGoal):
            raise ValueError("an isaac goal is in the robot's local frame")
        message = registry().struct(GOAL2).new_message()
        pose = message.init("goal")
        pose.translation.x, pose.translation.y = goal.x, goal.y
        pose.rotation.q.x, pose.rotation.q.y = math.cos(goal.yaw), math.sin(goal.yaw)
        message.goalFrame = goal.frame.rsplit("/", 1)[-1]
        return GoalOrder(Outgoing(route.key, GOAL2, message.to_bytes(), Traffic.COMMAND),
                         None, _local_text(goal))
    command = registry().struct(FLEET_COMMAND).new_message()
    command.robotId, command.unixTimeMs, command.seq = robot_id, time.time_ns() // 10**6, seq
    go_to = command.init("goTo")
    if isinstance(goal, EarthGoal):
        target = go_to.init("pose")
        target.latDeg, target.lonDeg, target.altitudeM = (goal.lat_deg, goal.lon_deg,
                                                          goal.altitude_m)
        target.headingDeg = goal.heading_deg
        text = f"{goal.lat_deg:.7f}°, {goal.lon_deg:.7f}°, heading {goal.heading_deg:.0f}°"
    else:
        pose3 = go_to.init("pose3")
        pose3.x, pose3.y, pose3.z = goal.x, goal.y, goal.z
        pose3.qz, pose3.qw = math.sin(goal.yaw / 2), math.cos(goal.yaw / 2)
        text = _local_text(goal)
    return GoalOrder(Outgoing(route.key, FLEET_COMMAND, command.to_bytes(), Traffic.COMMAND),
                     seq, text)


def _local_text(goal: LocalGoal) -> str:
    return (f"x {goal.x:.2f} m, y {goal.y:.2f} m, heading {math.degrees(goal.yaw):.0f}° "
            f"in {goal.frame}")


@dataclass
class GoalTracker:
    """What became of a sent goal, from the robot's vitals: "sent", then "accepted" when
    its status acknowledges the seq, then the mission the robot named active with that
    acknowledgement: "driving", "reached", or how it ended."""

    seq: int | None
    sent_at: float  # time.monotonic()
    state: str = "sent"
    mission_id: str | None = None

    def update(self, vitals: RobotVitals | None, now: float) -> str:
        """The text shown on the marker now."""
        status = vitals.status if vitals else None
        if (self.state == "sent" and self.seq is not None and status is not None
                and status.at >= self.sent_at and status.last_command_seq >= self.seq):
            self.state, self.mission_id = "accepted", status.active_mission
        mission = vitals.mission if vitals else None
        if (self.state != "sent" and self.mission_id and mission is not None
                and mission.mission_id == self.mission_id and mission.at >= self.sent_at):
            if mission.status == "complete":
                self.state = "reached"
            elif mission.status in ENDED:
                self.state = str(mission.status)
                return f"{mission.status}: {mission.message}" if mission.message \
                    else str(mission.status)
            elif mission.status in ("starting", "running"):
                self.state = "driving"
                done = f", {mission.progress:.0%}" if mission.progress is not None else ""
                return f"driving{done}" + (f" · {mission.message}" if mission.message else "")
        age = max(0.0, now - self.sent_at)
        if self.state == "reached":
            return "reached"
        if self.state == "accepted":
            return "accepted (seq acknowledged)"
        if self.state == "sent":
            said = next((m for m in reversed(vitals.messages if vitals else ())
                         if m.at >= self.sent_at and m.level in ("warn", "error")), None)
            if said is not None:
                return f"sent {age:.0f} s ago · {said.text}"
            return "sent" if age < 1.0 else f"sent {age:.0f} s ago"
        return self.state
