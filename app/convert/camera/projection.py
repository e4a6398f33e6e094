"""Camera calibrations -> :class:`CameraModel`, and 3D boxes projected into its image.

Conventions (and the choices where the seeds leave room):

- Points given to :meth:`CameraModel.project` are in the camera's optical frame: x right,
  y down, z forward, metres. foxglove ``CameraCalibration.frameId`` is that frame (its seed
  says so, as in ROS). isaac camera messages name no frame; we assume the topic's catalog
  ``frameId`` is the camera's optical frame with the same axes (as the simulated rover's
  ``camera`` frame is).
- Pixels come out in the overlay convention of app/convert/camera/model.py: (0, 0) the top-left
  corner of the top-left pixel. foxglove/ROS ``K``/``P`` follow OpenCV, where integer
  coordinates are pixel centres, so their projections are shifted by half a pixel
  (``origin_shift`` 0.5). isaac ``PinholeProto`` is read in the same pixels as isaac
  detections (no shift); its (row, col) pairs give ``focal`` (fy, fx) and ``center``
  (cy, cx).
- foxglove ``CameraCalibration``: by default the image is taken as raw (as sent), so ``K``
  and ``D`` project (``R`` and ``P`` are for the rectified image; foxglove's and ROS's raw
  projection do the same). With ``rectified=True`` (for a rectified image stream) ``P``
  projects and ``D`` is ignored: the left 3x3 is ``K``, the 4th column a shift of the
  point (``offset = K'^-1 [Tx Ty Tz]``, zero for a monocular camera); ``R`` is not used.
  Models: "" / "none" (no distortion), ``plumb_bob`` (k1 k2 p1 p2 k3),
  ``rational_polynomial`` (k1 k2 p1 p2 k3 k4 k5 k6), ``equidistant`` / ``fisheye``
  (k1 k2 k3 k4, OpenCV's fisheye). An empty ``D`` means no distortion; another length than
  the model's is refused.
- isaac ``DistortionProto``: ``brown`` (r0 r1 r2 t0 t1) is OpenCV's ``plumb_bob`` with the
  tangential pair taken as (p1, p2) in x-right/y-down normalised coordinates, i.e.
  D = (r0, r1, t0, t1, r2); ``fisheye`` (r0 r1 r2 r3) is ``equidistant``.
- Visibility: a point is visible when it is finite, in front of the near plane (z > near)
  and inside the range where the distortion polynomial still grows with the angle from the
  axis (beyond it a point far outside the view would fold back into the image). A visible
  point may still lie outside the image.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from app.codec.decode import DecodedMessage
from app.convert.camera.model import RGBA, ImageOverlay, Shape
from app.convert.camera.overlays import label_above, label_color
from app.convert.capnp_data import converting, list_array, stamp_of
from app.convert.foxglove import rotation_matrices
from app.convert.models import Box, Boxes, Scene, SceneChange
from app.convert.registry import ConversionError, converter

NEAR_M = 0.01
COEFFICIENTS = {"": 0, "plumb_bob": 5, "rational_polynomial": 8, "equidistant": 4}
MODEL_NAMES = {"none": "", "fisheye": "equidistant"}
ISAAC_MODELS = {0: "plumb_bob", 1: "equidistant"}  # isaac.DistortionProto.DistortionModel
EDGE_SEGMENTS = 8  # pieces per box edge when lenses bend straight lines
# The 12 edges of a box as pairs of corner indices (corner bits: x, y, z sign).
BOX_EDGES = np.array([(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7),
                      (0, 4), (1, 5), (2, 6), (3, 7)])
BOX_CORNERS = np.array([[(i >> 2) & 1, (i >> 1) & 1, i & 1] for i in range(8)], float) - 0.5


@dataclass(frozen=True, eq=False)
class CameraModel:
    width: int
    height: int
    K: np.ndarray  # (3, 3) float64
    D: np.ndarray = field(default_factory=lambda: np.zeros(0))  # as many as the model takes
    distortion: str = ""  # "" | plumb_bob | rational_polynomial | equidistant
    frame_id: str = ""  # the optical frame; "" = the topic's frame
    stamp: float = 0.0
    origin_shift: float = 0.0  # added to projected pixels: 0.5 for OpenCV/ROS matrices
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0)  # added to points (stereo P)

    @functools.cached_property
    def distorted(self) -> bool:
        return self.distortion != "" and bool(np.any(self.D != 0))

    @functools.cached_property
    def _max_radius(self) -> float:
        """The normalised radius (x/z, y/z from the axis) up to which distortion is
        monotonic: farther points are not visible."""
        if not self.distorted:
            return math.inf
        if self.distortion == "equidistant":
            theta = np.linspace(0.0, math.pi / 2, 4001)
            bent = _fisheye(self.D, theta)
            radius = np.tan(theta)
        else:
            radius = np.linspace(0.0, 20.0, 4001)
            bent = radius * _radial(self.D, radius * radius)
        falling = np.flatnonzero(np.diff(bent) <= 0)
        return float(radius[falling[0]]) if len(falling) else math.inf

    def project(self, points_cam: np.ndarray, near: float = NEAR_M
                ) -> tuple[np.ndarray, np.ndarray]:
        """(N, 3) optical-frame points -> ((N, 2) pixels, NaN where not visible; (N,) bool
        visible)."""
        p = np.asarray(points_cam, float).reshape(-1, 3)
        uv, inside = self._pixels(p)
        visible = inside & (p[:, 2] + self.offset[2] > near)
        uv[~visible] = np.nan
        return uv, visible

    def _pixels(self, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Pixels of points in front of the camera, and where the lens model holds."""
        p = p + np.array(self.offset)
        with np.errstate(divide="ignore", invalid="ignore"):
            x, y = p[:, 0] / p[:, 2], p[:, 1] / p[:, 2]
            r2 = x * x + y * y
            inside = np.isfinite(r2) & (r2 <= self._max_radius ** 2)
            if self.distortion == "equidistant" and self.distorted:
                r = np.sqrt(r2)
                scale = np.where(r > 1e-12, _fisheye(self.D, np.arctan(r)) / r, 1.0)
                x, y = x * scale, y * scale
            elif self.distorted:
                p1, p2 = self.D[2], self.D[3]
                radial = _radial(self.D, r2)
                x, y = (x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x),
                        y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y)
            K = self.K
            u = K[0, 0] * x + K[0, 1] * y + K[0, 2] + self.origin_shift
            v = K[1, 1] * y + K[1, 2] + self.origin_shift
        return np.stack([u, v], axis=1), inside & np.isfinite(u) & np.isfinite(v)

    def scaled(self, width: int, height: int) -> CameraModel:
        """This camera for the same view at another resolution (a downscaled stream)."""
        sx, sy = width / self.width, height / self.height
        K = self.K.copy()
        shift = self.origin_shift
        K[0, :] *= sx
        K[1, :] *= sy
        K[0, 2] += shift * sx - shift  # scale about the image corner, not pixel centre 0
        K[1, 2] += shift * sy - shift
        return replace(self, width=width, height=height, K=K)


