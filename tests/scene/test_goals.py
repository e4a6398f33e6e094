"""Goals picked on the ground: the ray/plane math, and the goal carried into the robot's
frame or onto the earth (the commands that send it: tests/station/test_goal_commands.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.convert.models import Transform
from app.scene.frames import EARTH, TransformTree
from app.scene.geo import from_enu, to_enu
from app.scene.goals import Goal, GoalError, goal_in, goal_pose, heading_deg
from app.scene.ground import ground_point, heading_between
from app.station.goal_commands import EarthGoal, LocalGoal

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


def test_a_goal_goes_onto_the_earth_only_when_picked_there_and_the_command_can_say_so() -> None:
    local = goal_pose(Goal("r/world", 3.0, 0.0, 0.0), tree_with_map(), "r/map", DATUM,
                      geodetic=True)
    assert isinstance(local, LocalGoal) and local.frame == "r/map"
    assert (local.x, local.y, local.yaw) == pytest.approx((10.0, 3.0, math.pi / 2))
    earth = goal_pose(Goal(EARTH, 30.0, -40.0, math.pi / 2), TransformTree(), "r/map", DATUM,
                      geodetic=True)
    assert isinstance(earth, EarthGoal) and earth.heading_deg == pytest.approx(0.0)
    with pytest.raises(GoalError, match="datum"):
        goal_pose(Goal(EARTH, 1, 1, 0), TransformTree(), "r/map", None, geodetic=True)
    with pytest.raises(GoalError, match="r/map"):  # an isaac goal: only in the local frame
        goal_pose(Goal(EARTH, 1, 1, 0), TransformTree(), "r/map", DATUM, geodetic=False)
