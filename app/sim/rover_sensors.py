"""The rover's sensor topics: lidar cloud, camera (raw + JPEG), 2D/3D detections, skeletons,
frame transforms and a 3D scene overlay, all drawn from one SyntheticScene.

Frames (foxglove frame ids; isaac messages carry none, so the catalog's ``frameId`` of each
isaac topic names it, PROTOCOL.md "Keys"):
- ``world``: the local frame of kinematics (x east, y north, z up), shared by all sim robots.
- ``base_link``: the rover on the ground, x forward, z up.
- ``lidar``: ``base_link`` + LIDAR_MOUNT, same axes. ``lidar/points`` is in this frame.
- ``camera``: optical frame (x right, y down, z forward) at CAMERA_MOUNT, pitched down.
  ``camera/image`` and the pixel positions, (row, col), of ``camera/detections`` and
  ``camera/skeletons`` are in this camera's image.
``lidar/detections`` poses are in ``base_link`` (computed from the rover's pose, not from the
cloud: see ``_relative``).
"""

from __future__ import annotations

import math
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from app.codec.buffers import encode_buffers, fill_tensor
from app.codec.registry import registry
from app.sim.kinematics import Pose2D
from app.sim.robot import SimRobot
from app.sim.rover_camera import Camera, CameraFrame
from app.sim.rover_lidar import Lidar
from app.sim.scene import SKELETON_EDGES, SKELETON_JOINTS, SceneObject, SyntheticScene

# Frame ids (the catalog's frameId of the isaac topics, whose types carry none).
BASE_FRAME = "base_link"
LIDAR_FRAME = "lidar"
CAMERA_FRAME = "camera"
LIDAR_HZ = 5.0  # default; ``fieldstation sim --lidar-hz`` changes it
CAMERA_HZ = 10.0
CAMERA_SIZE = (640, 480)  # ``fieldstation sim --camera 1920x1080`` sends full HD
TF_HZ = 20.0
SCENE_HZ = 2.0
CALIBRATION_HZ = 1.0
LIDAR_MOUNT = (0.0, 0.0, 0.8)
CAMERA_MOUNT = (0.35, 0.0, 0.6)
LIDAR_RANGE_M = 40.0  # objects reported in 3D within this distance of the rover
JPEG_QUALITY = 80
PATH_POINTS = 2000
PATH_STEP_M = 0.05

Quaternion = tuple[float, float, float, float]  # x, y, z, w


