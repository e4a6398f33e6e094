"""``vision_msgs`` detections -> what the 3D view and the camera draw.

``vision_msgs`` (4.x, Humble on) is not among ROS 2's standard definitions; its messages
are written here as the package defines them, so a robot's detectors are read without its
files. A ``Detection3DArray`` is a ``foxglove.SceneUpdate`` replacing the last one: a box per
detection in the header's frame, labelled with its best hypothesis. A ``Detection2DArray``
is ``foxglove.ImageAnnotations``: each box's outline and label on the image.
"""

from __future__ import annotations

import colorsys
import zlib
from typing import Any

# vision_msgs/msg/*.msg (ros-perception/vision_msgs, ROS 2 branch, 4.x)
DEFINITIONS = {
    "vision_msgs/msg/Point2D": "float64 x\nfloat64 y\n",
    "vision_msgs/msg/Pose2D": "vision_msgs/Point2D position\nfloat64 theta\n",
    "vision_msgs/msg/BoundingBox2D": "vision_msgs/Pose2D center\nfloat64 size_x\n"
                                     "float64 size_y\n",
    "vision_msgs/msg/BoundingBox3D": "geometry_msgs/Pose center\ngeometry_msgs/Vector3 size\n",
    "vision_msgs/msg/ObjectHypothesis": "string class_id\nfloat64 score\n",
    "vision_msgs/msg/ObjectHypothesisWithPose": "vision_msgs/ObjectHypothesis hypothesis\n"
                                                "geometry_msgs/PoseWithCovariance pose\n",
    "vision_msgs/msg/Detection2D": "std_msgs/Header header\n"
                                   "vision_msgs/ObjectHypothesisWithPose[] results\n"
                                   "vision_msgs/BoundingBox2D bbox\nstring id\n",
    "vision_msgs/msg/Detection2DArray": "std_msgs/Header header\n"
                                        "vision_msgs/Detection2D[] detections\n",
    "vision_msgs/msg/Detection3D": "std_msgs/Header header\n"
                                   "vision_msgs/ObjectHypothesisWithPose[] results\n"
                                   "vision_msgs/BoundingBox3D bbox\nstring id\n",
    "vision_msgs/msg/Detection3DArray": "std_msgs/Header header\n"
                                        "vision_msgs/Detection3D[] detections\n",
}
LABEL_HEIGHT_M = 0.3  # a 3D label above its box
ALPHA = 0.5


def definitions() -> dict[str, Any]:
    """The definitions, as rosbags parses them (``RosTypes.add`` takes them)."""
    from rosbags.typesys import get_types_from_msg

    types: dict[str, Any] = {}
    for name, text in DEFINITIONS.items():
        types.update(get_types_from_msg(text, name))
    return types


def label(results: Any) -> tuple[str, str]:
    """(the best hypothesis's class, "class 0.93") of a detection; ("", "") for none."""
    best = max(results, key=lambda r: r.hypothesis.score, default=None)
    if best is None:
        return "", ""
    class_id = best.hypothesis.class_id
    return class_id, f"{class_id} {best.hypothesis.score:.2f}"


def class_color(class_id: str) -> tuple[float, float, float]:
    """One colour per class, the same in every run."""
    hue = (zlib.crc32(class_id.encode()) % 360) / 360
    return colorsys.hsv_to_rgb(hue, 0.8, 1.0)


def _set_color(builder: Any, rgb: tuple[float, float, float], alpha: float) -> None:
    builder.r, builder.g, builder.b = rgb
    builder.a = alpha


def detections_3d(builder: Any, msg: Any) -> None:
    deletion = builder.init("deletions", 1)[0]  # the last detections are replaced whole
    deletion.type = "all"
    deletion.timestamp.sec, deletion.timestamp.nsec = msg.header.stamp.sec, \
        msg.header.stamp.nanosec
    entities = builder.init("entities", len(msg.detections))
    for index, (entity, detection) in enumerate(zip(entities, msg.detections, strict=True)):
        header = detection.header if detection.header.frame_id else msg.header
        entity.timestamp.sec, entity.timestamp.nsec = header.stamp.sec, header.stamp.nanosec
        entity.frameId = header.frame_id
        entity.id = detection.id or str(index)
        class_id, text = label(detection.results)
        rgb = class_color(class_id)
        cube = entity.init("cubes", 1)[0]
        center, size = detection.bbox.center, detection.bbox.size
        cube.pose.position.x, cube.pose.position.y, cube.pose.position.z = \
            center.position.x, center.position.y, center.position.z
        q = center.orientation
        cube.pose.orientation.x, cube.pose.orientation.y = q.x, q.y
        cube.pose.orientation.z, cube.pose.orientation.w = q.z, q.w
        cube.size.x, cube.size.y, cube.size.z = size.x, size.y, size.z
        _set_color(cube.color, rgb, ALPHA)
        if text:
            words = entity.init("texts", 1)[0]
            words.pose.position.x, words.pose.position.y = center.position.x, \
                center.position.y
            words.pose.position.z = center.position.z + size.z / 2 + LABEL_HEIGHT_M
            words.pose.orientation.w = 1.0
            words.billboard, words.fontSize, words.text = True, 12.0, text
            _set_color(words.color, rgb, 1.0)


def detections_2d(builder: Any, msg: Any) -> None:
    boxes = builder.init("points", len(msg.detections))
    texts = [(d, label(d.results)) for d in msg.detections]
    labelled = [(d, text) for d, (_, text) in texts if text]
    for box, detection in zip(boxes, msg.detections, strict=True):
        stamp = msg.header.stamp
        box.timestamp.sec, box.timestamp.nsec = stamp.sec, stamp.nanosec
        box.type = "lineLoop"
        cx, cy = detection.bbox.center.position.x, detection.bbox.center.position.y
        half_w, half_h = detection.bbox.size_x / 2, detection.bbox.size_y / 2
        corners = ((cx - half_w, cy - half_h), (cx + half_w, cy - half_h),
                   (cx + half_w, cy + half_h), (cx - half_w, cy + half_h))
        for point, (x, y) in zip(box.init("points", 4), corners, strict=True):
            point.x, point.y = x, y
        _set_color(box.outlineColor, class_color(label(detection.results)[0]), 1.0)
        box.thickness = 2.0
    for item, (detection, text) in zip(builder.init("texts", len(labelled)), labelled,
                                       strict=True):
        stamp = msg.header.stamp
        item.timestamp.sec, item.timestamp.nsec = stamp.sec, stamp.nanosec
        item.position.x = detection.bbox.center.position.x - detection.bbox.size_x / 2
        item.position.y = detection.bbox.center.position.y - detection.bbox.size_y / 2
        item.text, item.fontSize = text, 14.0
        _set_color(item.textColor, class_color(label(detection.results)[0]), 1.0)
