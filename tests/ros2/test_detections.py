"""vision_msgs detections as the camera panel draws them: each box's outline and its best
hypothesis, and the hash of the definitions the station holds is the package's own."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from app.codec.decode import decode, encoding_for
from app.convert.camera.overlays import image_annotations
from app.ros2.cdr import RosTypes
from app.ros2.translate import translate, translation_for

ARRAY_2D = "vision_msgs/msg/Detection2DArray"


@pytest.fixture(scope="module")
def types() -> RosTypes:
    return RosTypes()


def hypothesis(types: RosTypes, class_id: str, score: float) -> Any:
    new = types.message
    pose = new("geometry_msgs/msg/Pose",
               position=new("geometry_msgs/msg/Point", x=0.0, y=0.0, z=0.0),
               orientation=new("geometry_msgs/msg/Quaternion", x=0.0, y=0.0, z=0.0, w=1.0))
    return new("vision_msgs/msg/ObjectHypothesisWithPose",
               hypothesis=new("vision_msgs/msg/ObjectHypothesis", class_id=class_id,
                              score=score),
               pose=new("geometry_msgs/msg/PoseWithCovariance", pose=pose,
                        covariance=np.zeros(36)))


def detections_2d(types: RosTypes, results: tuple[Any, ...] = ()) -> Any:
    """One 40 x 20 px box centred on (100, 50) of a camera image, with ``results``."""
    new = types.message
    header = new("std_msgs/msg/Header", stamp=new("builtin_interfaces/msg/Time", sec=9,
                                                  nanosec=0), frame_id="camera")
    box = new("vision_msgs/msg/BoundingBox2D", center=new(
        "vision_msgs/msg/Pose2D", position=new("vision_msgs/msg/Point2D", x=100.0, y=50.0),
        theta=0.0), size_x=40.0, size_y=20.0)
    detection = new("vision_msgs/msg/Detection2D", header=header, bbox=box, id="d1",
                    results=list(results))
    return new(ARRAY_2D, header=header, detections=[detection])


def test_a_2d_detection_is_its_box_and_best_label_on_the_image(types: RosTypes) -> None:
    message = detections_2d(types, (hypothesis(types, "person", 0.4),
                                    hypothesis(types, "forklift", 0.8)))
    translation = translation_for(ARRAY_2D, "/camera/detections", types)
    assert translation is not None
    cdr = types.encode(ARRAY_2D, message)
    ((said, _),) = translate(translation, ARRAY_2D, types.decode(ARRAY_2D, cdr), "rover_1")
    overlay = image_annotations(decode(encoding_for(translation.type_name), said).root)
    outline, label = overlay.shapes
    assert outline.kind == "line_loop"
    assert outline.xy.tolist() == [[80, 40], [120, 40], [120, 60], [80, 60]]
    assert label.kind == "text" and label.text == "forklift 0.80"


def test_the_definitions_held_hash_as_the_package_s_own(types: RosTypes) -> None:
    """vision_msgs 4.x's Detection3DArray, as code generated from the package names it."""
    assert types.hash_of("vision_msgs/msg/Detection3DArray") == (
        "RIHS01_793f5eab9595ac1c0da07873cc859db42eae51f0ee76056db8562515d830e018")
