"""A spinning lidar on the rover: the ground plane plus the scene's boxes, as seen from it.

The flat ground looks the same from every pose, so its ring pattern is precomputed once in
the lidar frame — already laid out as the zenoh attachment. Per scan only the object points
are computed (vectorised over the box faces that face the sensor, density falling with
distance like a real lidar) and written over the front of that template copy. The ground
template is shuffled, so the ground points they replace are a uniform random subset and the
cloud always has exactly ``points`` points.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.codec.buffers import buffers_layout, encode_buffers
from app.sim.kinematics import Pose2D
from app.sim.scene import BoxSet, SceneObject, yaw_matrix

NOISE_M = 0.01  # range noise, 1 sigma


@dataclass(frozen=True)
class LidarScan:
    attachment: bytearray  # transport.Buffers: 0 = positions (N, 3) f32, 1 = intensities (N, 1) f32
    positions: np.ndarray  # (N, 3) float32 view into the attachment, lidar frame
    intensities: np.ndarray  # (N, 1) float32 view into the attachment
    object_points: int  # how many of the first positions hit objects


class Lidar:
    def __init__(
        self,
        points: int,
        mount: tuple[float, float, float] = (0.0, 0.0, 0.8),
        vertical_fov_deg: float = 30.0,
        beams: int = 64,
        max_range: float = 80.0,
        seed: int = 0,
    ) -> None:
        if points < 1:
            raise ValueError("a lidar needs at least one point")
        self.points = points
        self.mount = np.asarray(mount, float)
        self.max_range = max_range
        self._tan_half_fov = math.tan(math.radians(vertical_fov_deg) / 2)
        # Returns per steradian: `points` spread over the full turn and the vertical field.
        self._density = points / (2 * math.pi * math.radians(vertical_fov_deg))
        self._max_object_points = points // 2
        rng = np.random.default_rng(seed)
        ground, ground_intensity = self._ground(rng, vertical_fov_deg, beams)
        self._template = bytes(encode_buffers([ground, ground_intensity]))
        _, self._offsets = buffers_layout([ground.nbytes, ground_intensity.nbytes])
        self._uv = rng.random((self._max_object_points, 2), np.float32)
        self._noise = rng.normal(0.0, NOISE_M, (self._max_object_points, 3)).astype(np.float32)

    def _ground(self, rng: np.random.Generator, fov_deg: float,
                beams: int) -> tuple[np.ndarray, np.ndarray]:
        height = self.mount[2]
        elevations = np.radians(np.linspace(-fov_deg / 2, fov_deg / 2, beams))
        falling = elevations[elevations < 0]
        ranges = height / np.tan(-falling)
        ranges = ranges[ranges <= self.max_range]
        if ranges.size == 0:
            raise ValueError("no lidar beam reaches the ground within range")
        azimuth_steps = -(-self.points // ranges.size)
        azimuths = np.linspace(0, 2 * np.pi, azimuth_steps, endpoint=False)
        ring, azimuth = np.meshgrid(ranges, azimuths, indexing="ij")
        ring = (ring * (1 + rng.normal(0, 0.003, ring.shape))).ravel()
        azimuth = azimuth.ravel()
        pick = rng.permutation(ring.size)[: self.points]
        ring, azimuth = ring[pick], azimuth[pick]
        ground = np.empty((self.points, 3), np.float32)
        ground[:, 0] = ring * np.cos(azimuth)
        ground[:, 1] = ring * np.sin(azimuth)
        ground[:, 2] = -height
        intensity = np.clip(0.25 - 0.002 * ring + rng.normal(0, 0.03, ring.size), 0.02, 1.0)
        return ground, intensity.astype(np.float32).reshape(-1, 1)

    def scan(self, pose: Pose2D, objects: list[SceneObject]) -> LidarScan:
        """One full turn at ``pose``; positions in the lidar frame (x forward, z up)."""
        attachment = bytearray(self._template)
        positions = np.frombuffer(attachment, np.float32, self.points * 3,
                                  self._offsets[0]).reshape(-1, 3)
        intensities = np.frombuffer(attachment, np.float32, self.points,
                                    self._offsets[1]).reshape(-1, 1)
        hits, strength = self._object_points(pose, objects)
        count = len(hits)
        positions[:count] = hits
        intensities[:count, 0] = strength
        return LidarScan(attachment, positions, intensities, count)

    def _object_points(self, pose: Pose2D,
                       objects: list[SceneObject]) -> tuple[np.ndarray, np.ndarray]:
        base = yaw_matrix(pose.yaw)
        origin = np.array([pose.x, pose.y, 0.0]) + base @ self.mount
        rotation = base.T
        boxes = BoxSet.of(objects)
        faces = boxes.transformed(rotation, -rotation @ origin).faces_toward_origin()
        distance = np.linalg.norm(faces.centers, axis=1)
        near = distance < self.max_range
        facing = np.einsum("fi,fi->f", faces.normals, -faces.centers) / np.maximum(distance, 1e-6)
        area = np.linalg.norm(np.cross(faces.edges1, faces.edges2), axis=1)
        expected = np.where(near, self._density * area * facing / np.maximum(distance, 0.3) ** 2, 0)
        total = expected.sum()
        if total > self._max_object_points:
            expected *= self._max_object_points / total
        counts = np.floor(expected).astype(np.int64)
        count = int(counts.sum())
        if count == 0:
            return np.zeros((0, 3), np.float32), np.zeros(0, np.float32)
        face = np.repeat(np.arange(len(counts)), counts)
        uv = self._uv[:count]
        points = (faces.corners[face] + uv[:, :1] * faces.edges1[face]
                  + uv[:, 1:] * faces.edges2[face]).astype(np.float32)
        points += self._noise[:count]
        colors = boxes.colors[faces.parts]
        reflectivity = colors.mean(axis=1) / 255.0 * 0.8 * facing + 0.05
        strength = reflectivity[face].astype(np.float32)
        # Points above or below the vertical field of view are not returned.
        seen = np.abs(points[:, 2]) <= self._tan_half_fov * np.hypot(points[:, 0], points[:, 1])
        return points[seen], strength[seen]
