"""Display models drawn for real: a known cloud, box and skeleton, through the scene's
adapters and the 3D view under a fixed camera (Mesa under Xvfb), pixels read back."""

from __future__ import annotations

import numpy as np
import pytest

from app.convert.models import Box, Boxes, PointCloud, Skeleton, Skeletons
from app.scene.layers import SceneModel
from widgets.scene_view import SceneView

pytestmark = [pytest.mark.gl,
              pytest.mark.filterwarnings("ignore:.*QMouseEvent.pos:DeprecationWarning")]
RED = (1.0, 0.0, 0.0, 1.0)


def draw(view: SceneView, model: object) -> np.ndarray:
    """The model as a layer of a scene whose fixed frame is the layer's own, drawn."""
    scene = SceneModel()
    layer = scene.layer("fleet/r1/x", "r1", "t", "c")
    layer.style.color = RED
    scene.take(layer, model, 1, "")
    for group in scene.groups(layer, "r1/base_link"):
        target = view.group(group.group_id)
        target.set_matrix(group.matrix)
        d = group.drawables
        if d.points is not None:
            target.set_points(d.points, 1, d.point_values, d.point_rgb)
            target.set_point_style("flat", RED, 4.0, None)
        segments = d.merged_segments()
        if segments is not None:
            target.set_segments(*segments, version=1, width=3.0)
    return view.render_image()


def drawn_at(view: SceneView, image: np.ndarray, points: np.ndarray, radius: int = 3) -> bool:
    """Whether each 3D point has red pixels within ``radius`` of where it projects."""
    red = (image[..., 0] > 150) & (image[..., 1] < 90) & (image[..., 2] < 90)
    for x, y in view.project(np.asarray(points, dtype=float)):
        col, row = round(x), round(y)
        if not red[max(row - radius, 0):row + radius + 1,
                   max(col - radius, 0):col + radius + 1].any():
            return False
    return True


def test_a_known_cloud_appears_where_it_is(view: SceneView) -> None:
    xyz = np.array([[4.0, 2.0, 0.0], [4.0, -2.0, 0.0], [-3.0, 0.0, 1.0]], np.float32)
    image = draw(view, PointCloud(xyz))
    assert drawn_at(view, image, xyz)
    assert not drawn_at(view, image, [[0.0, 4.0, 3.0]])  # and not elsewhere


def test_a_box_shows_its_corners_and_not_its_inside(view: SceneView) -> None:
    box = Box((2.0, 0.0, 1.0), (2.0, 2.0, 2.0), label="crate")
    image = draw(view, Boxes((box,)))
    corners = [[x, y, z] for x in (1.0, 3.0) for y in (-1.0, 1.0) for z in (0.0, 2.0)]
    assert drawn_at(view, image, corners)
    assert not drawn_at(view, image, [[2.0, 0.0, 1.0]], radius=1)  # a wireframe


def test_a_skeleton_shows_its_joints_and_bones(view: SceneView) -> None:
    joints = np.array([[0, 0, 0], [0, 0, 1.5], [0, 1, 2.5], [0, -1, 2.5]], np.float32)
    bones = np.array([[0, 1], [1, 2], [1, 3]], np.int32)
    image = draw(view, Skeletons((Skeleton(joints, bones),)))
    midpoints = (joints[bones[:, 0]] + joints[bones[:, 1]]) / 2
    assert drawn_at(view, image, joints) and drawn_at(view, image, midpoints)
    assert not drawn_at(view, image, [[0.0, 0.0, 3.5]])
