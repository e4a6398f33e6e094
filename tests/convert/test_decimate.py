"""Voxel decimation: one point per occupied cube, attributes kept with their points."""

from __future__ import annotations

import numpy as np

from app.convert.decimate import voxel_decimated
from app.convert.models import Boxes, PointCloud, Scene


def grid_cloud(step: float = 0.1) -> PointCloud:
    axis = np.arange(0.0, 1.0, step) + step / 2
    xyz = np.stack(np.meshgrid(axis, axis, axis, indexing="ij"), -1).reshape(-1, 3)
    n = len(xyz)
    return PointCloud(xyz.astype(np.float32), np.arange(n, dtype=np.float32),
                      rgb=np.tile(np.array([[1, 2, 3]], np.uint8), (n, 1)))


def test_a_dense_cube_keeps_one_point_per_voxel() -> None:
    cloud = grid_cloud()  # 1000 points in a 1 m cube
    kept = voxel_decimated(cloud, 0.5)
    assert len(kept) == 8
    cells = {tuple(c) for c in np.floor(kept.xyz / 0.5).astype(int)}
    assert len(cells) == 8  # one in each half-metre cube
    index = kept.intensity.astype(int)  # intensities travel with their points
    assert np.allclose(kept.xyz, cloud.xyz[index]) and (kept.rgb == [1, 2, 3]).all()
    assert (np.diff(index) > 0).all()  # in the cloud's own order


def test_a_small_voxel_keeps_every_point_and_other_models_pass_through() -> None:
    cloud = grid_cloud()
    assert len(voxel_decimated(cloud, 0.05)) == len(cloud)
    boxes = Boxes(())
    scene = voxel_decimated(Scene((cloud, boxes)), 0.5)
    assert len(scene.parts[0]) == 8 and scene.parts[1] is boxes
    empty = PointCloud(np.empty((0, 3), np.float32))
    assert voxel_decimated(empty, 0.5) is empty
