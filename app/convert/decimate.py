"""Voxel decimation of point clouds, for slow GPUs: one point per occupied voxel."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from app.convert.models import PointCloud, Scene

if TYPE_CHECKING:
    from app.convert.registry import DisplayModel

MIN_VOXEL_M = 0.01


def voxel_decimated(model: DisplayModel, voxel_m: float) -> DisplayModel:
    """``model`` with every point cloud in it kept to its first point per ``voxel_m`` cube
    (other models are returned as they are)."""
    if isinstance(model, PointCloud):
        return _cloud(model, max(voxel_m, MIN_VOXEL_M))
    if isinstance(model, Scene):
        return Scene(tuple(_part(part, voxel_m) for part in model.parts))
    return model


def _part(part: object, voxel_m: float) -> object:
    """A scene's part, decimated as :func:`voxel_decimated` does a model."""
    return voxel_decimated(part, voxel_m) if isinstance(part, PointCloud | Scene) else part


def _cloud(cloud: PointCloud, voxel_m: float) -> PointCloud:
    if len(cloud.xyz) < 2:
        return cloud
    cells = np.floor(cloud.xyz / np.float32(voxel_m)).astype(np.int64)
    cells -= cells.min(axis=0)
    span = cells.max(axis=0) + 1
    keys = (cells[:, 0] * span[1] + cells[:, 1]) * span[2] + cells[:, 2]
    _, first = np.unique(keys, return_index=True)
    first.sort()  # keep the cloud's own order (scan lines stay scan lines)
    return dataclasses.replace(
        cloud, xyz=cloud.xyz[first],
        intensity=cloud.intensity[first] if cloud.intensity is not None else None,
        rgb=cloud.rgb[first] if cloud.rgb is not None else None)
