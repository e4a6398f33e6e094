"""Isaac tensors, point clouds and images <-> numpy arrays.

Isaac keeps bulk data out of the message: a ``TensorProto`` or ``ImageProto`` names a buffer by
``dataBufferIndex``, and the buffers travel in the zenoh attachment as ``transport.Buffers``
(PROTOCOL.md, "Isaac buffers"). Decoding views those bytes without copying; writing them is
the wire's job (``app.codec.buffers.encode_buffers`` and ``fill_tensor``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from app.codec.decode import DecodedMessage
from app.codec.errors import MalformedMessage, MissingAttachment
from app.convert.capnp_data import finite_rows, guarded, list_array, to_rgb8, unit_quaternion
from app.convert.models import IDENTITY, Box, Boxes, PointCloud, Poses, Transform, Transforms
from app.convert.registry import ConversionError, converter

# isaac.ElementType enumerant number -> little-endian numpy dtype.
ELEMENT_DTYPES: dict[int, np.dtype] = {
    0: np.dtype("<u1"),  # uint8
    1: np.dtype("<u2"),  # uint16
    2: np.dtype("<f4"),  # float32
    3: np.dtype("<f8"),  # float64
    4: np.dtype("<f2"),  # float16
    5: np.dtype("<u4"),  # uint32
    6: np.dtype("<u8"),  # uint64
    7: np.dtype("<i1"),  # int8
    8: np.dtype("<i2"),  # int16
    9: np.dtype("<i4"),  # int32
    10: np.dtype("<i8"),  # int64
}


# -- decoding -------------------------------------------------------------------------------
def element_dtype(element_type: Any) -> np.dtype:
    """The numpy dtype of an isaac ``ElementType`` (reader value or enumerant number)."""
    number = element_type if isinstance(element_type, int) else element_type.raw
    dtype = ELEMENT_DTYPES.get(number)
    if dtype is None:
        name = "unknown" if number == 11 else f"number {number}"
        raise MalformedMessage(f"unsupported isaac element type {name}")
    return dtype


def buffer_array(decoded: DecodedMessage, index: int, dtype: np.dtype,
                 shape: tuple[int, ...]) -> np.ndarray:
    """A read-only view of attachment buffer ``index`` as ``shape`` elements of ``dtype``."""
    if any(size < 0 for size in shape):
        raise MalformedMessage(f"{decoded.type_name}: negative size in {list(shape)}")
    data = decoded.buffer(index)
    expected = math.prod(shape) * dtype.itemsize
    if len(data) != expected:
        raise MalformedMessage(
            f"{decoded.type_name}: buffer {index} has {len(data)} bytes, "
            f"{list(shape)} x {dtype.name} needs {expected}"
        )
    return np.frombuffer(data, dtype=dtype).reshape(shape)


def tensor_to_numpy(decoded: DecodedMessage, tensor: Any) -> np.ndarray:
    """A ``TensorProto`` reader of ``decoded`` -> array shaped by its ``sizes``."""
    return buffer_array(
        decoded,
        tensor.dataBufferIndex,
        element_dtype(tensor.elementType),
        tuple(tensor.sizes),
    )


def point_cloud_to_numpy(decoded: DecodedMessage) -> np.ndarray:
    """The positions of a ``PointCloudProto`` as an (N, 3) float32 array (N may be 0)."""
    cloud = _root_of(decoded, "isaac.PointCloudProto")
    if not cloud._has("positions") or len(cloud.positions.sizes) == 0:
        return np.empty((0, 3), np.float32)
    positions = tensor_to_numpy(decoded, cloud.positions)
    if positions.ndim != 2 or positions.shape[1] < 3:
        raise MalformedMessage(f"point positions shaped {list(positions.shape)}, need [N, 3]")
    return positions[:, :3].astype(np.float32, copy=False)


def point_intensities_to_numpy(decoded: DecodedMessage) -> np.ndarray | None:
    """The per-point intensities of a ``PointCloudProto`` as (N,) float32, or None."""
    cloud = _root_of(decoded, "isaac.PointCloudProto")
    if not cloud._has("intensities") or len(cloud.intensities.sizes) == 0:
        return None
    values = tensor_to_numpy(decoded, cloud.intensities)
    return values.reshape(values.shape[0] if values.ndim else 0).astype(np.float32, copy=False)


def image_to_numpy(decoded: DecodedMessage) -> np.ndarray:
    """An ``ImageProto`` as a (rows, cols, channels) array of its element type
    (uint8 for colour camera images)."""
    image = _root_of(decoded, "isaac.ImageProto")
    shape = (image.rows, image.cols, image.channels)
    return buffer_array(decoded, image.dataBufferIndex, element_dtype(image.elementType), shape)


def _root_of(decoded: DecodedMessage, type_name: str) -> Any:
    if decoded.type_name != type_name:
        raise ValueError(f"expected {type_name}, got {decoded.type_name}")
    return decoded.root


def point_colors_to_numpy(decoded: DecodedMessage) -> np.ndarray | None:
    """The per-point colours of a ``PointCloudProto`` as (N, 3) uint8, or None.

    Floats are unit values (0..1, scaled by 255); integers are 0..255 (uint8 is viewed,
    not copied). A 4th (alpha) column is left out."""
    cloud = _root_of(decoded, "isaac.PointCloudProto")
    if not cloud._has("colors") or len(cloud.colors.sizes) == 0:
        return None
    values = tensor_to_numpy(decoded, cloud.colors)
    if values.ndim != 2 or values.shape[1] < 3:
        raise MalformedMessage(f"point colors shaped {list(values.shape)}, need [N, 3]")
    return to_rgb8(values[:, :3])


# -- display models -------------------------------------------------------------------------
# Isaac types carry no frame unless a field names one (plans, goals, odometry, pose trees):
# everything else is left in frame "" (the topic's catalog frame, else base_link).
Pose7 = tuple[float, float, float, float, float, float, float]


@converter("isaac.point_cloud", "isaac.PointCloudProto")
@guarded
def point_cloud(decoded: DecodedMessage) -> PointCloud:
    """A ``PointCloudProto`` as a display cloud: views of the attachment when every point is
    finite, else the finite points only (the others counted). Colours as uint8 RGB."""
    try:
        xyz = point_cloud_to_numpy(decoded)
        intensity = point_intensities_to_numpy(decoded)
        rgb = point_colors_to_numpy(decoded)
    except (MalformedMessage, MissingAttachment, ValueError) as exc:
        raise ConversionError(str(exc)) from None
    if intensity is not None and len(intensity) != len(xyz):
        raise ConversionError(f"{len(intensity)} intensities for {len(xyz)} points")
    if rgb is not None and len(rgb) != len(xyz):
        raise ConversionError(f"{len(rgb)} colors for {len(xyz)} points")
    finite = finite_rows(xyz)
    dropped = 0 if finite is None else len(xyz) - int(np.count_nonzero(finite))
    if finite is not None:
        xyz = xyz[finite]
        intensity = intensity[finite] if intensity is not None else None
        rgb = rgb[finite] if rgb is not None else None
    return PointCloud(xyz, intensity, dropped=dropped, rgb=rgb)


def pose3(pose: Any) -> Pose7:
    """A ``Pose3dProto`` as (x, y, z, qx, qy, qz, qw); may hold NaN/inf (see :func:`finite`)."""
    t = pose.translation
    qx, qy, qz, qw = unit_quaternion(pose.rotation.q)  # QuaterniondProto: w, x, y, z
    return (float(t.x), float(t.y), float(t.z), qx, qy, qz, qw)


def pose2(pose: Any) -> Pose7:
    """A ``Pose2dProto`` (translation, unit complex rotation (cos a, sin a)) as a 3D pose at
    z = 0 rotated by yaw a; a zero complex number (unset) is no rotation."""
    t, q = pose.translation, pose.rotation.q
    yaw = math.atan2(q.y, q.x) if (q.x or q.y) else 0.0
    return (float(t.x), float(t.y), 0.0, 0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def finite(values: Sequence[float]) -> bool:
    return all(math.isfinite(v) for v in values)


def rotate(q: Sequence[float], v: Sequence[float]) -> tuple[float, float, float]:
    """Vector ``v`` rotated by unit quaternion ``q`` (x, y, z, w)."""
    qx, qy, qz, qw = q
    # v' = v + 2 w (u x v) + 2 u x (u x v), u = (qx, qy, qz)
    cx = qy * v[2] - qz * v[1]
    cy = qz * v[0] - qx * v[2]
    cz = qx * v[1] - qy * v[0]
    return (
        v[0] + 2 * (qw * cx + qy * cz - qz * cy),
        v[1] + 2 * (qw * cy + qz * cx - qx * cz),
        v[2] + 2 * (qw * cz + qx * cy - qy * cx),
    )


def _poses(rows: list[Pose7], frame_id: str = "", path: bool = False,
           label: str = "") -> Poses:
    array = np.array(rows, np.float64).reshape(len(rows), 7)
    return Poses(array, frame_id=frame_id, path=path, label=label)


def _one_pose(pose: Pose7, what: str, frame_id: str = "", label: str = "") -> Poses:
    if not finite(pose):
        raise ConversionError(f"{what} is not finite")
    return _poses([pose], frame_id, label=label)


@converter("isaac.detections3", "isaac.Detections3Proto")
@guarded
def detections3(decoded: DecodedMessage) -> Boxes:
    """``Detections3Proto``: detection i is predictions[i] (label, confidence), poses[i]
    (the object in the sensor frame) and boundingBoxes[i] (min/max corners in the object's
    frame). ``predictions`` and ``poses`` may be empty (no label / box in the sensor frame);
    otherwise all lists must be as long. A detection with a non-finite pose or box, or a box
    whose max is below its min, is left out; if that leaves none, the message is refused."""
    root = decoded.root
    boxes, predictions, poses = root.boundingBoxes, root.predictions, root.poses
    count = len(boxes)
    if count == 0 and (len(predictions) or len(poses)):
        raise ConversionError(f"{len(predictions)} detections without bounding boxes")
    for name, items in (("predictions", predictions), ("poses", poses)):
        if len(items) not in (0, count):
            raise ConversionError(f"{len(items)} {name} for {count} bounding boxes")
    out = []
    for i in range(count):
        box = boxes[i]
        lo = (box.min.x, box.min.y, box.min.z)
        hi = (box.max.x, box.max.y, box.max.z)
        pose = pose3(poses[i]) if len(poses) else (0.0, 0.0, 0.0, *IDENTITY)
        if not (finite(lo) and finite(hi) and finite(pose)):
            continue
        size = (hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2])
        if min(size) < 0:
            continue
        local = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2)
        offset = rotate(pose[3:], local)
        center = (pose[0] + offset[0], pose[1] + offset[1], pose[2] + offset[2])
        label, score = "", float("nan")
        if len(predictions):
            label, score = predictions[i].label, float(predictions[i].confidence)
        out.append(Box(center, size, pose[3:], label=label, score=score))
    if count and not out:
        raise ConversionError(f"none of the {count} detections has a finite, valid box")
    return Boxes(tuple(out))


@converter("isaac.pose3d", "isaac.Pose3dProto")
@guarded
def pose3d(decoded: DecodedMessage) -> Poses:
    return _one_pose(pose3(decoded.root), "pose")


def _transform(parent: str, child: str, pose: Pose7) -> Transform:
    return Transform(parent, child, pose[:3], pose[3:])


@converter("isaac.pose_tree", "isaac.PoseTreeProto")
@guarded
def pose_tree(decoded: DecodedMessage) -> Transforms:
    """``PoseTreeProto``: each node with a parent (``parentIndex`` >= 0) places the node in
    its parent by ``parentTNode``. ``edges`` only repeat names; an edge whose child node has
    no valid parent index still yields the child's ``parentTNode`` under the edge's parent.
    Nodes with a non-finite pose are left out; if that leaves none, the tree is refused."""
    root = decoded.root
    nodes = root.nodes
    count = len(nodes)
    names = [node.name for node in nodes]
    out: list[Transform] = []
    done: set[str] = set()
    candidates = 0
    for i, node in enumerate(nodes):
        parent = node.parentIndex
        if parent < 0:
            continue
        if parent >= count or parent == i:
            raise ConversionError(f"node {names[i]!r} has parent index {parent} "
                                  f"in a tree of {count} nodes")
        if not names[i] or not names[parent]:
            raise ConversionError(f"node {i} or its parent has no name")
        candidates += 1
        done.add(names[i])
        pose = pose3(node.parentTNode)
        if finite(pose):
            out.append(_transform(names[parent], names[i], pose))
    index = {name: i for i, name in enumerate(names)}
    for edge in root.edges:
        child = edge.childName
        if child in done or child not in index or not edge.parentName:
            continue
        candidates += 1
        done.add(child)
        pose = pose3(nodes[index[child]].parentTNode)
        if finite(pose):
            out.append(_transform(edge.parentName, child, pose))
    if candidates and not out:
        raise ConversionError("no node of the pose tree has a finite pose")
    return Transforms(tuple(out))


@converter("isaac.pose_tree_edge", "isaac.PoseTreeEdgeProto")
@guarded
def pose_tree_edge(decoded: DecodedMessage) -> Transforms:
    """``PoseTreeEdgeProto``: ``pose`` is lhs_T_rhs, so rhs (child) is placed in lhs."""
    root = decoded.root
    if not root.lhs or not root.rhs:
        raise ConversionError("pose tree edge without both frame names (lhs, rhs)")
    pose = pose3(root.pose)
    if not finite(pose):
        raise ConversionError("pose tree edge pose is not finite")
    return Transforms((_transform(root.lhs, root.rhs, pose),))


@converter("isaac.plan2", "isaac.Plan2Proto")
@guarded
def plan2(decoded: DecodedMessage) -> Poses:
    """``Plan2Proto`` as a path in ``planFrame``; non-finite poses are left out (refused if
    that leaves none)."""
    root = decoded.root
    rows = [pose2(pose) for pose in root.poses]
    kept = [row for row in rows if finite(row)]
    if rows and not kept:
        raise ConversionError("no pose of the plan is finite")
    return _poses(kept, root.planFrame, path=True)


@converter("isaac.goal2", "isaac.Goal2Proto")
@guarded
def goal2(decoded: DecodedMessage) -> Poses:
    """``Goal2Proto``: one pose in ``goalFrame``, its tolerance in the label. A goal with
    ``stopRobot`` set ignores the rest (seed): no pose, labelled "stop"."""
    root = decoded.root
    if root.stopRobot:
        return _poses([], root.goalFrame, label="stop")
    label = f"goal ±{root.tolerance:g} m" if root.tolerance > 0 else "goal"
    return _one_pose(pose2(root.goal), "goal pose", root.goalFrame, label)


@converter("isaac.odometry2", "isaac.Odometry2Proto")
@guarded
def odometry2(decoded: DecodedMessage) -> Poses:
    """``Odometry2Proto``: the robot's pose (odomTRobot) in ``odometryFrame``, labelled with
    ``robotFrame``."""
    root = decoded.root
    return _one_pose(pose2(root.odomTRobot), "odometry pose", root.odometryFrame,
                     root.robotFrame)


def _scan_cloud(ranges: np.ndarray, directions: np.ndarray, keep: np.ndarray,
                intensity: np.ndarray | None) -> PointCloud:
    """Points at ``ranges`` along unit ``directions`` (N, 3), only where ``keep``."""
    dropped = len(ranges) - int(np.count_nonzero(keep))
    xyz = (directions[keep] * ranges[keep, None]).astype(np.float32)
    if intensity is not None:
        intensity = intensity[keep].astype(np.float32, copy=False)
    return PointCloud(xyz, intensity, dropped=dropped)


def _valid_ranges(ranges: np.ndarray, invalid: float, out_of_range: float) -> np.ndarray:
    """Rays that returned: finite, above ``invalid`` and, if set (> 0), below
    ``out_of_range`` (seed: <= invalid is invalid, >= out of range hit nothing)."""
    with np.errstate(invalid="ignore"):
        keep = np.isfinite(ranges) & (ranges > invalid)
        if out_of_range > 0:
            keep &= ranges < out_of_range
    return keep


@converter("isaac.flatscan", "isaac.FlatscanProto")
@guarded
def flatscan(decoded: DecodedMessage) -> PointCloud:
    """``FlatscanProto``: ray i at ``angles[i]`` (rad, counter-clockwise from +x) and
    ``ranges[i]`` in the scan's plane (z = 0). Invalid, out-of-range and non-finite returns
    are dropped and counted. No intensities in this type."""
    root = decoded.root
    angles = list_array(root.angles, np.float64)
    ranges = list_array(root.ranges, np.float64)
    if len(angles) != len(ranges):
        raise ConversionError(f"{len(ranges)} ranges for {len(angles)} angles")
    invalid, out_of_range = float(root.invalidRangeThreshold), float(root.outOfRangeThreshold)
    if math.isnan(invalid) or math.isnan(out_of_range):
        raise ConversionError("range thresholds are not numbers")
    keep = _valid_ranges(ranges, invalid, out_of_range) & np.isfinite(angles)
    directions = np.stack([np.cos(angles), np.sin(angles), np.zeros_like(angles)], axis=1)
    return _scan_cloud(ranges, directions, keep, None)


def _denormalized(values: np.ndarray, scale: float) -> np.ndarray:
    """``RangeScanProto`` values: integers are fractions of their type's maximum (seed:
    value / 0xFFFF * scale for 16-bit ranges, / 0xFF for 8-bit intensities); floats are
    already fractions."""
    if values.dtype.kind in "iu":
        return values.astype(np.float64) * (scale / np.iinfo(values.dtype).max)
    return values.astype(np.float64) * scale


@converter("isaac.range_scan", "isaac.RangeScanProto")
@guarded
def range_scan(decoded: DecodedMessage) -> PointCloud:
    """``RangeScanProto``: ranges is a [len(theta), len(phi)] tensor in the attachment; ray
    (i, j) points at azimuth theta[i] and elevation phi[j]: direction (cos phi cos theta,
    cos phi sin theta, sin phi). Range in metres = normalized / type max * rangeDenormalizer.
    No phi is one horizontal ring (phi = 0). Intensities (optional, same shape) = normalized /
    type max * intensityDenormalizer (1 when unset). Invalid, out-of-range and non-finite
    rays are dropped and counted."""
    root = decoded.root
    theta = list_array(root.theta, np.float64)
    phi = list_array(root.phi, np.float64)
    if len(phi) == 0:
        phi = np.zeros(1)
    shape = (len(theta), len(phi))
    if not root._has("ranges") or len(root.ranges.sizes) == 0:
        if len(root.theta):
            raise ConversionError("range scan has angles but no ranges tensor")
        return PointCloud(np.empty((0, 3), np.float32))
    scale = float(root.rangeDenormalizer)
    if not (math.isfinite(scale) and scale > 0):
        raise ConversionError(f"rangeDenormalizer must be > 0, got {scale}")
    raw = tensor_to_numpy(decoded, root.ranges)
    if raw.size != shape[0] * shape[1] or (raw.ndim == 2 and raw.shape != shape):
        raise ConversionError(f"ranges shaped {list(raw.shape)} for {shape[0]} theta x "
                              f"{shape[1]} phi angles")
    ranges = _denormalized(raw.reshape(-1), scale)
    intensity = None
    if root._has("intensities") and len(root.intensities.sizes):
        raw_i = tensor_to_numpy(decoded, root.intensities)
        if raw_i.size != ranges.size:
            raise ConversionError(f"{raw_i.size} intensities for {ranges.size} rays")
        i_scale = float(root.intensityDenormalizer)
        if not math.isfinite(i_scale) or i_scale <= 0:
            i_scale = 1.0
        intensity = _denormalized(raw_i.reshape(-1), i_scale)
    invalid, out_of_range = float(root.invalidRangeThreshold), float(root.outOfRangeThreshold)
    if math.isnan(invalid) or math.isnan(out_of_range):
        raise ConversionError("range thresholds are not numbers")
    th, ph = np.meshgrid(theta, phi, indexing="ij")
    th, ph = th.reshape(-1), ph.reshape(-1)
    cos_phi = np.cos(ph)
    directions = np.stack([cos_phi * np.cos(th), cos_phi * np.sin(th), np.sin(ph)], axis=1)
    keep = _valid_ranges(ranges, invalid, out_of_range) & np.isfinite(directions).all(axis=1)
    return _scan_cloud(ranges, directions, keep, intensity)
