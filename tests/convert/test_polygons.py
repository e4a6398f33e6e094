"""Polygon triangulation: ear-clipping with holes, and what a bad polygon still gives."""

from __future__ import annotations

import numpy as np
import pytest

from app.convert.polygons import triangulate


def _area(points: np.ndarray, triangles) -> float:
    total = 0.0
    for a, b, c in triangles:
        (ax, ay), (bx, by), (cx, cy) = points[a], points[b], points[c]
        cross = (bx - ax) * (cy - ay) - (by - ay) * (cx - ax)
        assert cross > 0  # counter-clockwise
        total += cross / 2
    return total


def test_triangulation_covers_the_polygon_minus_its_holes() -> None:
    outer = np.array([[0, 0], [4, 0], [4, 4], [0, 4]], float)
    hole = np.array([[1, 1], [1, 3], [3, 3], [3, 1]], float)
    assert _area(np.concatenate([outer, hole]), triangulate(outer, [hole])) == 12.0
    concave = np.array([[0, 2], [1, 1], [2, 2], [2, 0], [0, 0]], float)  # clockwise
    assert _area(concave, triangulate(concave, [])) == pytest.approx(3.0)


def test_self_intersecting_polygon_does_not_fail() -> None:
    bowtie = np.array([[0, 0], [2, 2], [2, 0], [0, 2]], float)
    for a, b, c in triangulate(bowtie, []):
        assert {a, b, c} <= {0, 1, 2, 3}