def _fisheye(D: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """OpenCV's fisheye: the distorted angle of rays ``theta`` off the axis."""
    k1, k2, k3, k4 = D
    t2 = theta * theta
    return theta * (1 + t2 * (k1 + t2 * (k2 + t2 * (k3 + t2 * k4))))


def _radial(D: np.ndarray, r2: np.ndarray) -> np.ndarray:
    """plumb_bob / rational_polynomial radial factor at squared radii ``r2``."""
    k = np.zeros(8)
    k[: len(D)] = D
    k1, k2, _, _, k3, k4, k5, k6 = k
    return ((1 + r2 * (k1 + r2 * (k2 + r2 * k3)))
            / (1 + r2 * (k4 + r2 * (k5 + r2 * k6))))


# -- calibrations -----------------------------------------------------------------------------
def _intrinsics(values: np.ndarray, what: str) -> np.ndarray:
    K = values.reshape(3, 3)
    if not np.isfinite(K).all():
        raise ConversionError(f"{what} has values that are not finite")
    if not (K[0, 0] > 0 and K[1, 1] > 0) or not np.allclose(K[2], (0, 0, 1)) or K[1, 0]:
        raise ConversionError(f"{what} is not a camera matrix [fx 0 cx; 0 fy cy; 0 0 1] "
                              f"with fx, fy > 0: {K.ravel().tolist()}")
    return K


def _distortion(model: str, D: np.ndarray) -> tuple[str, np.ndarray]:
    name = MODEL_NAMES.get(model, model)
    if name not in COEFFICIENTS:
        raise ConversionError(f"unknown distortion model {model!r} "
                              f"(one of {', '.join(m for m in COEFFICIENTS if m)})")
    if len(D) == 0:
        return "", np.zeros(0)
    if len(D) != COEFFICIENTS[name]:
        raise ConversionError(f"{len(D)} distortion coefficients for model {model or 'none'!r} "
                              f"({COEFFICIENTS[name]} expected)")
    if not np.isfinite(D).all():
        raise ConversionError("distortion coefficients that are not finite")
    return name, D


def _size(width: int, height: int) -> tuple[int, int]:
    if width <= 0 or height <= 0:
        raise ConversionError(f"image size {width}x{height}")
    return width, height


def foxglove_camera(root: Any, rectified: bool = False) -> CameraModel:
    width, height = _size(int(root.width), int(root.height))
    stamp = stamp_of(root.timestamp)
    if rectified:
        P = list_array(root.p, np.float64)
        if len(P) != 12:
            raise ConversionError(f"P has {len(P)} values (12 expected)")
        P = P.reshape(3, 4)
        K = _intrinsics(P[:, :3].copy(), "P")
        ox, oy, oz = (float(v) for v in np.linalg.solve(K, P[:, 3]))
        return CameraModel(width, height, K, frame_id=root.frameId, stamp=stamp,
                           origin_shift=0.5, offset=(ox, oy, oz))
    k = list_array(root.k, np.float64)
    if len(k) != 9:
        raise ConversionError(f"K has {len(k)} values (9 expected)")
    name, D = _distortion(root.distortionModel, list_array(root.d, np.float64))
    return CameraModel(width, height, _intrinsics(k, "K"), D, name, root.frameId, stamp,
                       origin_shift=0.5)


def isaac_camera(pinhole: Any, distortion: Any = None, image: Any = None) -> CameraModel:
    rows, cols = int(pinhole.rows), int(pinhole.cols)
    if (rows <= 0 or cols <= 0) and image is not None:
        rows, cols = int(image.rows), int(image.cols)
    width, height = _size(cols, rows)
    fy, fx = float(pinhole.focal.x), float(pinhole.focal.y)
    cy, cx = float(pinhole.center.x), float(pinhole.center.y)
    K = _intrinsics(np.array([fx, 0.0, cx, 0.0, fy, cy, 0.0, 0.0, 1.0]), "pinhole")
    name, D = "", np.zeros(0)
    if distortion is not None:
        model = distortion.model.raw
        if model not in ISAAC_MODELS:
            raise ConversionError(f"unknown isaac distortion model {model}")
        D = list_array(distortion.coefficients.coefficients, np.float64)
        if model == 0 and len(D) == 5:
            D = D[[0, 1, 3, 4, 2]]  # (r0 r1 r2 t0 t1) -> OpenCV (k1 k2 p1 p2 k3)
        name, D = _distortion(ISAAC_MODELS[model], D)
    return CameraModel(width, height, K, D, name)


# isaac messages with a ``pinhole`` -> the field holding their image (its size is the
# fallback when the pinhole's rows/cols are 0).
ISAAC_CAMERAS = {
    "isaac.CameraIntrinsicsProto": None,
    "isaac.ColorCameraProto": "image",
    "isaac.DepthCameraProto": "depthImage",
    "isaac.DisparityCameraProto": "disparityImage",
    "isaac.SegmentationCameraProto": "labelImage",
}
CALIBRATION_TYPES = ("foxglove.CameraCalibration", "isaac.PinholeProto", *ISAAC_CAMERAS)


@converter("camera.calibration")  # by name only: the 3D scene never picks it
def camera_model_from(decoded: DecodedMessage, rectified: bool = False) -> CameraModel:
    """The camera a calibration message (one of ``CALIBRATION_TYPES``) describes;
    ``rectified``: the image is rectified (use P). ConversionError for another type or bad
    values."""
    name = decoded.type_name
    if name not in CALIBRATION_TYPES:
        raise ConversionError(f"{name} carries no camera calibration "
                              f"(one of {', '.join(CALIBRATION_TYPES)})")
    with converting(name):
        root = decoded.root
        if name == "foxglove.CameraCalibration":
            return foxglove_camera(root, rectified)
        if name == "isaac.PinholeProto":
            return isaac_camera(root)
        image_field = ISAAC_CAMERAS[name]
        distortion = root.distortion if name in ("isaac.CameraIntrinsicsProto",
                                                 "isaac.ColorCameraProto") else None
        image = getattr(root, image_field) if image_field else None
        return isaac_camera(root.pinhole, distortion, image)


# -- boxes ------------------------------------------------------------------------------------
def boxes_in(model: object) -> list[tuple[str, Box]]:
    """Every box a display model holds, with the frame it is in ("" = the topic's frame):
    ``Boxes`` (isaac 3D detections, autoware entities), the ``cube`` primitives of a
    ``SceneChange`` (foxglove SceneUpdate, fleet objects; labelled with the entity id), and
    the parts of a ``Scene``."""
    if isinstance(model, Boxes):
        return [(model.frame_id, box) for box in model.boxes]
    if isinstance(model, SceneChange):
        found = []
        for entity in model.entities:
            for p in entity.primitives:
                if p.kind == "cube":
                    x, y, z, qx, qy, qz, qw = p.pose
                    found.append((entity.frame_id, Box((x, y, z), p.size, (qx, qy, qz, qw),
                                                       label=entity.id, color=p.color)))
        return found
    if isinstance(model, Scene):
        return [found for part in model.parts for found in boxes_in(part)]
    return []


def _edges_of_boxes(camera: CameraModel, corners_cam: np.ndarray, near: float
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(N, 8, 3) corners of N boxes -> ((K, 2, 2) pixel pairs of their visible edge pieces,
    (K,) the box each piece belongs to, in order). All boxes in one pass: a box costs no
    more numpy calls than a hundred."""
    a, b = corners_cam[:, BOX_EDGES[:, 0]], corners_cam[:, BOX_EDGES[:, 1]]  # (N, 12, 3)
    pieces = EDGE_SEGMENTS if camera.distorted else 1
    t = np.linspace(0.0, 1.0, pieces + 1)[None, None, :, None]
    along = a[:, :, None, :] + (b - a)[:, :, None, :] * t  # (N, 12, pieces + 1, 3)
    start, end = along[:, :, :-1].reshape(-1, 3), along[:, :, 1:].reshape(-1, 3)
    owner = np.repeat(np.arange(len(corners_cam)), len(BOX_EDGES) * pieces)
    z_near = near - camera.offset[2]
    z0, z1 = start[:, 2], end[:, 2]
    keep = np.maximum(z0, z1) > z_near
    start, end, z0, z1, owner = start[keep], end[keep], z0[keep], z1[keep], owner[keep]
    with np.errstate(divide="ignore", invalid="ignore"):
        hit = start + (end - start) * ((z_near - z0) / (z1 - z0))[:, None]
    start = np.where((z0 < z_near)[:, None], hit, start)
    end = np.where((z1 < z_near)[:, None], hit, end)
    uv, ok = camera._pixels(np.concatenate([start, end]))
    count = len(start)
    ok = ok[:count] & ok[count:]
    return np.stack([uv[:count][ok], uv[count:][ok]], axis=1), owner[ok]


def project_boxes(boxes: Boxes | Iterable[Box], camera: CameraModel,
                  camera_from_model: np.ndarray, near: float = NEAR_M) -> ImageOverlay:
    """Boxes (in one frame) drawn into ``camera``'s image: per box one ``line_list`` of its
    visible edges and its label above them. ``camera_from_model`` (4x4) maps the boxes'
    frame to the camera's optical frame (``TransformTree.lookup(camera frame, boxes frame,
    stamp).matrix``). Boxes with values that are not finite are counted in ``dropped``."""
    matrix = np.asarray(camera_from_model, float)
    if matrix.shape != (4, 4) or not np.isfinite(matrix).all():
        raise ValueError(f"camera_from_model must be a finite 4x4 matrix, not {matrix.shape}")
    items = boxes.boxes if isinstance(boxes, Boxes) else tuple(boxes)
    stamp = boxes.stamp if isinstance(boxes, Boxes) else 0.0
    placed = [box for box in items
              if all(math.isfinite(v) for v in (*box.center, *box.size, *box.rotation))]
    dropped = len(items) - len(placed)
    if not placed:
        return ImageOverlay((), stamp=stamp, frame_id=camera.frame_id, dropped=dropped)
    sizes = np.array([box.size for box in placed], float)
    centers = np.array([box.center for box in placed], float)
    turns = rotation_matrices(np.array([box.rotation for box in placed], float))
    local = (BOX_CORNERS[None] * sizes[:, None]) @ turns.transpose(0, 2, 1)
    corners = (local + centers[:, None]) @ matrix[:3, :3].T + matrix[:3, 3]
    pairs, owner = _edges_of_boxes(camera, corners, near)
    ends = np.cumsum(np.bincount(owner, minlength=len(placed)))
    shapes: list[Shape] = []
    for box, first, last in zip(placed, (0, *ends[:-1]), ends, strict=True):
        if first == last:
            continue
        lines = pairs[first:last].reshape(-1, 2)
        color: RGBA = box.color or label_color(box.label or box.kind)
        shapes.append(Shape("line_list", lines, color))
        text = _box_caption(box)
        if text:
            low = lines.min(axis=0)
            shapes.append(label_above(text, float(low[0]), float(low[1]), color))
    return ImageOverlay(tuple(shapes), stamp=stamp, frame_id=camera.frame_id, dropped=dropped)


def _box_caption(box: Box) -> str:
    label = box.label or box.kind
    return f"{label} {box.score:.2f}" if math.isfinite(box.score) else label


@dataclass(frozen=True)
class PlacedBoxes:
    """A display model's boxes by frame, each group with the 4x4 matrix from its frame to the
    camera's optical frame: what needs the transform tree, looked up where the tree lives;
    :func:`project_placed` does the rest anywhere."""

    groups: tuple[tuple[tuple[Box, ...], np.ndarray], ...]
    dropped: int = 0  # boxes of frames that could not be placed
    stamp: float = 0.0


def place_model(model: object, camera_from: Callable[[str], np.ndarray | None]
                ) -> PlacedBoxes:
    """Every box of a display model (see :func:`boxes_in`) with its frame's matrix into the
    camera; ``camera_from(frame)`` gives it, or None when the frame cannot be placed (its
    boxes are counted in ``dropped``)."""
    by_frame: dict[str, list[Box]] = {}
    for frame, box in boxes_in(model):
        by_frame.setdefault(frame, []).append(box)
    groups: list[tuple[tuple[Box, ...], np.ndarray]] = []
    dropped = 0
    for frame, boxes in by_frame.items():
        matrix = camera_from(frame)
        if matrix is None:
            dropped += len(boxes)
        else:
            groups.append((tuple(boxes), matrix))
    return PlacedBoxes(tuple(groups), dropped, getattr(model, "stamp", 0.0))


def project_placed(placed: PlacedBoxes, camera: CameraModel, near: float = NEAR_M
                   ) -> ImageOverlay:
    """Placed boxes drawn into ``camera``'s image (see :func:`project_boxes`)."""
    shapes: list[Shape] = []
    dropped = placed.dropped
    for boxes, matrix in placed.groups:
        part = project_boxes(boxes, camera, matrix, near)
        shapes.extend(part.shapes)
        dropped += part.dropped
    return ImageOverlay(tuple(shapes), stamp=placed.stamp, frame_id=camera.frame_id,
                        dropped=dropped)


def project_model(model: object, camera: CameraModel,
                  camera_from: Callable[[str], np.ndarray | None],
                  near: float = NEAR_M) -> ImageOverlay:
    """Every box of a display model drawn into ``camera``'s image: :func:`place_model`, then
    :func:`project_placed`."""
    return project_placed(place_model(model, camera_from), camera, near)
