"""Goals picked in the 3D view: which command a robot takes them as, the command itself in
the robot's frame, and what the robot made of it (Qt-free).

A goal is picked on the ground of the fixed frame. It is sent as fleet ``Command.goTo``
(a ``Pose3`` in the robot's local frame, or a geodetic ``Pose`` when it was picked in the
earth frame) or as an isaac ``Goal2Proto`` in the robot's local frame, whichever the robot's
catalog lists first; fleet ``goTo`` when the robot serves no catalog.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from app.bus.catalog import Catalog
from app.bus.keys import DEFAULT_ROOT, command_key
from app.bus.publisher import Traffic
from app.codec.registry import registry
from app.scene.frames import EARTH, TransformTree
from app.scene.geo import from_enu
from app.station.vitals import RobotVitals
from app.teleop.adapters import Outgoing

FLEET_COMMAND = "fleet.Command"
GOAL2 = "isaac.Goal2Proto"
ENDED = ("aborted", "error", "blocked", "paused")


class GoalError(ValueError):
    """A goal that cannot be sent; the message says why, for the operator."""


@dataclass(frozen=True)
class Goal:
    """A goal on the ground (z = 0) of ``frame``, heading ``yaw`` (rad, from +x, CCW)."""

    frame: str
    x: float
    y: float
    yaw: float


@dataclass(frozen=True)
class GoalRoute:
    """How one robot takes goals: ``member`` "goTo" (fleet) or "goal2" (isaac)."""

    member: str
    key: str
    type_name: str


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


def goal_in(goal: Goal, tree: TransformTree, frame: str) -> tuple[float, float, float, float]:
    """(x, y, z, yaw) of the goal in ``frame``; GoalError when the tree cannot place it."""
    try:
        matrix = tree.lookup(frame, goal.frame).matrix
    except LookupError as exc:
        raise GoalError(f"cannot place the goal in {frame}: {exc}") from exc
    point = matrix @ np.array([goal.x, goal.y, 0.0, 1.0])
    ahead = matrix[:3, :3] @ np.array([math.cos(goal.yaw), math.sin(goal.yaw), 0.0])
    yaw = math.atan2(ahead[1], ahead[0]) if math.hypot(ahead[0], ahead[1]) > 1e-9 else 0.0
    values = (float(point[0]), float(point[1]), float(point[2]), yaw)
    if not all(math.isfinite(v) for v in values):
        raise GoalError(f"the goal is not finite in {frame}")
    return values


def heading_deg(yaw: float) -> float:
    """East-north-up yaw (rad, from east, CCW) as a compass heading (deg, from north, CW)."""
    return (90.0 - math.degrees(yaw)) % 360.0


def goal_order(robot_id: str, goal: Goal, route: GoalRoute, tree: TransformTree,
               local_frame: str, datum: tuple[float, float, float] | None,
               seq: int) -> GoalOrder:
    """The command that sends ``goal`` to the robot. ``local_frame`` is the robot's local
    frame, namespaced (``rover-1/world``); ``datum`` the earth frame's (lon, lat, alt)."""
    if route.member == "goal2":
        x, y, _, yaw = goal_in(goal, tree, local_frame)
        message = registry().struct(GOAL2).new_message()
        pose = message.init("goal")
        pose.translation.x, pose.translation.y = x, y
        pose.rotation.q.x, pose.rotation.q.y = math.cos(yaw), math.sin(yaw)
        message.goalFrame = local_frame.rsplit("/", 1)[-1]
        text = _local_text(x, y, yaw, local_frame)
        return GoalOrder(Outgoing(route.key, GOAL2, message.to_bytes(), Traffic.COMMAND),
                         None, text)
    command = registry().struct(FLEET_COMMAND).new_message()
    command.robotId, command.unixTimeMs, command.seq = robot_id, time.time_ns() // 10**6, seq
    go_to = command.init("goTo")
    if goal.frame == EARTH:
        if datum is None:
            raise GoalError("the earth frame has no datum yet")
        lon, lat, alt = (float(v) for v in from_enu(np.array([[goal.x, goal.y, 0.0]]),
                                                    datum)[0])
        target = go_to.init("pose")
        target.latDeg, target.lonDeg, target.altitudeM = lat, lon, alt
        target.headingDeg = heading_deg(goal.yaw)
        text = f"{lat:.7f}°, {lon:.7f}°, heading {target.headingDeg:.0f}°"
    else:
        x, y, z, yaw = goal_in(goal, tree, local_frame)
        pose3 = go_to.init("pose3")
        pose3.x, pose3.y, pose3.z = x, y, z
        pose3.qz, pose3.qw = math.sin(yaw / 2), math.cos(yaw / 2)
        text = _local_text(x, y, yaw, local_frame)
    return GoalOrder(Outgoing(route.key, FLEET_COMMAND, command.to_bytes(), Traffic.COMMAND),
                     seq, text)


def _local_text(x: float, y: float, yaw: float, frame: str) -> str:
    return f"x {x:.2f} m, y {y:.2f} m, heading {math.degrees(yaw):.0f}° in {frame}"


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