class RoverSensors:
    def __init__(self, scene: SyntheticScene, points: int, width: int = CAMERA_SIZE[0],
                 height: int = CAMERA_SIZE[1], lidar_hz: float = LIDAR_HZ) -> None:
        if not (math.isfinite(lidar_hz) and lidar_hz > 0):
            raise ValueError(f"lidar rate must be positive, not {lidar_hz}")
        self.scene = scene
        self.lidar_hz = lidar_hz
        self.lidar = Lidar(points, mount=LIDAR_MOUNT)
        self.camera = Camera(width, height, mount=CAMERA_MOUNT)
        self._camera_rotation = _quaternion(self.camera.base_from_optical)
        self._pose: Callable[[], Pose2D] = Pose2D
        self._wall_offset = time.time() - time.monotonic()
        self._frame: CameraFrame | None = None
        self._frame_at = math.nan
        self._path: deque[tuple[float, float]] = deque(maxlen=PATH_POINTS)

    def register(self, robot: SimRobot, pose: Callable[[], Pose2D]) -> None:
        """Adds the sensor topics to ``robot``; ``pose`` gives the rover's current pose."""
        self._pose = pose
        robot.add_topic("lidar/points", "isaac.PointCloudProto", self.lidar_hz, self.point_cloud,
                        LIDAR_FRAME)
        robot.add_topic("camera/image", "isaac.ImageProto", CAMERA_HZ, self.raw_image,
                        CAMERA_FRAME)
        robot.add_topic("camera/calibration", "foxglove.CameraCalibration", CALIBRATION_HZ,
                        self.calibration)
        robot.add_topic("camera/compressed", "foxglove.CompressedImage", CAMERA_HZ,
                        self.compressed_image)
        robot.add_topic("camera/detections", "isaac.Detections2Proto", CAMERA_HZ,
                        self.detections2, CAMERA_FRAME)
        robot.add_topic("camera/skeletons", "isaac.Skeleton2ListProto", CAMERA_HZ,
                        self.skeletons, CAMERA_FRAME)
        robot.add_topic("lidar/detections", "isaac.Detections3Proto", CAMERA_HZ,
                        self.detections3, BASE_FRAME)
        robot.add_topic("tf", "foxglove.FrameTransforms", TF_HZ, self.transforms)
        robot.add_topic("scene", "foxglove.SceneUpdate", SCENE_HZ, self.scene_update)

    # -- producers (now = time.monotonic() of the robot's tick) ------------------------------
    def point_cloud(self, now: float) -> tuple[Any, bytearray]:
        scan = self.lidar.scan(self._pose(), self.scene.objects(now))
        cloud = _new("isaac.PointCloudProto")
        fill_tensor(cloud.positions, scan.positions, 0)
        fill_tensor(cloud.intensities, scan.intensities, 1)
        return cloud, scan.attachment

    def raw_image(self, now: float) -> tuple[Any, bytes]:
        frame = self.camera_frame(now)
        rows, cols, channels = frame.image.shape
        image = _new("isaac.ImageProto", elementType="uint8", rows=rows, cols=cols,
                     channels=channels, dataBufferIndex=0)
        return image, encode_buffers([frame.image])

    def compressed_image(self, now: float) -> Any:
        frame = self.camera_frame(now)
        bgr = cv2.cvtColor(frame.image, cv2.COLOR_RGB2BGR)
        ok, jpeg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, JPEG_QUALITY])
        if not ok:
            return None
        message = _new("foxglove.CompressedImage", frameId=CAMERA_FRAME, format="jpeg",
                       data=jpeg.tobytes())
        self._stamp(message.timestamp, now)
        return message

    def calibration(self, now: float) -> Any:
        cam = self.camera
        f, cx, cy = cam.focal, cam.cx, cam.cy
        message = _new(
            "foxglove.CameraCalibration", frameId=CAMERA_FRAME, width=cam.width, height=cam.height,
            distortionModel="plumb_bob", d=[0.0] * 5, k=[f, 0.0, cx, 0.0, f, cy, 0.0, 0.0, 1.0],
            r=[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            p=[f, 0.0, cx, 0.0, 0.0, f, cy, 0.0, 0.0, 0.0, 1.0, 0.0],
        )
        self._stamp(message.timestamp, now)
        return message

    def detections2(self, now: float) -> Any:
        frame = self.camera_frame(now)
        message = _new("isaac.Detections2Proto")
        predictions = message.init("predictions", len(frame.detections))
        boxes = message.init("boundingBoxes", len(frame.detections))
        for prediction, box, detection in zip(predictions, boxes, frame.detections, strict=True):
            prediction.label = detection.object.kind
            prediction.confidence = _confidence(detection.distance)
            box.min.x, box.min.y = detection.min_rc
            box.max.x, box.max.y = detection.max_rc
        return message

    def skeletons(self, now: float) -> Any:
        frame = self.camera_frame(now)
        message = _new("isaac.Skeleton2ListProto")
        for skeleton, seen in zip(message.init("skeletons", len(frame.skeletons)),
                                  frame.skeletons, strict=True):
            skeleton.label.label = "person"
            skeleton.label.confidence = 0.9
            skeleton.graph.nodeCount = len(SKELETON_JOINTS)
            for edge, (source, target) in zip(
                skeleton.graph.init("edges", len(SKELETON_EDGES)), SKELETON_EDGES, strict=True
            ):
                edge.source, edge.target, edge.cost = source, target, 1.0
            joints = skeleton.init("joints", len(SKELETON_JOINTS))
            for joint, name, (row, col), inside in zip(
                joints, SKELETON_JOINTS, seen.joints_rc.tolist(), seen.inside.tolist(),
                strict=True,
            ):
                joint.position.x, joint.position.y = row, col
                joint.label.label = name
                joint.label.confidence = 0.9 if inside else 0.0
        return message

    def detections3(self, now: float) -> Any:
        pose = self._pose()
        near = [(obj, _relative(pose, obj)) for obj in self.scene.objects(now)]
        near = [(obj, rel) for obj, rel in near if math.hypot(rel[0], rel[1]) <= LIDAR_RANGE_M]
        message = _new("isaac.Detections3Proto")
        predictions = message.init("predictions", len(near))
        boxes = message.init("boundingBoxes", len(near))
        poses = message.init("poses", len(near))
        for prediction, box, obj_pose, (obj, (x, y, z, yaw)) in zip(
            predictions, boxes, poses, near, strict=True
        ):
            prediction.label = obj.kind
            prediction.confidence = _confidence(math.hypot(x, y))
            half = [s / 2 for s in obj.size]
            box.min.x, box.min.y, box.min.z = (-h for h in half)
            box.max.x, box.max.y, box.max.z = half
            obj_pose.translation.x, obj_pose.translation.y, obj_pose.translation.z = x, y, z
            q = obj_pose.rotation.q
            q.x, q.y, q.z, q.w = _yaw_quaternion(yaw)
        return message

    def transforms(self, now: float) -> Any:
        pose = self._pose()
        self._record_path(pose)
        message = _new("foxglove.FrameTransforms")
        frames = (
            ("world", BASE_FRAME, (pose.x, pose.y, 0.0), pose.quaternion()),
            (BASE_FRAME, LIDAR_FRAME, LIDAR_MOUNT, (0.0, 0.0, 0.0, 1.0)),
            (BASE_FRAME, CAMERA_FRAME, CAMERA_MOUNT, self._camera_rotation),
        )
        for transform, (parent, child, xyz, quat) in zip(
            message.init("transforms", len(frames)), frames, strict=True
        ):
            self._stamp(transform.timestamp, now)
            transform.parentFrameId, transform.childFrameId = parent, child
            _set_xyz(transform.translation, xyz)
            _set_quat(transform.rotation, quat)
        return message

    def scene_update(self, now: float) -> Any:
        objects = self.scene.objects(now)
        message = _new("foxglove.SceneUpdate")
        entities = message.init("entities", len(objects) + 1)
        for index, obj in enumerate(objects):
            self._object_entity(entities[index], obj, now)
        path = entities[len(objects)]
        self._stamp(path.timestamp, now)
        path.frameId, path.id = "world", "rover-path"
        line = path.init("lines", 1)[0]
        line.type = "lineStrip"
        _set_quat(line.pose.orientation, (0.0, 0.0, 0.0, 1.0))
        line.thickness = 0.05
        for point, (x, y) in zip(line.init("points", len(self._path)), self._path, strict=True):
            point.x, point.y, point.z = x, y, 0.02
        _set_color(line.color, (0, 200, 255), 1.0)
        return message

    # -- helpers --------------------------------------------------------------------------
    def camera_frame(self, now: float) -> CameraFrame:
        """The view at ``now``, rendered once and shared by every camera topic of that tick."""
        if self._frame is None or now != self._frame_at:
            self._frame = self.camera.render(self._pose(), self.scene.objects(now))
            self._frame_at = now
        return self._frame

    def _object_entity(self, entity: Any, obj: SceneObject, now: float) -> None:
        self._stamp(entity.timestamp, now)
        entity.frameId, entity.id = "world", obj.id
        meta = entity.init("metadata", 1)[0]
        meta.key, meta.value = "kind", obj.kind
        cube = entity.init("cubes", 1)[0]
        _set_xyz(cube.pose.position, obj.position)
        _set_quat(cube.pose.orientation, _yaw_quaternion(obj.yaw))
        _set_xyz(cube.size, obj.size)
        _set_color(cube.color, obj.color, 0.6)
        text = entity.init("texts", 1)[0]
        x, y, z = obj.position
        _set_xyz(text.pose.position, (x, y, z + obj.size[2] / 2 + 0.3))
        _set_quat(text.pose.orientation, (0.0, 0.0, 0.0, 1.0))
        text.billboard, text.scaleInvariant, text.fontSize = True, True, 14.0
        _set_color(text.color, (255, 255, 255), 1.0)
        text.text = obj.id

    def _record_path(self, pose: Pose2D) -> None:
        if not self._path or math.dist(self._path[-1], (pose.x, pose.y)) >= PATH_STEP_M:
            self._path.append((pose.x, pose.y))

    def _stamp(self, stamp: Any, now: float) -> None:
        wall = now + self._wall_offset
        stamp.sec = int(wall)
        stamp.nsec = min(int((wall - int(wall)) * 1e9), 999_999_999)


def _new(type_name: str, **fields: Any) -> Any:
    return registry().struct(type_name).new_message(**fields)


def _confidence(distance: float) -> float:
    """Detectors grow less sure with distance."""
    return float(np.clip(0.98 - 0.01 * distance, 0.5, 0.98))


def _relative(pose: Pose2D, obj: SceneObject) -> tuple[float, float, float, float]:
    """(x, y, z, yaw) of an object's box centre in the rover's base_link frame."""
    dx, dy = obj.position[0] - pose.x, obj.position[1] - pose.y
    c, s = math.cos(pose.yaw), math.sin(pose.yaw)
    yaw = (obj.yaw - pose.yaw + math.pi) % (2 * math.pi) - math.pi
    return c * dx + s * dy, -s * dx + c * dy, obj.position[2], yaw


def _yaw_quaternion(yaw: float) -> Quaternion:
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def _quaternion(m: np.ndarray) -> Quaternion:
    """(x, y, z, w) of a rotation matrix (Shepperd's method, largest pivot first)."""
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    pivots = (trace, m[0, 0], m[1, 1], m[2, 2])
    k = int(np.argmax(pivots))
    if k == 0:
        s = 2 * math.sqrt(1 + trace)
        q = ((m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s, s / 4)
    elif k == 1:
        s = 2 * math.sqrt(1 + m[0, 0] - m[1, 1] - m[2, 2])
        q = (s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s, (m[2, 1] - m[1, 2]) / s)
    elif k == 2:
        s = 2 * math.sqrt(1 + m[1, 1] - m[0, 0] - m[2, 2])
        q = ((m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s, (m[0, 2] - m[2, 0]) / s)
    else:
        s = 2 * math.sqrt(1 + m[2, 2] - m[0, 0] - m[1, 1])
        q = ((m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4, (m[1, 0] - m[0, 1]) / s)
    sign = -1.0 if q[3] < 0 else 1.0
    return tuple(sign * float(v) for v in q)  # type: ignore[return-value]


def _set_xyz(target: Any, xyz: tuple[float, float, float] | list[float]) -> None:
    target.x, target.y, target.z = (float(v) for v in xyz)


def _set_quat(target: Any, q: Quaternion) -> None:
    target.x, target.y, target.z, target.w = q


def _set_color(target: Any, rgb: tuple[int, int, int], alpha: float) -> None:
    target.r, target.g, target.b = (c / 255 for c in rgb)
    target.a = alpha
