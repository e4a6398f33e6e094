"""The transform tree: chains, time lookup, unconnected frames, robots kept apart."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.convert.models import Transform
from app.scene.frames import FrameError, TransformTree, matrix_of, quaternion_of
from app.scene.geo import to_enu

YAW_90 = (0.0, 0.0, math.sin(math.pi / 4), math.cos(math.pi / 4))


def place(tree: TransformTree, target: str, source: str, point, stamp: float = 0.0):
    m = tree.lookup(target, source, stamp).matrix
    return (m @ np.array([*point, 1.0]))[:3]




def test_a_chain_places_a_point_through_every_frame() -> None:
    tree = TransformTree()
    tree.add(Transform("map", "base_link", (10.0, 0.0, 0.0), YAW_90), "r1")
    tree.add(Transform("base_link", "lidar", (1.0, 0.0, 2.0)), "r1")
    assert place(tree, "r1/map", "r1/lidar", (1.0, 0.0, 0.0)) == pytest.approx((10, 2, 2))
    assert place(tree, "r1/lidar", "r1/map", (10.0, 2.0, 2.0)) == pytest.approx((1, 0, 0))
    assert tree.lookup("r1/base_link", "r1/base_link").exact


def test_frames_of_two_robots_do_not_mix() -> None:
    tree = TransformTree()
    tree.add(Transform("map", "base_link", (1.0, 0.0, 0.0)), "r1")
    tree.add(Transform("map", "base_link", (5.0, 0.0, 0.0)), "r2")
    assert place(tree, "r1/map", "r1/base_link", (0, 0, 0)) == pytest.approx((1, 0, 0))
    assert place(tree, "r2/map", "r2/base_link", (0, 0, 0)) == pytest.approx((5, 0, 0))
    with pytest.raises(FrameError, match="not connected"):
        tree.lookup("r1/map", "r2/base_link")


def test_an_unknown_frame_says_so() -> None:
    tree = TransformTree()
    tree.add(Transform("map", "base_link", (1.0, 0.0, 0.0)), "r1")
    with pytest.raises(FrameError, match="no transform reaches frame 'r1/camera'"):
        tree.lookup("r1/map", "r1/camera")


def test_lookup_at_the_message_time_else_the_latest_with_a_warning() -> None:
    tree = TransformTree()
    for t in range(10):
        tree.add(Transform("odom", "base_link", (float(t), 0.0, 0.0), stamp=100.0 + t), "r")
    at = tree.lookup("r/odom", "r/base_link", 103.1)
    assert at.exact and at.matrix[0, 3] == pytest.approx(3.0)
    late = tree.lookup("r/odom", "r/base_link", 150.0)
    assert not late.exact and late.matrix[0, 3] == pytest.approx(9.0)


def test_bad_transforms_are_refused() -> None:
    tree = TransformTree()
    with pytest.raises(ValueError):
        tree.add(Transform("map", "map", (0.0, 0.0, 0.0)))
    with pytest.raises(ValueError):
        tree.add(Transform("map", "x", (math.nan, 0.0, 0.0)))
    with pytest.raises(ValueError):
        tree.add(Transform("map", "x", (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0)))


def test_quaternion_round_trip() -> None:
    for q in (YAW_90, (0.1, 0.2, 0.3, 0.9), (0.9, -0.1, 0.2, 0.1), (0.0, 1.0, 0.0, 0.0)):
        norm = np.linalg.norm(q)
        back = quaternion_of(matrix_of((0, 0, 0), q)[:3, :3])
        assert np.allclose(back, np.array(q) / norm) or np.allclose(back, -np.array(q) / norm)


def test_geodetic_points_land_in_metres_around_the_datum() -> None:
    datum = (8.0, 47.0, 400.0)
    enu = to_enu(np.array([[8.0, 47.0, 400.0], [8.0, 47.001, 400.0], [8.001, 47.0, 410.0]]),
                 datum)
    assert enu[0] == pytest.approx((0, 0, 0))
    assert enu[1][1] == pytest.approx(111.2, abs=0.3) and abs(enu[1][0]) < 1e-6
    assert enu[2][0] == pytest.approx(76.0, abs=0.3) and enu[2][2] == pytest.approx(10.0)
