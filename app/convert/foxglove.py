"""Foxglove visualisation schemas (seed 003) -> 3D-scene display models.

Every foxglove message names its frame (``frameId``) and time (``timestamp``); both become
the model's ``frame_id`` and ``stamp``. Choices where the seed leaves room:

- Quaternions: all zeros (an unset ``orientation``) is the identity; others are normalised.
- ``PointCloud``: x/y/z/intensity are read through a numpy structured view of ``data`` (no
  copy; x, y, z as consecutive float32 stay a view). At least two of x, y, z are needed (a
  missing one is 0). Colour from ``red``/``green``/``blue`` fields (seed; uint8 as is, other
  integers clipped to 0..255, floats 0..1), else a packed 4-byte ``rgba`` (0xRRGGBBAA) or
  ``rgb`` (0x00RRGGBB, ROS/PCL) field. The message's ``pose`` places the cloud in
  ``frameId``: when it is not the identity the points are transformed by it (one pass,
  float32), so the model holds points in ``frameId``.
- ``LaserScan``: ``ranges`` at equal steps from ``startAngle`` to ``endAngle``; ranges that
  are not finite or not > 0 are dropped (counted); the scan's ``pose`` is applied as for
  clouds.
- ``Grid``: the values are the first field with a known numeric type that is not a colour
  channel (``red``/``green``/``blue``/``alpha``), else the first colour channel; not-finite
  values become NaN; ``value_range`` is the finite values' min..max.
- ``SceneUpdate``: entities keep id, frame, stamp, lifetime (non-positive: until replaced) and
  their metadata as the click label. A model primitive is never loaded: its URL is not
  fetched (nothing received from the wire is fetched or run) and embedded mesh data is not
  parsed. In its place a text at its pose says ``model not loaded: <url>`` (or ``embedded
  <media type> (<n> bytes)``), and the click label lists the same. Structural errors
  (per-point colours or indices that do not match the points, an index out of range, a
  triangle list that is not whole triangles) refuse the whole update; a primitive with a
  non-finite pose, size or point is left out and the rest kept. Deletions: ``MATCHING_ID``
  -> ``deletions``, ``ALL`` -> ``delete_all``; their timestamps are not used, and a deletion
  type this schema does not know is ignored.
- Lists of items (``FrameTransforms``, ``PosesInFrame``): an item that is not finite is left
  out; if that leaves none, the message is refused. A single pose or transform that is not
  finite is refused.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from app.codec.data_view import data_array
from app.codec.decode import DecodedMessage
from app.codec.fields import enum_value
from app.convert.capnp_data import (
    finite_rows,
    guarded,
    list_array,
    stamp_of,
    to_rgb8,
    unit_quaternion,
)
from app.convert.models import (
    IDENTITY,
    Grid,
    PointCloud,
    Poses,
    Primitive,
    SceneChange,
    SceneEntity,
    Transform,
    Transforms,
)
from app.convert.registry import ConversionError, converter

Pose7 = tuple[float, float, float, float, float, float, float]
IDENTITY_POSE: Pose7 = (0.0, 0.0, 0.0, *IDENTITY)

# foxglove.NumericType enumerant number -> little-endian numpy dtype (0 is "unknown").
NUMERIC_DTYPES: dict[int, np.dtype] = {
    1: np.dtype("<u1"),  # uint8
    2: np.dtype("<i1"),  # int8
    3: np.dtype("<u2"),  # uint16
    4: np.dtype("<i2"),  # int16
    5: np.dtype("<u4"),  # uint32
    6: np.dtype("<i4"),  # int32
    7: np.dtype("<f4"),  # float32
    8: np.dtype("<f8"),  # float64
}
COLOUR_CHANNELS = ("red", "green", "blue", "alpha")
LINE_KINDS = {0: "line_strip", 1: "line_loop", 2: "lines"}  # foxglove.LineType
MODEL_URL_SHOWN = 200  # characters of a model's URL shown; the rest is cut
MODEL_PLACEHOLDER_RGBA = (1.0, 0.75, 0.3, 1.0)  # amber: something here was not loaded


# -- small pieces -----------------------------------------------------------------------------
def _pose(pose: Any) -> Pose7:
    """A foxglove ``Pose`` as (x, y, z, qx, qy, qz, qw); may be not finite."""
    p = pose.position
    return (float(p.x), float(p.y), float(p.z), *unit_quaternion(pose.orientation))


def _finite(values: Sequence[float]) -> bool:
    return all(math.isfinite(v) for v in values)


def _vec3(v: Any) -> tuple[float, float, float]:
    return (float(v.x), float(v.y), float(v.z))


def _unit(value: float) -> float:
    return min(max(value, 0.0), 1.0) if value == value else 0.0  # NaN -> 0


def _color(c: Any) -> tuple[float, float, float, float]:
    return (_unit(float(c.r)), _unit(float(c.g)), _unit(float(c.b)), _unit(float(c.a)))


def rotation_matrix(q: Sequence[float]) -> np.ndarray:
    """3x3 matrix of unit quaternion (x, y, z, w)."""
    return rotation_matrices(np.array([q], float))[0]


def rotation_matrices(quaternions: np.ndarray) -> np.ndarray:
    """(N, 4) unit quaternions (x, y, z, w) -> (N, 3, 3) matrices."""
    x, y, z, w = np.asarray(quaternions, float).T
    return np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                     2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                     2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
                    axis=1).reshape(-1, 3, 3)


def _placed(xyz: np.ndarray, pose: Pose7) -> np.ndarray:
    """Points (N, 3) in the pose's frame -> in the frame the pose is given in (float32).
    Column by column: a (N, 3) @ (3, 3) product goes through BLAS and is slower."""
    if pose == IDENTITY_POSE:
        return xyz
    t = np.array(pose[:3], np.float32)
    if pose[3:] == IDENTITY:
        return xyz + t
    r = rotation_matrix(pose[3:]).astype(np.float32)
    x, y, z = xyz[:, 0], xyz[:, 1], xyz[:, 2]
    out = np.empty((len(xyz), 3), np.float32)
    for i in range(3):
        column = out[:, i]
        np.multiply(x, r[i, 0], out=column)
        column += y * r[i, 1]
        column += z * r[i, 2]
        column += t[i]
    return out


def _frame_pose(root: Any, what: str) -> Pose7:
    pose = _pose(root.pose)
    if not _finite(pose):
        raise ConversionError(f"{what} pose is not finite")
    return pose


# -- transforms and poses ---------------------------------------------------------------------
def _transform(item: Any) -> Transform | None:
    """A ``FrameTransform``; None when it is not finite. Both frame names are required."""
    parent, child = item.parentFrameId, item.childFrameId
    if not parent or not child:
        raise ConversionError("frame transform without both frame names "
                              f"(parent {parent!r}, child {child!r})")
    translation = _vec3(item.translation)
    rotation = unit_quaternion(item.rotation)
    if not (_finite(translation) and _finite(rotation)):
        return None
    return Transform(parent, child, translation, rotation, stamp_of(item.timestamp))


@converter("foxglove.frame_transform", "foxglove.FrameTransform")
@guarded
def frame_transform(decoded: DecodedMessage) -> Transforms:
    transform = _transform(decoded.root)
    if transform is None:
        raise ConversionError("frame transform is not finite")
    return Transforms((transform,))


@converter("foxglove.frame_transforms", "foxglove.FrameTransforms")
@guarded
def frame_transforms(decoded: DecodedMessage) -> Transforms:
    items = decoded.root.transforms
    found = [_transform(item) for item in items]
    kept = tuple(t for t in found if t is not None)
    if len(items) and not kept:
        raise ConversionError(f"none of the {len(items)} frame transforms is finite")
    return Transforms(kept)


@converter("foxglove.pose_in_frame", "foxglove.PoseInFrame")
@guarded
def pose_in_frame(decoded: DecodedMessage) -> Poses:
    root = decoded.root
    pose = _frame_pose(root, "the")
    return Poses(np.array([pose], np.float64), root.frameId, stamp=stamp_of(root.timestamp))


@converter("foxglove.poses_in_frame", "foxglove.PosesInFrame")
@guarded
def poses_in_frame(decoded: DecodedMessage) -> Poses:
    root = decoded.root
    rows = [_pose(pose) for pose in root.poses]
    kept = [row for row in rows if _finite(row)]
    if rows and not kept:
        raise ConversionError(f"none of the {len(rows)} poses is finite")
    return Poses(np.array(kept, np.float64).reshape(len(kept), 7), root.frameId,
                 stamp=stamp_of(root.timestamp))


# -- packed fields ----------------------------------------------------------------------------
def _fields(root: Any) -> dict[str, tuple[int, int]]:
    """name -> (offset, NumericType number) of each packed field (the first of a name)."""
    out: dict[str, tuple[int, int]] = {}
    for item in root.fields:
        out.setdefault(item.name, (int(item.offset), item.type.raw))
    return out


def _field_dtype(name: str, offset: int, number: int, element: int, what: str) -> np.dtype:
    dtype = NUMERIC_DTYPES.get(number)
    if dtype is None:
        kind = "unknown" if number == 0 else f"number {number}"
        raise ConversionError(f"field {name!r} has numeric type {kind}")
    if offset + dtype.itemsize > element:
        raise ConversionError(f"field {name!r} ({dtype.name} at offset {offset}) does not fit "
                              f"in a {element}-byte {what}")
    return dtype


def _column(data: np.ndarray, count: int, stride: int, offset: int,
            dtype: np.dtype) -> np.ndarray:
    """Field values of ``count`` packed elements: a strided view of ``data``, no copy."""
    return np.ndarray((count,), dtype, buffer=data, offset=offset, strides=(stride,))


# -- point clouds -----------------------------------------------------------------------------
@converter("foxglove.point_cloud", "foxglove.PointCloud")
@guarded
def point_cloud(decoded: DecodedMessage) -> PointCloud:
    root = decoded.root
    stride = int(root.pointStride)
    data = data_array(root, "data")
    if not len(data) and decoded.buffers:  # the points in the attachment (schemas/README.md)
        data = np.frombuffer(decoded.buffer(0), np.uint8)
    fields = _fields(root)
    if stride == 0:
        if len(data):
            raise ConversionError("pointStride is 0")
        stride = 1
    if len(data) % stride:
        raise ConversionError(f"data of {len(data)} bytes is not a whole number of "
                              f"{stride}-byte points")
    count = len(data) // stride
    used = [name for name in ("x", "y", "z") if name in fields]
    if len(used) < 2:
        raise ConversionError(f"point fields {sorted(fields)} hold fewer than 2 of x, y, z")
    dtypes = {name: _field_dtype(name, *fields[name], stride, "point") for name in fields
              if name in ("x", "y", "z", "intensity", "red", "green", "blue", "rgb", "rgba")}
    pose = _frame_pose(root, "point cloud")
    if count == 0:
        return PointCloud(np.empty((0, 3), np.float32), None, root.frameId,
                          stamp=stamp_of(root.timestamp))
    xyz = _xyz(data, count, stride, fields, dtypes)
    intensity = None
    if "intensity" in dtypes:
        column = _column(data, count, stride, fields["intensity"][0], dtypes["intensity"])
        intensity = column.astype(np.float32, copy=False)
    rgb = _packed_rgb(data, count, stride, fields, dtypes)
    finite = finite_rows(xyz, _float_words(data, stride, fields))
    dropped = 0 if finite is None else count - int(np.count_nonzero(finite))
    if finite is not None:
        xyz = xyz[finite]
        intensity = intensity[finite] if intensity is not None else None
        rgb = rgb[finite] if rgb is not None else None
    return PointCloud(_placed(xyz, pose), intensity, root.frameId, dropped, rgb,
                      stamp_of(root.timestamp))


_F32 = np.dtype("<f4")


def _xyz(data: np.ndarray, count: int, stride: int, fields: dict[str, tuple[int, int]],
         dtypes: dict[str, np.dtype]) -> np.ndarray:
    """(N, 3) float32 positions; a view when x, y, z are consecutive float32."""
    if all(dtypes.get(name) == _F32 for name in "xyz"):
        x, y, z = fields["x"][0], fields["y"][0], fields["z"][0]
        if y == x + 4 and z == x + 8:
            return np.ndarray((count, 3), _F32, buffer=data, offset=x, strides=(stride, 4))
    xyz = np.zeros((count, 3), np.float32)
    for axis, name in enumerate("xyz"):
        if name in dtypes:
            xyz[:, axis] = _column(data, count, stride, fields[name][0], dtypes[name])
    return xyz


def _float_words(data: np.ndarray, stride: int, fields: dict[str, tuple[int, int]]
                 ) -> np.ndarray | None:
    """The points' bytes as float32 values, each field's value one of them, when every field
    is a float32 on a 4-byte boundary (a lidar's x, y, z, intensity), for
    :func:`finite_rows`; None otherwise."""
    if stride % 4 or len(data) % 4 or data.ctypes.data % 4 or \
            any(offset % 4 or NUMERIC_DTYPES.get(number) != _F32
                for offset, number in fields.values()):
        return None
    return data.view(np.float32)


def _packed_rgb(data: np.ndarray, count: int, stride: int, fields: dict[str, tuple[int, int]],
                dtypes: dict[str, np.dtype]) -> np.ndarray | None:
    channels = [name for name in ("red", "green", "blue") if name in dtypes]
    if channels:
        rgb = np.zeros((count, 3), np.uint8)
        for axis, name in enumerate(("red", "green", "blue")):
            if name in dtypes:
                rgb[:, axis] = to_rgb8(_column(data, count, stride, fields[name][0],
                                               dtypes[name]))
        return rgb
    for name, order in (("rgba", [3, 2, 1]), ("rgb", [2, 1, 0])):
        if name in dtypes:
            if dtypes[name].itemsize != 4:
                raise ConversionError(f"packed colour field {name!r} is "
                                      f"{dtypes[name].name}, needs 4 bytes")
            # Little-endian 0xRRGGBBAA is bytes A, B, G, R; 0x00RRGGBB is B, G, R, 0.
            four = np.ndarray((count, 4), np.uint8, buffer=data, offset=fields[name][0],
                              strides=(stride, 1))
            return four[:, order]
    return None


@converter("foxglove.laser_scan", "foxglove.LaserScan")
@guarded
def laser_scan(decoded: DecodedMessage) -> PointCloud:
    root = decoded.root
    ranges = list_array(root.ranges, np.float64)
    intensities = list_array(root.intensities, np.float64) if len(root.intensities) else None
    if intensities is not None and len(intensities) != len(ranges):
        raise ConversionError(f"{len(intensities)} intensities for {len(ranges)} ranges")
    start, end = float(root.startAngle), float(root.endAngle)
    if not (math.isfinite(start) and math.isfinite(end)):
        raise ConversionError("scan angles are not finite")
    pose = _frame_pose(root, "laser scan")
    count = len(ranges)
    angles = start + (end - start) * np.arange(count) / max(count - 1, 1)
    with np.errstate(invalid="ignore"):
        keep = np.isfinite(ranges) & (ranges > 0)
    r, a = ranges[keep], angles[keep]
    xyz = np.stack([r * np.cos(a), r * np.sin(a), np.zeros_like(r)], axis=1).astype(np.float32)
    intensity = intensities[keep].astype(np.float32) if intensities is not None else None
    return PointCloud(_placed(xyz, pose), intensity, root.frameId,
                      count - int(np.count_nonzero(keep)), stamp=stamp_of(root.timestamp))


# -- grids ------------------------------------------------------------------------------------
@converter("foxglove.grid", "foxglove.Grid")
@guarded
def grid(decoded: DecodedMessage) -> Grid:
    root = decoded.root
    columns, row_stride, cell_stride = int(root.columnCount), int(root.rowStride), \
        int(root.cellStride)
    cell = (float(root.cellSize.x), float(root.cellSize.y))
    if not all(math.isfinite(v) and v > 0 for v in cell):
        raise ConversionError(f"grid cell size {cell} is not positive")
    if columns == 0 or row_stride == 0 or cell_stride == 0:
        raise ConversionError(f"grid of {columns} columns, row stride {row_stride}, "
                              f"cell stride {cell_stride}: none may be 0")
    fields = _fields(root)
    known = [name for name, (_, number) in fields.items() if number in NUMERIC_DTYPES]
    values_of = [name for name in known if name not in COLOUR_CHANNELS] or known
    if not values_of:
        raise ConversionError(f"grid has no field of a known numeric type ({sorted(fields)})")
    name = values_of[0]
    offset, number = fields[name]
    dtype = _field_dtype(name, offset, number, cell_stride, "cell")
    if (columns - 1) * cell_stride + offset + dtype.itemsize > row_stride:
        raise ConversionError(f"{columns} cells of {cell_stride} bytes do not fit in a "
                              f"{row_stride}-byte row")
    data = data_array(root, "data")
    if len(data) == 0 or len(data) % row_stride:
        raise ConversionError(f"grid data of {len(data)} bytes is not a whole, non-zero "
                              f"number of {row_stride}-byte rows")
    rows = len(data) // row_stride
    raw = np.ndarray((rows, columns), dtype, buffer=data, offset=offset,
                     strides=(row_stride, cell_stride))
    values = raw.astype(np.float32)
    if dtype.kind == "f":
        values[~np.isfinite(values)] = np.nan
    finite = values[np.isfinite(values)]
    if finite.size:
        low, high = float(finite.min()), float(finite.max())
        value_range = (low, high) if high > low else (low, low + 1.0)
    else:
        value_range = (0.0, 1.0)
    return Grid(values, cell, _frame_pose(root, "grid"), root.frameId,
                stamp_of(root.timestamp), value_range)


# -- scene updates ----------------------------------------------------------------------------
@converter("foxglove.scene_update", "foxglove.SceneUpdate")
@guarded
def scene_update(decoded: DecodedMessage) -> SceneChange:
    root = decoded.root
    deletions: list[str] = []
    delete_all = False
    for deletion in root.deletions:
        kind = deletion.type.raw
        if kind == 0:  # matchingId
            deletions.append(deletion.id)
        elif kind == 1:  # all
            delete_all = True
    entities = tuple(_entity(entity) for entity in root.entities)
    return SceneChange(entities, tuple(deletions), delete_all)


def _entity(entity: Any) -> SceneEntity:
    notes: list[str] = []
    primitives: list[Primitive | None] = []
    where = f"entity {entity.id!r}"
    for arrow in entity.arrows:
        length = float(arrow.shaftLength) + float(arrow.headLength)
        size = (length, float(arrow.shaftDiameter), float(arrow.headDiameter))
        primitives.append(_solid("arrow", arrow, size))
    for kind, items in (("cube", entity.cubes), ("sphere", entity.spheres)):
        for item in items:
            primitives.append(_solid(kind, item, _vec3(item.size)))
    for cylinder in entity.cylinders:
        scales = (float(cylinder.bottomScale), float(cylinder.topScale))
        solid = _solid("cylinder", cylinder, _vec3(cylinder.size))
        primitives.append(None if solid is None or not _finite(scales) else
                          replace(solid, cylinder_scales=scales))
    for i, line in enumerate(entity.lines):
        line_kind = LINE_KINDS.get(line.type.raw)
        if line_kind is None:
            notes.append(f"line {i} of unknown type {enum_value(line.type)} not shown")
            continue
        primitives.append(_mesh(line_kind, line, f"{where} line {i}", float(line.thickness)))
    for i, triangles in enumerate(entity.triangles):
        primitives.append(_mesh("triangles", triangles, f"{where} triangle list {i}", 1.0))
    for text in entity.texts:
        font = float(text.fontSize)
        primitives.append(_solid("text", text, (font, font, font), text=text.text))
    for model in entity.models:
        placeholder = _model_placeholder(model)
        primitives.append(placeholder)
        notes.append(_model_text(model))
    kept = tuple(p for p in primitives if p is not None)
    if len(kept) < len(primitives):
        notes.append(f"{len(primitives) - len(kept)} primitive(s) with values that are not "
                     "finite not shown")
    label = "\n".join([f"{kv.key}: {kv.value}" for kv in entity.metadata] + notes)
    lifetime = stamp_of(entity.lifetime)
    return SceneEntity(entity.id, kept, entity.frameId, stamp_of(entity.timestamp),
                       lifetime if lifetime > 0 else 0.0, label)


def _model_text(model: Any) -> str:
    if model.url:
        url = "".join(c if c.isprintable() else "?" for c in model.url[:MODEL_URL_SHOWN])
        return f"model not loaded: {url}" + ("…" if len(model.url) > MODEL_URL_SHOWN else "")
    media = "".join(c for c in model.mediaType[:MODEL_URL_SHOWN] if c.isprintable())
    return f"model not loaded: embedded {media or 'data'} ({len(model.data)} bytes)"


def _model_placeholder(model: Any) -> Primitive | None:
    """What stands where a model would be: a text naming it, never the model itself."""
    pose = _pose(model.pose)
    if not _finite(pose):
        return None
    return Primitive("text", pose, (1.0, 1.0, 1.0), MODEL_PLACEHOLDER_RGBA,
                     text=_model_text(model))


def _solid(kind: str, item: Any, size: tuple[float, float, float],
           text: str = "") -> Primitive | None:
    pose = _pose(item.pose)
    if not (_finite(pose) and _finite(size)):
        return None
    return Primitive(kind, pose, size, _color(item.color), text=text)


def _mesh(kind: str, item: Any, where: str, width: float) -> Primitive | None:
    """A line or triangle list: points (N, 3) float32, optional per-point colours (N, 4)
    and indices (K,) uint32."""
    pose = _pose(item.pose)
    points = np.array([(p.x, p.y, p.z) for p in item.points], np.float64).reshape(-1, 3)
    count = len(points)
    colors = None
    if len(item.colors):
        if len(item.colors) != count:
            raise ConversionError(f"{where}: {len(item.colors)} colors for {count} points")
        colors = np.array([_color(c) for c in item.colors], np.float32).reshape(-1, 4)
    indices = None
    if len(item.indices):
        indices = list_array(item.indices, np.uint32)
        if indices.max() >= count:
            raise ConversionError(f"{where}: index {int(indices.max())} of {count} points")
    if kind == "triangles":
        used = len(indices) if indices is not None else count
        if used % 3:
            raise ConversionError(f"{where}: {used} vertices are not whole triangles")
    if not (_finite(pose) and math.isfinite(width) and np.isfinite(points).all()):
        return None
    return Primitive(kind, pose, color=_color(item.color), points=points.astype(np.float32),
                     colors=colors, indices=indices, width=width)
