"""The rover's forward camera: a pinhole that draws the scene with numpy/cv2 and reports what
it drew — 2D boxes and skeletons from the very same projection.

Pixel coordinates reported in detections and skeletons follow Isaac: (row, col), i.e.
``Vector2dProto.x`` is the row (down) and ``.y`` the column (right), in pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from app.sim.kinematics import Pose2D
from app.sim.scene import BoxSet, SceneObject, yaw_matrix

# Columns: the optical frame's axes (x right, y down, z forward) in base_link (x fwd, z up).
BASE_FROM_OPTICAL = np.array([[0.0, 0.0, 1.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0]])
PITCH_DEG = 8.0  # the camera looks slightly down
NEAR_M = 0.15
FAR_M = 60.0
GRID_STEP_M = 2.0
GRID_RADIUS_M = 30.0
SUN = np.array([0.55, 0.35, 0.75])  # world direction towards the sun
SKY_TOP, SKY_HORIZON = (92, 142, 214), (196, 216, 238)
GROUND_HORIZON, GROUND_NEAR = (150, 158, 120), (96, 120, 64)
GRID_COLOR = (84, 104, 58)
SUBPIXEL_BITS = 4  # cv2 sub-pixel bits


@dataclass(frozen=True)
class Detection2:
    object: SceneObject
    min_rc: tuple[float, float]  # (row, col) of the top-left corner, inside the image
    max_rc: tuple[float, float]  # (row, col) of the bottom-right corner, inside the image
    distance: float  # m from the camera


@dataclass(frozen=True)
class Skeleton2:
    object: SceneObject
    joints_rc: np.ndarray  # (J, 2) (row, col) pixels
    inside: np.ndarray  # (J,) bool: the joint projects into the image


@dataclass(frozen=True)
class CameraFrame:
    image: np.ndarray  # (rows, cols, 3) uint8 RGB
    detections: list[Detection2]
    skeletons: list[Skeleton2]


class Camera:
    def __init__(
        self,
        width: int = 640,
        height: int = 480,
        hfov_deg: float = 80.0,
        mount: tuple[float, float, float] = (0.35, 0.0, 0.6),
        pitch_deg: float = PITCH_DEG,
    ) -> None:
        self.width, self.height = width, height
        self.focal = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        self.cx, self.cy = width / 2, height / 2
        self.mount = np.asarray(mount, float)
        self.pitch = math.radians(pitch_deg)
        c, s = math.cos(self.pitch), math.sin(self.pitch)
        # Pitching down turns base_link's x towards -z, about its y axis.
        self.base_from_optical = np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]) @ (
            BASE_FROM_OPTICAL
        )
        self.background = self._background()

    def _background(self) -> np.ndarray:
        """Sky above the horizon, ground below: the same from every pose on flat ground."""
        rows = np.arange(self.height, dtype=float)[:, None]
        horizon = self.cy - self.focal * math.tan(self.pitch)
        sky_t = np.clip(rows / max(horizon, 1.0), 0, 1) ** 1.5
        ground_t = np.clip((rows - horizon) / max(self.height - horizon, 1.0), 0, 1) ** 0.5
        sky = (1 - sky_t) * SKY_TOP + sky_t * np.array(SKY_HORIZON)
        ground = (1 - ground_t) * GROUND_HORIZON + ground_t * np.array(GROUND_NEAR)
        column = np.where(rows < horizon, sky, ground).astype(np.uint8)
        return np.ascontiguousarray(np.broadcast_to(column[:, None, :],
                                                    (self.height, self.width, 3)))

    def world_to_optical(self, pose: Pose2D) -> tuple[np.ndarray, np.ndarray]:
        """(rotation, translation) with p_optical = rotation @ p_world + translation."""
        base = yaw_matrix(pose.yaw)
        position = np.array([pose.x, pose.y, 0.0]) + base @ self.mount
        rotation = (base @ self.base_from_optical).T
        return rotation, -rotation @ position

    def project(self, points: np.ndarray) -> np.ndarray:
        """(..., 3) optical-frame points in front of the camera -> (..., 2) (col, row) pixels."""
        z = points[..., 2:3]
        return points[..., :2] / z * self.focal + (self.cx, self.cy)

    def render(self, pose: Pose2D, objects: list[SceneObject]) -> CameraFrame:
        image = self.background.copy()
        rotation, translation = self.world_to_optical(pose)
        self._draw_grid(image, pose, rotation, translation)
        bounds = self._draw_objects(image, objects, rotation, translation)
        detections: list[Detection2] = []
        for index, (lo, hi) in sorted(bounds.items()):
            lo = np.maximum(lo, 0.0)
            hi = np.minimum(hi, (self.width - 1.0, self.height - 1.0))
            if hi[0] - lo[0] < 2 or hi[1] - lo[1] < 2:
                continue
            obj = objects[index]
            distance = float(np.linalg.norm(rotation @ np.asarray(obj.position) + translation))
            detections.append(Detection2(obj, (float(lo[1]), float(lo[0])),
                                         (float(hi[1]), float(hi[0])), distance))
        skeletons = [self._skeleton(d.object, rotation, translation) for d in detections
                     if d.object.joints is not None]
        return CameraFrame(image, detections, [s for s in skeletons if s is not None])

    def _draw_grid(self, image: np.ndarray, pose: Pose2D, rotation: np.ndarray,
                   translation: np.ndarray) -> None:
        """World-fixed lines on the ground, so the view visibly moves with the rover."""
        lines = []
        for axis, centre in ((0, pose.x), (1, pose.y)):
            first = math.ceil((centre - GRID_RADIUS_M) / GRID_STEP_M) * GRID_STEP_M
            for value in np.arange(first, centre + GRID_RADIUS_M, GRID_STEP_M):
                other = pose.y if axis == 0 else pose.x
                a, b = [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]
                a[axis] = b[axis] = value
                a[1 - axis], b[1 - axis] = other - GRID_RADIUS_M, other + GRID_RADIUS_M
                lines.append((a, b))
        ends = np.array(lines) @ rotation.T + translation  # (L, 2, 3)
        for a, b in ends:
            clipped = _clip_segment(a, b)
            if clipped is None:
                continue
            pa, pb = self.project(np.array(clipped))
            cv2.line(image, _pixel(pa), _pixel(pb), GRID_COLOR, 1, cv2.LINE_8, SUBPIXEL_BITS)

    def _draw_objects(self, image: np.ndarray, objects: list[SceneObject], rotation: np.ndarray,
                      translation: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """Paints visible box faces far to near; returns per object its drawn (col, row) bounds."""
        boxes = BoxSet.of(objects).transformed(rotation, translation)
        faces = boxes.faces_toward_origin()
        part_distance = np.linalg.norm(boxes.centers, axis=1)[faces.parts]
        order = np.argsort(-part_distance, kind="stable")
        light = rotation @ (SUN / np.linalg.norm(SUN))
        shade = 0.6 + 0.4 * np.clip(faces.normals @ light, 0, 1)
        quads = faces.quads()
        bounds: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for f in order:
            if part_distance[f] > FAR_M:
                continue
            polygon = _clip_polygon(quads[f])
            if polygon is None:
                continue
            pixels = self.project(polygon)
            part = faces.parts[f]
            color = boxes.colors[part] * shade[f]
            points = _pixels(pixels)
            cv2.fillConvexPoly(image, points, color.tolist(), cv2.LINE_8, SUBPIXEL_BITS)
            cv2.polylines(image, [points], True, (color * 0.6).tolist(), 1, cv2.LINE_8,
                          SUBPIXEL_BITS)
            owner = int(boxes.owners[part])
            lo, hi = pixels.min(axis=0), pixels.max(axis=0)
            if owner in bounds:
                lo, hi = np.minimum(lo, bounds[owner][0]), np.maximum(hi, bounds[owner][1])
            bounds[owner] = (lo, hi)
        return bounds

    def _skeleton(self, person: SceneObject, rotation: np.ndarray,
                  translation: np.ndarray) -> Skeleton2 | None:
        assert person.joints is not None
        joints = person.joints @ rotation.T + translation
        if np.any(joints[:, 2] < NEAR_M):
            return None
        cols_rows = self.project(joints)
        inside = ((cols_rows[:, 0] >= 0) & (cols_rows[:, 0] <= self.width - 1)
                  & (cols_rows[:, 1] >= 0) & (cols_rows[:, 1] <= self.height - 1))
        return Skeleton2(person, cols_rows[:, ::-1].copy(), inside)


def _clip_segment(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The part of segment a-b in front of the near plane, or None."""
    if a[2] < NEAR_M and b[2] < NEAR_M:
        return None
    if a[2] < NEAR_M:
        a = a + (b - a) * (NEAR_M - a[2]) / (b[2] - a[2])
    elif b[2] < NEAR_M:
        b = b + (a - b) * (NEAR_M - b[2]) / (a[2] - b[2])
    return a, b


def _clip_polygon(polygon: np.ndarray) -> np.ndarray | None:
    """A convex polygon cut to the part in front of the near plane (Sutherland-Hodgman)."""
    ahead = polygon[:, 2] >= NEAR_M
    if ahead.all():
        return polygon
    if not ahead.any():
        return None
    kept = []
    for i in range(len(polygon)):
        a, b = polygon[i], polygon[(i + 1) % len(polygon)]
        if ahead[i]:
            kept.append(a)
        if ahead[i] != ahead[(i + 1) % len(polygon)]:
            kept.append(a + (b - a) * (NEAR_M - a[2]) / (b[2] - a[2]))
    return np.array(kept)


def _pixels(points: np.ndarray) -> np.ndarray:
    """(col, row) float pixels -> int32 points in cv2's fixed-point sub-pixel units."""
    limit = 1 << 20  # far outside any image, still safe for cv2's fixed-point maths
    return np.clip(np.round(points * (1 << SUBPIXEL_BITS)), -limit, limit).astype(np.int32)


def _pixel(point: np.ndarray) -> tuple[int, int]:
    x, y = _pixels(point)
    return int(x), int(y)
