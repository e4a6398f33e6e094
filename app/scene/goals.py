"""Goals picked in the 3D view, as geometry (Qt-free): a goal picked on the ground of the
fixed frame, carried into the robot's local frame or onto the earth, where a goal command
says it (``app.station.goal_commands`` builds the command and follows what became of it).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.scene.frames import EARTH, TransformTree
from app.scene.geo import from_enu
from app.station.goal_commands import EarthGoal, LocalGoal


class GoalError(ValueError):
    """A goal that cannot be sent; the message says why, for the operator."""


@dataclass(frozen=True)
class Goal:
    """A goal on the ground (z = 0) of ``frame``, heading ``yaw`` (rad, from +x, CCW)."""

    frame: str
    x: float
    y: float
    yaw: float


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


def goal_pose(goal: Goal, tree: TransformTree, local_frame: str,
              datum: tuple[float, float, float] | None, *,
              geodetic: bool) -> LocalGoal | EarthGoal:
    """Where a command carries ``goal``: on the earth when it was picked there and the
    command can say so (``geodetic``), else in the robot's local frame (namespaced,
    ``rover-1/world``). ``datum``: the earth frame's (lon, lat, alt). GoalError when the
    goal cannot be placed."""
    if geodetic and goal.frame == EARTH:
        if datum is None:
            raise GoalError("the earth frame has no datum yet")
        lon, lat, alt = (float(v) for v in from_enu(np.array([[goal.x, goal.y, 0.0]]),
                                                    datum)[0])
        return EarthGoal(lat, lon, alt, heading_deg(goal.yaw))
    x, y, z, yaw = goal_in(goal, tree, local_frame)
    return LocalGoal(x, y, z, yaw, local_frame)
